//===- Passes.h - vyre analysis passes --------------------------*- C++ -*-===//

#ifndef VYRE_ANALYSIS_PASSES_H
#define VYRE_ANALYSIS_PASSES_H

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::vyre {

#define GEN_PASS_DECL
#include "vyre/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "vyre/Analysis/Passes.h.inc"

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_PASSES_H
