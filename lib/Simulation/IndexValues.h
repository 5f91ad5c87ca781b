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
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::vyre::simulation {

/// The value of `value`, as a signed 64-bit integer (an i1 is 0 or 1), given
/// the values of the induction variables being run in `known`; none where
/// it depends on anything else (a load, an argument, a call) or its
/// arithmetic overflows.
std::optional<int64_t>
evaluateIndexValue(Value value, const llvm::DenseMap<Value, int64_t> &known);

/// The values among `known` (the induction variables being run) that
/// `value` is computed from, where it is computed through the ops
/// `evaluateIndexValue` follows alone: then it may be known in some
/// iterations and not in others (a division of a negative number, an
/// overflow), and may change from one to the next. None where it reads
/// anything else (an argument, a load), so that it is never known; every
/// value in `known` where the expression is too deep to follow.
std::optional<llvm::SmallVector<Value, 2>>
indexValuesRead(Value value, const llvm::DenseMap<Value, int64_t> &known);

} // namespace mlir::vyre::simulation

#endif // VYRE_LIB_SIMULATION_INDEXVALUES_H
