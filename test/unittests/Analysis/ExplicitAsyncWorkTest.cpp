//===- ExplicitAsyncWorkTest.cpp - Explicit gpu tokens, via the API -*- C++ -*-===//

#include "vyre/Analysis/ExplicitAsyncWork.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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
      gpu.func @scale(%x: memref<16xf32>) kernel { gpu.return }
    }
    func.func @chain(%h: memref<16xf32>, %o: memref<16xf32>, %tok: !gpu.async.token) {
      %c1 = arith.constant 1 : index
      %s = gpu.wait async
      %d, %ta = gpu.alloc async [%s] () : memref<16xf32>
      %tc = gpu.memcpy async [%ta] %d, %h : memref<16xf32>, memref<16xf32>
      %tk = gpu.launch_func async [%tc] @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      gpu.wait [%tk]
      %tb = gpu.memcpy async [%tok] %o, %d : memref<16xf32>, memref<16xf32>
      gpu.wait [%tb]
      gpu.memcpy %o, %d : memref<16xf32>, memref<16xf32>
      return
    }
  }
)mlir";

class ExplicitAsyncWorkTest : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    module = parseSourceString<ModuleOp>(kProgram, context.get());
    ASSERT_TRUE(module);
    auto function = module->lookupSymbol<func::FuncOp>("chain");
    function.walk([&](Operation *op) {
      if (isa<gpu::AsyncOpInterface>(op))
        gpuOps.push_back(op);
    });
    // wait, alloc, memcpy, launch, wait, memcpy, wait, memcpy.
    ASSERT_EQ(gpuOps.size(), 8u);
  }

  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  SmallVector<Operation *> gpuOps;
};

TEST_F(ExplicitAsyncWorkTest, TokenOpsAndBlockingWaitsAreExplicitSynchronousOpsAreNot) {
  for (unsigned i = 0; i < 7; ++i)
    EXPECT_TRUE(isExplicitAsyncOp(gpuOps[i])) << i;
  EXPECT_FALSE(isExplicitAsyncOp(gpuOps[7]));
}

TEST_F(ExplicitAsyncWorkTest, AWaitCoversTheWholeChainBeforeItsToken) {
  auto wait = cast<gpu::WaitOp>(gpuOps[4]);
  std::optional<SmallVector<Operation *>> before =
      getOpsBeforeTokens(wait.getAsyncDependencies());
  ASSERT_TRUE(before);
  EXPECT_EQ(before->size(), 4u);
  std::optional<SmallVector<GPUBufferAccess>> accesses =
      getExplicitAsyncAccesses(wait);
  ASSERT_TRUE(accesses);
  auto memcpy = cast<gpu::MemcpyOp>(gpuOps[2]);
  bool readsHost = false, writesDevice = false, writesHost = false;
  for (const GPUBufferAccess &access : *accesses) {
    readsHost |= access.buffer == memcpy.getSrc() && !access.isWrite;
    writesHost |= access.buffer == memcpy.getSrc() && access.isWrite;
    writesDevice |= access.buffer == memcpy.getDst() && access.isWrite;
  }
  EXPECT_TRUE(readsHost);
  EXPECT_TRUE(writesDevice);
  EXPECT_FALSE(writesHost);
}

TEST_F(ExplicitAsyncWorkTest, WorkKnownDoneIsNotFollowedAndALimitStops) {
  auto wait = cast<gpu::WaitOp>(gpuOps[4]);
  SmallPtrSet<Operation *, 4> done;
  done.insert(gpuOps[2]);
  std::optional<SmallVector<Operation *>> before =
      getOpsBeforeTokens(wait.getAsyncDependencies(), &done);
  ASSERT_TRUE(before);
  ASSERT_EQ(before->size(), 1u);
  EXPECT_EQ(before->front(), gpuOps[3]);
  EXPECT_FALSE(getOpsBeforeTokens(wait.getAsyncDependencies(), nullptr,
                                  /*limit=*/3));
  EXPECT_TRUE(getOpsBeforeTokens(wait.getAsyncDependencies(), nullptr,
                                 /*limit=*/4));
}

TEST_F(ExplicitAsyncWorkTest, ATokenFromAnArgumentCannotBeFollowed) {
  EXPECT_TRUE(getExplicitAsyncAccesses(gpuOps[5]));
  EXPECT_FALSE(getExplicitAsyncAccesses(gpuOps[6]));
}

TEST_F(ExplicitAsyncWorkTest, ALaunchReadsAndWritesWhatItNames) {
  std::optional<SmallVector<GPUBufferAccess>> accesses =
      getGPUHostOpAccesses(gpuOps[3]);
  ASSERT_TRUE(accesses);
  ASSERT_EQ(accesses->size(), 2u);
  EXPECT_NE((*accesses)[0].isWrite, (*accesses)[1].isWrite);
}

} // namespace
