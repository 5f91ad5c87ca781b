//===- PipelinesTest.cpp - The pipelines through the C++ API -----*- C++ -*-===//

#include "vyre/Analysis/Passes.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"
#include "vyre/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// Synchronous gpu-dialect host code: a copy in, a launch, a copy out.
constexpr const char *kUpstreamProgram = R"mlir(
  module attributes {gpu.container_module} {
    gpu.module @kernels {
      gpu.func @scale(%x: memref<16xf32>) kernel {
        gpu.return
      }
    }
    func.func @host(%h: memref<16xf32>) {
      %c1 = arith.constant 1 : index
      %d = gpu.alloc () : memref<16xf32>
      gpu.memcpy %d, %h : memref<16xf32>, memref<16xf32>
      gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      gpu.memcpy %h, %d : memref<16xf32>, memref<16xf32>
      gpu.dealloc %d : memref<16xf32>
      return
    }
  }
)mlir";

TEST(PipelinesTest, TheDropInMakesUpstreamHostCodeAsynchronous) {
  DialectRegistry registry;
  registerVyreDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kUpstreamProgram, &context);
  ASSERT_TRUE(module);

  PassManager pm(&context);
  VyreToGPUPipelineOptions options;
  options.verify = true;
  buildVyreGPUAsyncPipeline(pm, options);
  ASSERT_TRUE(succeeded(pm.run(*module)));

  // Every memcpy and launch is asynchronous now, and no vyre op is left.
  unsigned copies = 0, launches = 0;
  module->walk([&](Operation *op) {
    EXPECT_FALSE(isa<VyreDialect>(op->getDialect()))
        << op->getName().getStringRef().str();
    if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      ++copies;
      EXPECT_TRUE(copy.getAsyncToken());
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      ++launches;
      EXPECT_TRUE(launch.getAsyncToken());
    }
  });
  EXPECT_EQ(copies, 2u);
  EXPECT_EQ(launches, 1u);
}

TEST(PipelinesTest, PipelineOptionsAreThePassesOwn) {
  VyreToGPUPipelineOptions options;
  ASSERT_TRUE(succeeded(options.parseFromString(
      "hoist=false side-streams=3 max-traces=7 verify=true "
      "pipeline-depth=3 buffer-budget=4096 d2h-streams=2")));
  EXPECT_FALSE(options.getOverlapCopiesPassOptions().hoist);
  EXPECT_EQ(options.getPipelineLoopsPassOptions().pipelineDepth, 3u);
  EXPECT_EQ(options.getPipelineLoopsPassOptions().bufferBudget, 4096u);
  EXPECT_TRUE(options.pipelineLoops);
  EXPECT_EQ(options.getOverlapCopiesPassOptions().sideStreams, 3u);
  EXPECT_EQ(options.getOverlapCopiesPassOptions().d2hStreams, 2u);
  EXPECT_EQ(options.getVerifyGPUStreamsPassOptions().maxTraces, 7u);
  EXPECT_TRUE(options.verify);
  // The depth trials of --vyre-pipeline-loops schedule as --overlap-copies
  // does: the options of the same names are one option for both.
  EXPECT_FALSE(options.getPipelineLoopsPassOptions().hoist);
  EXPECT_EQ(options.getPipelineLoopsPassOptions().sideStreams, 3u);
  EXPECT_EQ(options.getPipelineLoopsPassOptions().d2hStreams, 2u);
}

TEST(PipelinesTest, CostFiguresReachBothPasses) {
  VyreToGPUPipelineOptions options;
  ASSERT_TRUE(succeeded(options.parseFromString(
      "launch-us=3.5 event-us=0.5 host-sync-us=2.5 d2h-gbps=20 "
      "async-in-place=false order-kernels=false")));
  EXPECT_EQ(options.getPipelineLoopsPassOptions().launchUs, 3.5);
  EXPECT_EQ(options.getOverlapCopiesPassOptions().launchUs, 3.5);
  EXPECT_EQ(options.getPipelineLoopsPassOptions().eventUs, 0.5);
  EXPECT_EQ(options.getOverlapCopiesPassOptions().hostSyncUs, 2.5);
  EXPECT_EQ(options.getPipelineLoopsPassOptions().hostSyncUs, 2.5);
  EXPECT_EQ(options.getPipelineLoopsPassOptions().d2hGBps, 20.0);
  EXPECT_FALSE(options.getPipelineLoopsPassOptions().asyncInPlace);
  EXPECT_FALSE(options.getOverlapCopiesPassOptions().orderKernels);
  EXPECT_FALSE(options.getPipelineLoopsPassOptions().orderKernels);
}

} // namespace

namespace {

/// A loop streaming rows of a host array through one device buffer.
constexpr const char *kLoopProgram = R"mlir(
  gpu.module @k {
    gpu.func @use(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @stream(%h: memref<4x16xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %a = vyre.alloc : memref<16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    return
  }
)mlir";

/// Counts the vyre.alloc ops in `module`.
unsigned countAllocs(ModuleOp module) {
  unsigned count = 0;
  module.walk([&](AllocOp) { ++count; });
  return count;
}

TEST(PipelinesTest, PipelineLoopsRotatesWithinTheBudget) {
  DialectRegistry registry;
  registerVyreDialects(registry);
  MLIRContext context(registry);
  for (auto [budget, allocs] : {std::pair<uint64_t, unsigned>{0, 1},
                                std::pair<uint64_t, unsigned>{64, 2},
                                std::pair<uint64_t, unsigned>{1024, 3}}) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kLoopProgram, &context);
    ASSERT_TRUE(module);
    PassManager pm(&context);
    PipelineLoopsPassOptions options;
    options.pipelineDepth = 3;
    options.bufferBudget = budget;
    pm.addPass(createKernelAccessPass());
    pm.addNestedPass<func::FuncOp>(createPipelineLoopsPass(options));
    ASSERT_TRUE(succeeded(pm.run(*module)));
    // One buffer per iteration in flight, as many as 64-byte buffers fit.
    EXPECT_EQ(countAllocs(*module), allocs) << "budget " << budget;
  }
}

} // namespace

namespace {

/// `main` allocates two buffers and calls a private function that copies
/// one in and the other back.
constexpr const char *kCallProgram = R"mlir(
  gpu.module @k {
    gpu.func @use(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func private @batch(%in: memref<16xf32>, %out: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<16xf32>
    vyre.copy_h2d %in to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
    return
  }
  func.func @main() {
    %in = memref.alloc() : memref<16xf32>
    %out = memref.alloc() : memref<16xf32>
    call @batch(%in, %out) : (memref<16xf32>, memref<16xf32>) -> ()
    return
  }
)mlir";

/// Whether the pipeline, with `deduce`, marks both arguments of @batch.
bool marksBatchArguments(bool deduce) {
  DialectRegistry registry;
  registerVyreDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kCallProgram, &context);
  EXPECT_TRUE(module);
  if (!module)
    return false;
  PassManager pm(&context);
  VyreToGPUPipelineOptions options;
  options.deduceNoAlias = deduce;
  buildVyreToGPUPipeline(pm, options);
  EXPECT_TRUE(succeeded(pm.run(*module)));
  auto batch = module->lookupSymbol<func::FuncOp>("batch");
  EXPECT_TRUE(batch);
  return batch && batch.getArgAttr(0, "llvm.noalias") &&
         batch.getArgAttr(1, "llvm.noalias");
}

TEST(PipelinesTest, ThePipelineMarksArgumentsTheCallsPassDistinctBuffersFor) {
  EXPECT_TRUE(marksBatchArguments(/*deduce=*/true));
  EXPECT_FALSE(marksBatchArguments(/*deduce=*/false));
}

} // namespace
