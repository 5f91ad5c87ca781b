//===- OverlapCopiesTest.cpp - The pass through the C++ API -----*- C++ -*-===//

#include "vyre/Analysis/Passes.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"
#include "vyre/Transforms/OverlapCopies/CopyCostModel.h"
#include "vyre/Transforms/OverlapCopies/CopyPlan.h"
#include "vyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
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
  func.func @with_copies(%h: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<16xf32>
    %b = vyre.alloc : memref<16xf32>
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }
  func.func @copy_after_copy(%h: memref<16xf32>, %g: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<16xf32>
    %b = vyre.alloc : memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.copy_h2d %g to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }
  func.func @without_copies(%h: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }
)mlir";

/// Computes the slot access analysis and keeps it.
struct ComputeAnalysisPass
    : public PassWrapper<ComputeAnalysisPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ComputeAnalysisPass)
  void runOnOperation() override {
    (void)getAnalysis<SlotAccessAnalysis>();
    markAllAnalysesPreserved();
  }
};

/// Records which functions still have the analysis cached.
struct RecordCachedPass
    : public PassWrapper<RecordCachedPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RecordCachedPass)
  explicit RecordCachedPass(llvm::StringMap<bool> &cached) : cached(cached) {}
  void runOnOperation() override {
    cached[getOperation().getName()] =
        getCachedAnalysis<SlotAccessAnalysis>().has_value();
    markAllAnalysesPreserved();
  }
  llvm::StringMap<bool> &cached;
};

class OverlapCopiesTest : public ::testing::Test {
protected:
  OverlapCopiesTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    context.disableMultithreading();
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  func::FuncOp lookup(StringRef name) {
    return module->lookupSymbol<func::FuncOp>(name);
  }

  /// Runs --vyre-kernel-access on the module, then returns function `name`.
  func::FuncOp summarizeAndLookup(StringRef name) {
    PassManager summarize(&context);
    summarize.addPass(createKernelAccessPass());
    if (failed(summarize.run(*module)))
      return nullptr;
    return lookup(name);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(OverlapCopiesTest, KeepsAnalysesOnlyWhereNothingChanged) {
  ASSERT_TRUE(module);
  llvm::StringMap<bool> cached;
  PassManager pm(&context);
  OpPassManager &functions = pm.nest<func::FuncOp>();
  functions.addPass(std::make_unique<ComputeAnalysisPass>());
  functions.addPass(createOverlapCopiesPass());
  functions.addPass(std::make_unique<RecordCachedPass>(cached));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_TRUE(cached.lookup("without_copies"));
  EXPECT_FALSE(cached.lookup("with_copies"));
}

TEST_F(OverlapCopiesTest, TakesItsOptionsFromCpp) {
  ASSERT_TRUE(module);
  PassManager pm(&context);
  OverlapCopiesPassOptions options;
  options.sideStreams = 2;
  options.hoist = false;
  options.costModel = false;
  pm.nest<func::FuncOp>().addPass(createOverlapCopiesPass(options));
  ASSERT_TRUE(succeeded(pm.run(*module)));

  SmallVector<CopyH2DAsyncOp> copies(
      lookup("with_copies").getOps<CopyH2DAsyncOp>());
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].getStream(), 1u);
  EXPECT_EQ(copies[1].getStream(), 2u);
  // In place: after both allocs, in program order, not moved up.
  EXPECT_EQ(copies[0]->getPrevNode(), copies[1].getTarget().getDefiningOp());
  EXPECT_EQ(copies[1]->getPrevNode(), copies[0].getOperation());
  EXPECT_TRUE(lookup("with_copies").getOps<CopyH2DOp>().empty());
}

TEST_F(OverlapCopiesTest, RejectsZeroSideStreams) {
  ASSERT_TRUE(module);
  PassManager pm(&context);
  OverlapCopiesPassOptions options;
  options.sideStreams = 0;
  pm.nest<func::FuncOp>().addPass(createOverlapCopiesPass(options));
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(pm.run(*module)));
  EXPECT_NE(message.find("side-streams=0"), std::string::npos) << message;
}

} // namespace

TEST_F(OverlapCopiesTest, PlansWithoutChangingTheIRThenApplies) {
  ASSERT_TRUE(module);
  func::FuncOp function = summarizeAndLookup("with_copies");
  ASSERT_TRUE(function);
  SlotAccessAnalysis slots(function);
  std::string before;
  llvm::raw_string_ostream beforeStream(before);
  function.print(beforeStream);

  overlap::CopyPlan plan =
      overlap::planCopyOverlap(function, slots, {/*hoist=*/true, 2});
  std::string planned;
  llvm::raw_string_ostream plannedStream(planned);
  function.print(plannedStream);
  EXPECT_EQ(before, planned);

  // Both copies go right after their destination's alloc, on the two side
  // streams; the dispatch waits for the first, the return joins the second.
  ASSERT_EQ(plan.copies.size(), 2u);
  EXPECT_EQ(plan.copies[0].stream, 1);
  EXPECT_EQ(plan.copies[1].stream, 2);
  EXPECT_TRUE(plan.copies[0].dependencies.empty());
  EXPECT_TRUE(isa<AllocOp>(plan.copies[0].at.anchor));
  EXPECT_TRUE(isa<DispatchOp>(plan.copies[0].firstWaiter.op));
  EXPECT_EQ(plan.copies[0].waitReason.str(), "read-after-write");
  EXPECT_EQ(plan.copies[0].kernelsOverlapped, 0u);
  EXPECT_EQ(plan.copies[1].waitReason.str(), "end of block");
  std::string line;
  llvm::raw_string_ostream lineStream(line);
  plan.printCopy(lineStream, 0);
  EXPECT_EQ(line, "copy #0 into slot 1: after 'vyre.alloc' on stream 1, "
                  "after []; first wait at 'vyre.dispatch' "
                  "(read-after-write)");

  overlap::applyCopyPlan(plan);
  EXPECT_TRUE(function.getOps<CopyH2DOp>().empty());
  SmallVector<CopyH2DAsyncOp> copies(function.getOps<CopyH2DAsyncOp>());
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].getStream(), 1u);
  EXPECT_EQ(copies[1].getStream(), 2u);
  EXPECT_EQ(std::distance(function.getOps<WaitOp>().begin(),
                          function.getOps<WaitOp>().end()),
            1);
}

TEST_F(OverlapCopiesTest, TheCostModelWeighsEachPlannedCopy) {
  ASSERT_TRUE(module);
  func::FuncOp function = summarizeAndLookup("with_copies");
  ASSERT_TRUE(function);
  SlotAccessAnalysis slots(function);
  overlap::CopyPlan plan =
      overlap::planCopyOverlap(function, slots, {/*hoist=*/true, 1});
  ASSERT_EQ(plan.copies.size(), 2u);

  // Copy #0 (64 bytes) is read by the next kernel: no window. Moving it
  // saves its round trip in place (1.7 + 0.85 us), and lets copy #1 start
  // while the host would wait for it (copy #1's 2.0 us, at most that wait).
  // It costs the dispatch's join on its token (two dependencies, 3.4 us),
  // and the host's wait at the return for side stream 1, which it opens
  // (1.7 us).
  overlap::CopyCostOptions options;
  overlap::CopyCostVerdict first =
      overlap::evaluateCopyCost(plan, plan.copies[0], options);
  ASSERT_TRUE(first.bytes.has_value());
  EXPECT_EQ(*first.bytes, 64u);
  EXPECT_NEAR(first.copyUs, 2.0 + 64 / 55e3, 1e-9);
  EXPECT_EQ(first.windowUs, 0.0);
  EXPECT_NEAR(first.releasedUs, 2.0 + 64 / 55e3, 1e-9);
  EXPECT_NEAR(first.savingUs, 2.55 + first.releasedUs, 1e-9);
  EXPECT_NEAR(first.overheadUs, 3.4 + 1.7, 1e-9);
  EXPECT_FALSE(first.worthMoving());
  EXPECT_EQ(first.describe(), "copy of 64 B: saving 4.6 us < overhead 5.1 us");

  // Copy #1 runs beside the 10 us kernel (the default kernel time), which
  // hides the host's synchronization on it; it shares side stream 1 with
  // copy #0 (one side stream here), so it opens no stream.
  overlap::CopyCostVerdict second =
      overlap::evaluateCopyCost(plan, plan.copies[1], options);
  EXPECT_EQ(plan.copies[1].stream, plan.copies[0].stream);
  EXPECT_EQ(second.windowUs, 10.0);
  EXPECT_EQ(second.overheadUs, 0.0);
  EXPECT_TRUE(second.worthMoving());

  // Free joins make the first worth moving too.
  options.eventUs = 0;
  EXPECT_TRUE(
      overlap::evaluateCopyCost(plan, plan.copies[0], options).worthMoving());
}

TEST_F(OverlapCopiesTest, TheCostModelKnowsTheCopiesLeftInPlaceAfterACopy) {
  ASSERT_TRUE(module);
  func::FuncOp function = summarizeAndLookup("with_copies");
  ASSERT_TRUE(function);
  SlotAccessAnalysis slots(function);
  overlap::CopyPlan plan =
      overlap::planCopyOverlap(function, slots, {/*hoist=*/true, 1});
  ASSERT_EQ(plan.copies.size(), 2u);

  // With copy #1 known to stay in place (an earlier sweep left it there),
  // copy #0 in place holds back no moved copy: moving it releases nothing,
  // and saves only its round trip in place.
  overlap::CopyCostOptions options;
  llvm::SmallPtrSet<Operation *, 4> leftInPlace;
  leftInPlace.insert(plan.copies[1].original);
  overlap::CopyCostModel model(plan, options, &leftInPlace);
  overlap::CopyCostVerdict first = model.evaluate(plan.copies[0]);
  EXPECT_EQ(first.releasedUs, 0.0);
  EXPECT_NEAR(first.savingUs, 2.55, 1e-9);
  EXPECT_FALSE(first.worthMoving());
}

TEST_F(OverlapCopiesTest, ACopyLeftInPlaceHoldsTheCopiesThatDependedOnIt) {
  ASSERT_TRUE(module);
  func::FuncOp function = summarizeAndLookup("copy_after_copy");
  ASSERT_TRUE(function);
  SlotAccessAnalysis slots(function);
  overlap::CopyPlanner planner(function, slots, {/*hoist=*/true, 1});
  const overlap::CopyPlan &plan = planner.getPlan();
  ASSERT_EQ(plan.copies.size(), 2u);
  const overlap::PlannedCopy &first = plan.copies[0];
  const overlap::PlannedCopy &second = plan.copies[1];
  // Both copies go above the first kernel; the second, into the same
  // buffer, follows the first on its stream and depends on it.
  EXPECT_TRUE(isa<AllocOp>(first.at.anchor));
  EXPECT_EQ(second.at.anchor, first.at.anchor);
  ASSERT_EQ(second.dependencies.size(), 1u);
  EXPECT_EQ(second.dependencies[0].kind,
            overlap::PlannedDependency::Kind::Copy);

  // Left in place, the first copy holds the second below it: the second
  // starts once the host has passed the first (which it waits for), so it
  // needs no token of it.
  ASSERT_TRUE(succeeded(planner.leaveCopiesInPlace({0})));
  EXPECT_TRUE(first.leftInPlace);
  EXPECT_FALSE(second.leftInPlace);
  EXPECT_EQ(second.at.anchor, first.original);
  EXPECT_TRUE(second.dependencies.empty());
  EXPECT_EQ(second.hoistLimit.op, first.original);
  EXPECT_EQ(second.hoistReason.str(), "write-after-write");
  // Its waits are planned again: the second kernel waits for it.
  EXPECT_TRUE(isa_and_nonnull<DispatchOp>(second.firstWaiter.op));

  // Applied: the first copy stays as written, the second is asynchronous
  // after it.
  overlap::CopyPlan revised = planner.takePlan();
  overlap::applyCopyPlan(revised);
  SmallVector<Operation *> copies;
  function.walk([&](Operation *op) {
    if (isa<CopyH2DOp, CopyH2DAsyncOp>(op))
      copies.push_back(op);
  });
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_TRUE(isa<CopyH2DOp>(copies[0]));
  EXPECT_TRUE(isa<CopyH2DAsyncOp>(copies[1]));
  EXPECT_EQ(copies[0]->getNextNode(), copies[1]);
}

TEST_F(OverlapCopiesTest, AFunctionIsPlannedOnceAndRevisedOnceWhateverTheSweepsDecline) {
  ASSERT_TRUE(module);
  func::FuncOp function = summarizeAndLookup("with_copies");
  ASSERT_TRUE(function);
  SlotAccessAnalysis slots(function);
  overlap::PlanOptions planOptions{/*hoist=*/true, 1};
  overlap::CopyCostOptions options;
  overlap::PlanWork work;
  overlap::CopyPlan plan = overlap::planCopyOverlapWithCosts(
      function, slots, planOptions, &options, &work);

  // The first sweep leaves copy #0 in place (read at once, see above); the
  // second weighs copy #1 again and keeps it moved (it runs beside the
  // kernel). Then the plan is revised once, with copy #0 in place.
  EXPECT_EQ(work.sweeps, 2u);
  EXPECT_EQ(work.copiesWeighed, 3u);
  EXPECT_EQ(work.plans, 1u);
  EXPECT_EQ(work.revisions, 1u);
  EXPECT_EQ(planOptions.leaveInPlace.size(), 1u);
  ASSERT_EQ(plan.copies.size(), 2u);
  EXPECT_TRUE(plan.copies[0].leftInPlace);
  EXPECT_TRUE(planOptions.leaveInPlace.contains(plan.copies[0].original));
  EXPECT_FALSE(plan.copies[1].leftInPlace);

  // What the debug output prints of the work and the plan.
  std::string workText;
  llvm::raw_string_ostream workStream(workText);
  work.print(workStream);
  EXPECT_TRUE(StringRef(workText).starts_with(
      "1 plan(s) (1 revised), 2 cost-model sweep(s) weighing 3 copies, "))
      << workText;
  std::string planText;
  llvm::raw_string_ostream planStream(planText);
  plan.print(planStream);
  SmallVector<StringRef> lines;
  StringRef(planText).trim().split(lines, '\n');
  ASSERT_EQ(lines.size(), 2u) << planText;
  EXPECT_EQ(lines[0].str(), "copy #0 into slot " +
                                std::to_string(plan.copies[0].slot) +
                                ": left in place by the cost model");
  EXPECT_TRUE(lines[1].starts_with("copy #1 into slot ")) << lines[1].str();

  // Without a cost model: one plan, no sweep.
  overlap::PlanOptions allMoved{/*hoist=*/true, 1};
  overlap::PlanWork moved;
  EXPECT_EQ(overlap::planCopyOverlapWithCosts(function, slots, allMoved,
                                              nullptr, &moved)
                .copies.size(),
            2u);
  EXPECT_EQ(moved.plans, 1u);
  EXPECT_EQ(moved.revisions, 0u);
  EXPECT_EQ(moved.sweeps, 0u);
}
