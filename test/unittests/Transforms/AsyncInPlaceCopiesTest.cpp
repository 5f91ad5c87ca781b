//===- AsyncInPlaceCopiesTest.cpp - Copies in place through the C++ API -*- C++ -*-===//

#include "vyre/Analysis/Passes.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"
#include "vyre/Transforms/AsyncInPlace/AsyncInPlaceCopies.h"
#include "vyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr const char *kProgram = R"mlir(
  gpu.module @k {
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @round_trip(%in: memref<16xf32> {llvm.noalias},
                        %out: memref<16xf32> {llvm.noalias},
                        %other: memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<16xf32>
    vyre.copy_h2d %in to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
    %x = memref.load %other[%c0] : memref<16xf32>
    %y = memref.load %out[%c0] : memref<16xf32>
    %s = arith.addf %x, %y : f32
    return %s : f32
  }
)mlir";

class AsyncInPlaceCopiesTest : public ::testing::Test {
protected:
  AsyncInPlaceCopiesTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    context.disableMultithreading();
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(AsyncInPlaceCopiesTest, WaitsOnlyBeforeTheReadOfTheCopiedBack) {
  ASSERT_TRUE(module);
  PassManager summarize(&context);
  summarize.addPass(createKernelAccessPass());
  ASSERT_TRUE(succeeded(summarize.run(*module)));
  auto function = module->lookupSymbol<func::FuncOp>("round_trip");
  SlotAccessAnalysis slots(function);

  AsyncInPlaceResult result = makeInPlaceCopiesAsync(function, slots);
  EXPECT_EQ(result.copies, 2u);
  EXPECT_EQ(result.hostWaits, 1u);
  EXPECT_EQ(result.dependencies, 0u);
  EXPECT_TRUE(function.getOps<CopyH2DOp>().empty());
  EXPECT_TRUE(function.getOps<CopyD2HOp>().empty());

  // Both copies run on the main stream, in place.
  SmallVector<CopyH2DAsyncOp> in(function.getOps<CopyH2DAsyncOp>());
  SmallVector<CopyD2HAsyncOp> back(function.getOps<CopyD2HAsyncOp>());
  ASSERT_EQ(in.size(), 1u);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(in[0].getStream(), 0u);
  EXPECT_EQ(back[0].getStream(), 0u);
  EXPECT_TRUE(isa<DispatchOp>(in[0]->getNextNode()));

  // The one wait comes after the load of the other buffer, right before the
  // load of the copied-back one, on the copy back's token.
  SmallVector<SyncOp> syncs(function.getOps<SyncOp>());
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].getTokens().front(), back[0].getToken());
  auto loadBefore = dyn_cast<memref::LoadOp>(syncs[0]->getPrevNode());
  auto loadAfter = dyn_cast<memref::LoadOp>(syncs[0]->getNextNode());
  ASSERT_TRUE(loadBefore && loadAfter);
  EXPECT_EQ(loadBefore.getMemRef(), function.getArgument(2));
  EXPECT_EQ(loadAfter.getMemRef(), function.getArgument(1));
  EXPECT_TRUE(succeeded(mlir::verify(*module)));
}

TEST_F(AsyncInPlaceCopiesTest, UpstreamsRuleWaitsBeforeEveryEffect) {
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.addPass(createKernelAccessPass());
  AsyncInPlacePassOptions options;
  options.waitBeforeAnyEffect = true;
  pm.nest<func::FuncOp>().addPass(createAsyncInPlacePass(options));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  auto function = module->lookupSymbol<func::FuncOp>("round_trip");
  // One wait, on the main stream's progress, before the first load.
  SmallVector<SyncOp> syncs(function.getOps<SyncOp>());
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_TRUE(syncs[0].getTokens().front().getDefiningOp<RecordOp>());
  auto load = dyn_cast<memref::LoadOp>(syncs[0]->getNextNode());
  ASSERT_TRUE(load);
  EXPECT_EQ(load.getMemRef(), function.getArgument(2));
}

} // namespace
