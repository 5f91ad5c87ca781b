//===- Passes.h - vyre transformation passes --------------------*- C++ -*-===//

#ifndef VYRE_TRANSFORMS_PASSES_H
#define VYRE_TRANSFORMS_PASSES_H

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::vyre {

#define GEN_PASS_DECL
#include "vyre/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "vyre/Transforms/Passes.h.inc"

} // namespace mlir::vyre

#endif // VYRE_TRANSFORMS_PASSES_H
