//===- Passes.h - vyre conversion passes ------------------------*- C++ -*-===//

#ifndef VYRE_CONVERSION_PASSES_H
#define VYRE_CONVERSION_PASSES_H

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::vyre {

#define GEN_PASS_DECL
#include "vyre/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "vyre/Conversion/Passes.h.inc"

} // namespace mlir::vyre

#endif // VYRE_CONVERSION_PASSES_H
