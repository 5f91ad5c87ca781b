//===- InitVyre.cpp - Register vyre and what it builds on -------*- C++ -*-===//

#include "vyre/InitVyre.h"

#include "vyre/Analysis/Passes.h"
#include "vyre/Conversion/Passes.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Pipelines/Pipelines.h"
#include "vyre/Simulation/Passes.h"
#include "vyre/Transforms/Passes.h"
#include "vyre/Verification/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

void vyre::registerVyreDialects(DialectRegistry &registry) {
  registry.insert<vyre::VyreDialect, affine::AffineDialect,
                  arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
                  vector::VectorDialect>();
}

void vyre::registerVyrePassesAndPipelines() {
  registerVyreAnalysisPasses();
  registerVyrePasses();
  registerVyreConversionPasses();
  registerVyreVerificationPasses();
  registerVyreSimulationPasses();
  registerVyreToGPUPipeline();
  registerVyreGPUAsyncPipeline();
}
