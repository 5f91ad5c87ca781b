//===- Passes.h - vyre simulation passes ------------------------*- C++ -*-===//

#ifndef VYRE_SIMULATION_PASSES_H
#define VYRE_SIMULATION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace mlir::vyre {

#define GEN_PASS_DECL
#include "vyre/Simulation/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "vyre/Simulation/Passes.h.inc"

} // namespace mlir::vyre

#endif // VYRE_SIMULATION_PASSES_H
