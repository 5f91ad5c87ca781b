//===- OverlapCopiesPass.cpp - Host-to-device copies on side streams -*- C++ -*-===//
//
// --overlap-copies: every vyre.copy_h2d becomes a vyre.copy_h2d_async on a
// side stream, hoisted as early as is legal, and ordered against the rest of
// the function with tokens only where the verdict is Serialize. The pass
// plans (CopyPlan.h), explains the plan in remarks, then applies it.
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/Passes.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Transforms/OverlapCopies/CopyPlan.h"
#include "vyre/Transforms/OverlapCopies/CopyRemarks.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_OVERLAPCOPIESPASS
#include "vyre/Transforms/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

struct OverlapCopiesPass
    : public vyre::impl::OverlapCopiesPassBase<OverlapCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (sideStreams == 0) {
      function.emitOpError(
          "cannot run --overlap-copies with side-streams=0: copies need at "
          "least one side stream");
      return signalPassFailure();
    }
    if (asyncD2H && d2hStreams == 0) {
      function.emitOpError(
          "cannot run --overlap-copies with async-d2h=true and d2h-streams=0: "
          "asynchronous device-to-host copies need at least one stream");
      return signalPassFailure();
    }
    bool hasCopies = function
                         .walk([&](Operation *op) {
                           return isa<CopyH2DOp>(op) ||
                                          (asyncD2H && isa<CopyD2HOp>(op))
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         })
                         .wasInterrupted();
    if (!hasCopies) {
      warnIfNotImported(function, getArgument());
      markAllAnalysesPreserved();
      return;
    }
    SlotAccessAnalysis &slots = getAnalysis<SlotAccessAnalysis>();
    overlap::emitKernelSummaryRemarks(function, slots);
    overlap::emitUnknownCallRemarks(function);
    overlap::CopyPlan plan =
        overlap::planCopyOverlap(function, slots,
                                 {hoist, sideStreams, asyncD2H, d2hStreams});
    overlap::emitPlanRemarks(plan);
    overlap::applyCopyPlan(plan);
  }
};

} // namespace
