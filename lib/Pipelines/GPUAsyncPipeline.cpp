//===- GPUAsyncPipeline.cpp - A drop-in for --gpu-async-region ---*- C++ -*-===//
//
// Synchronous gpu-dialect host code in, asynchronous gpu-dialect host code
// out, with copies overlapping kernels: what upstream's --gpu-async-region
// does, plus the overlap. Its output goes on to --gpu-lower-to-nvvm-pipeline
// exactly where --gpu-async-region's would.
//
//===----------------------------------------------------------------------===//

#include "vyre/Pipelines/Pipelines.h"

#include "vyre/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void vyre::buildVyreGPUAsyncPipeline(OpPassManager &pm,
                                     const VyreToGPUPipelineOptions &options) {
  // Kernels written inline (gpu.launch) become gpu.func kernels.
  pm.addPass(createGpuKernelOutliningPass());
  // Synchronous gpu host code becomes vyre; asynchronous code stays.
  pm.addNestedPass<func::FuncOp>(createConvertGPUHostToVyrePass());
  // What was not imported is made asynchronous as upstream would, unless it
  // is asynchronous already (upstream's pass would chain what it runs
  // concurrently). It runs before vyre's lowering, whose token chains it
  // would rewrite: imported functions hold no gpu host op yet, so it leaves
  // them alone.
  pm.addNestedPass<func::FuncOp>(createGPUAsyncRegionForSynchronousCodePass());
  // Schedule and lower back to the gpu dialect.
  buildVyreToGPUPipeline(pm, options);
}

void vyre::registerVyreGPUAsyncPipeline() {
  PassPipelineRegistration<VyreToGPUPipelineOptions>(
      "vyre-gpu-async-pipeline",
      "A drop-in for --gpu-async-region that also overlaps copies with "
      "kernels: --gpu-kernel-outlining, --convert-gpu-host-to-vyre, "
      "--gpu-async-region for what was not imported and is not asynchronous "
      "already, then "
      "--vyre-to-gpu-pipeline",
      buildVyreGPUAsyncPipeline);
}
