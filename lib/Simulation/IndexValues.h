//===- IndexValues.h - Integers the simulator computes as it runs -*- C++ -*-===//
//
// Part of --vyre-simulate: the value of an integer (or index, or i1) SSA
// value at the point the simulation stands, from constants and the
// induction variables of the loops being run, through the arith ops that
// index arithmetic uses. It decides which branch an scf.if takes where its
// condition is computed from the iteration (every fourth frame, say).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_SIMULATION_INDEXVALUES_H
#define VYRE_LIB_SIMULATION_INDEXVALUES_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mlir::vyre::simulation {

/// The value of `value`, as a signed 64-bit integer (an i1 is 0 or 1), given
/// the values of the induction variables being run in `known`; none where
/// it depends on anything else (a load, an argument, a call) or its
/// arithmetic overflows.
std::optional<int64_t>
evaluateIndexValue(Value value, const llvm::DenseMap<Value, int64_t> &known);

/// Whether `value` may be computed from one of the values in `known` (the
/// induction variables being run): then its value may change from one
/// iteration to the next, known in some and unknown in others (a division
/// of a negative number, an overflow). Past a depth it says yes.
bool mayReadIndexValues(Value value,
                        const llvm::DenseMap<Value, int64_t> &known);

} // namespace mlir::vyre::simulation

#endif // VYRE_LIB_SIMULATION_INDEXVALUES_H
