//===- TestPlanWork.cpp - Count the work of planning copies -----*- C++ -*-===//
//
// --test-vyre-plan-work: plans the copies of each function as
// --overlap-copies does (cost model included) without changing it, and says
// in a remark how much work that took, in elementary steps:
// `8000 ops: planned 1 times, revised 1 times, in 51234 steps; weighed 2000
// copies in 40211 steps over 2 sweeps`. Lit tests check how the counts grow with the program, so that a
// complexity regression fails a test without timing anything.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Transforms/OverlapCopies/CopyCostModel.h"
#include "vyre/Transforms/OverlapCopies/CopyPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

struct TestPlanWorkPass
    : public PassWrapper<TestPlanWorkPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPlanWorkPass)

  TestPlanWorkPass() = default;
  TestPlanWorkPass(const TestPlanWorkPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-vyre-plan-work"; }
  StringRef getDescription() const final {
    return "Plan the copies of each function as --overlap-copies does, and "
           "say in a remark how many steps planning and the cost model took";
  }

  Option<bool> costModel{*this, "cost-model",
                         llvm::cl::desc("Weigh the copies (as "
                                        "--overlap-copies does by default)"),
                         llvm::cl::init(true)};

  Option<unsigned> sideStreams{
      *this, "side-streams",
      llvm::cl::desc("Side streams into the device (as --overlap-copies')"),
      llvm::cl::init(1)};

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    SlotAccessAnalysis &slots = getAnalysis<SlotAccessAnalysis>();
    uint64_t ops = 0;
    function.walk([&](Operation *) { ++ops; });
    // The defaults of --overlap-copies.
    overlap::PlanOptions options;
    options.asyncD2H = true;
    options.sideStreams = sideStreams;
    overlap::CopyCostOptions costs;
    overlap::PlanWork work;
    (void)overlap::planCopyOverlapWithCosts(
        function, slots, options, costModel ? &costs : nullptr, &work);
    function.emitRemark() << ops << " ops: planned " << work.plans
                          << " times, revised " << work.revisions
                          << " times, in " << work.planSteps
                          << " steps; weighed " << work.copiesWeighed
                          << " copies in " << work.costModelSteps
                          << " steps over " << work.sweeps << " sweeps";
    markAllAnalysesPreserved();
  }
};

} // namespace

namespace mlir::vyre::test {
void registerTestPlanWorkPass() { PassRegistration<TestPlanWorkPass>(); }
} // namespace mlir::vyre::test
