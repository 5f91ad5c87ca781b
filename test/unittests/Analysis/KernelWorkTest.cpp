//===- KernelWorkTest.cpp - What a kernel's threads do, counted ----------===//

#include "vyre/Analysis/KernelWork.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr const char *kProgram = R"mlir(
  module attributes {gpu.container_module} {
    gpu.module @k {
      gpu.func @axpy(%a: f32, %x: memref<1024xf32>, %y: memref<1024xf32>) kernel {
        %t = gpu.thread_id x
        %c0 = arith.constant 0 : index
        %c4 = arith.constant 4 : index
        %c1 = arith.constant 1 : index
        scf.for %k = %c0 to %c4 step %c1 {
          %v = vector.load %x[%t] : memref<1024xf32>, vector<4xf32>
          %w = vector.load %y[%t] : memref<1024xf32>, vector<4xf32>
          %av = vector.broadcast %a : f32 to vector<4xf32>
          %r = math.fma %av, %v, %w : vector<4xf32>
          vector.store %r, %y[%t] : memref<1024xf32>, vector<4xf32>
        }
        gpu.return
      }
      gpu.func @copies(%x: memref<1024xf32>, %y: memref<1024xf32>) kernel {
        memref.copy %x, %y : memref<1024xf32> to memref<1024xf32>
        gpu.return
      }
    }
    func.func @host(%a: f32, %x: memref<1024xf32>, %y: memref<1024xf32>) {
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      gpu.launch_func @k::@axpy blocks in (%c2, %c2, %c1) threads in (%c64, %c1, %c1) args(%a : f32, %x : memref<1024xf32>, %y : memref<1024xf32>)
      return
    }
  }
)mlir";

class KernelWorkTest : public ::testing::Test {
protected:
  KernelWorkTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  Operation *kernel(StringRef name) {
    Operation *found = nullptr;
    module->walk([&](gpu::GPUFuncOp function) {
      if (function.getName() == name)
        found = function;
    });
    return found;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(KernelWorkTest, CountsBytesAndOperationsPerThreadTimesTheTripCount) {
  ASSERT_TRUE(module);
  std::optional<KernelWork> work = computeKernelWork(kernel("axpy"));
  ASSERT_TRUE(work);
  // Per iteration: three 16-byte vector accesses, 4 lanes of fma (2 each).
  EXPECT_EQ(work->bytes, 4u * 3u * 16u);
  EXPECT_EQ(work->flops, 4u * 4u * 2u);
}

TEST_F(KernelWorkTest, RefusesMemoryOpsItDoesNotCount) {
  ASSERT_TRUE(module);
  std::string whyNot;
  EXPECT_FALSE(computeKernelWork(kernel("copies"), &whyNot));
  EXPECT_EQ(whyNot,
            "'memref.copy' accesses memory in a way that is not counted");
}

TEST_F(KernelWorkTest, ThreadsAreTheGridTimesTheBlock) {
  ASSERT_TRUE(module);
  Operation *launch = nullptr;
  module->walk([&](gpu::LaunchFuncOp op) { launch = op; });
  ASSERT_TRUE(launch);
  EXPECT_EQ(getLaunchedThreads(launch), std::optional<uint64_t>(2 * 2 * 64));
}

TEST(KernelWorkEstimate, TheLongerOfMemoryAndArithmetic) {
  Roofline roofline{/*memoryGBps=*/1000.0, /*tflops=*/1.0};
  // 1,000 threads x 1,000 bytes at 1,000 GB/s: 1 us; 1,000 operations each
  // at 1 TFLOP/s: 1 us.
  EXPECT_DOUBLE_EQ(estimateKernelMicros({1000, 1000}, 1000, roofline), 1.0);
  EXPECT_DOUBLE_EQ(estimateKernelMicros({4000, 1000}, 1000, roofline), 4.0);
  EXPECT_DOUBLE_EQ(estimateKernelMicros({1000, 3000}, 1000, roofline), 3.0);
  EXPECT_DOUBLE_EQ(estimateKernelMicros({1000, 1000}, 0, roofline), 0.0);
}

} // namespace
