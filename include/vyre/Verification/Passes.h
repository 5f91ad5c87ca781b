//===- Passes.h - vyre verification passes ----------------------*- C++ -*-===//

#ifndef VYRE_VERIFICATION_PASSES_H
#define VYRE_VERIFICATION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::vyre {

#define GEN_PASS_DECL
#include "vyre/Verification/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "vyre/Verification/Passes.h.inc"

} // namespace mlir::vyre

#endif // VYRE_VERIFICATION_PASSES_H
