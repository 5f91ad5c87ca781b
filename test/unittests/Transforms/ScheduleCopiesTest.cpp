//===- ScheduleCopiesTest.cpp - --overlap-copies as one call -----*- C++
//-*-===//

#include "vyre/Transforms/OverlapCopies/ScheduleCopies.h"
#include "vyre/Analysis/Passes.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"
#include "vyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

// A 4 MiB copy beside an unrelated 200 us kernel, and a 64-byte one into the
// buffer that kernel writes.
constexpr const char *kProgram = R"mlir(
  gpu.module @k {
    func.func private @read(%x: memref<1048576xf32>) attributes {gpu.kernel}
    func.func private @other(%y: memref<16xf32>) attributes {gpu.kernel}
  }
  func.func @f(%in: memref<1048576xf32> {vyre.pinned, llvm.noalias},
               %small: memref<16xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<1048576xf32>
    %b = vyre.alloc : memref<16xf32>
    vyre.dispatch @k::@other blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>) access [readwrite] {vyre.cost_us = 200.0}
    vyre.copy_h2d %in to %a : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %small to %b : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1048576xf32>) access [read] {vyre.cost_us = 200.0}
    vyre.dispatch @k::@other blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>) access [readwrite] {vyre.cost_us = 10.0}
    vyre.dealloc %a : memref<1048576xf32>
    vyre.dealloc %b : memref<16xf32>
    return
  }
)mlir";

/// Counts the remarks the engine reports.
struct CountingStreamer : remark::detail::MLIRRemarkStreamerBase {
  explicit CountingStreamer(unsigned &count) : count(count) {}
  void streamOptimizationRemark(const remark::detail::Remark &) override {
    ++count;
  }
  unsigned &count;
};

class ScheduleCopiesTest : public ::testing::Test {
protected:
  ScheduleCopiesTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    context.disableMultithreading();
    remark::RemarkCategories every{".*", ".*", ".*", ".*", ".*"};
    (void)remark::enableOptimizationRemarks(
        context, std::make_unique<CountingStreamer>(remarks),
        std::make_unique<remark::RemarkEmittingPolicyAll>(), every);
  }

  /// The program with its kernels summarized, or null.
  OwningOpRef<ModuleOp> parse() {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kProgram, &context);
    if (!module)
      return nullptr;
    PassManager summarize(&context);
    summarize.addPass(createKernelAccessPass());
    if (failed(summarize.run(*module)))
      return nullptr;
    return module;
  }

  unsigned remarks = 0;
  MLIRContext context;
};

TEST_F(ScheduleCopiesTest, DoesWhatThePassDoes) {
  OwningOpRef<ModuleOp> byCall = parse(), byPass = parse();
  ASSERT_TRUE(byCall && byPass);
  auto function = byCall->lookupSymbol<func::FuncOp>("f");
  SlotAccessAnalysis slots(function);
  overlap::scheduleCopies(function, slots, overlap::ScheduleOptions());

  PassManager pass(&context);
  pass.addNestedPass<func::FuncOp>(createOverlapCopiesPass());
  ASSERT_TRUE(succeeded(pass.run(*byPass)));
  EXPECT_TRUE(OperationEquivalence::isEquivalentTo(
      *byCall, *byPass, OperationEquivalence::IgnoreLocations));

  // Both copies are asynchronous; the large one runs on the side stream,
  // beside the unrelated kernel.
  SmallVector<CopyH2DAsyncOp> copies(function.getOps<CopyH2DAsyncOp>());
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_TRUE(function.getOps<CopyH2DOp>().empty());
  auto large = llvm::find_if(copies, [](CopyH2DAsyncOp copy) {
    return cast<MemRefType>(copy.getTarget().getType()).getNumElements() ==
           1048576;
  });
  ASSERT_NE(large, copies.end());
  EXPECT_NE(large->getStream(), 0);
}

TEST_F(ScheduleCopiesTest, TakesThePassOptions) {
  OwningOpRef<ModuleOp> byCall = parse(), byPass = parse();
  ASSERT_TRUE(byCall && byPass);
  auto function = byCall->lookupSymbol<func::FuncOp>("f");
  SlotAccessAnalysis slots(function);
  overlap::ScheduleOptions options;
  options.costModel = false;
  options.sideStreams = 2;
  options.asyncInPlace = false;
  overlap::scheduleCopies(function, slots, options);

  OverlapCopiesPassOptions passOptions;
  passOptions.costModel = false;
  passOptions.sideStreams = 2;
  passOptions.asyncInPlace = false;
  PassManager pass(&context);
  pass.addNestedPass<func::FuncOp>(createOverlapCopiesPass(passOptions));
  ASSERT_TRUE(succeeded(pass.run(*byPass)));
  EXPECT_TRUE(OperationEquivalence::isEquivalentTo(
      *byCall, *byPass, OperationEquivalence::IgnoreLocations));
  // Two side streams: the copies are dealt out over both.
  llvm::SmallDenseSet<int64_t> streams;
  for (CopyH2DAsyncOp copy : function.getOps<CopyH2DAsyncOp>())
    streams.insert(copy.getStream());
  EXPECT_EQ(streams.size(), 2u);
  EXPECT_FALSE(streams.contains(0));
}

TEST_F(ScheduleCopiesTest, SilentWhenAskedTo) {
  OwningOpRef<ModuleOp> silent = parse(), explained = parse();
  ASSERT_TRUE(silent && explained);
  auto quiet = silent->lookupSymbol<func::FuncOp>("f");
  SlotAccessAnalysis quietSlots(quiet);
  overlap::ScheduleOptions options;
  options.emitRemarks = false;
  overlap::scheduleCopies(quiet, quietSlots, options);
  EXPECT_EQ(remarks, 0u);

  auto loud = explained->lookupSymbol<func::FuncOp>("f");
  SlotAccessAnalysis loudSlots(loud);
  overlap::scheduleCopies(loud, loudSlots, overlap::ScheduleOptions());
  EXPECT_GT(remarks, 0u);
  // Silence changes nothing else.
  EXPECT_TRUE(OperationEquivalence::isEquivalentTo(
      *silent, *explained, OperationEquivalence::IgnoreLocations));
}

} // namespace
