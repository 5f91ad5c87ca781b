//===- OverlapCopiesPass.cpp - Host-to-device copies on side streams -*- C++ -*-===//
//
// --overlap-copies: every vyre.copy_h2d becomes a vyre.copy_h2d_async on a
// side stream, hoisted as early as is legal, and ordered against the rest of
// the function with tokens only where the verdict is Serialize. The pass
// plans (CopyPlan.h), explains the plan in remarks, then applies it. The
// copies it leaves on the main stream then stop making the host wait
// (AsyncInPlaceCopies.h).
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/Passes.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Support/PassDiagnostics.h"
#include "vyre/Transforms/AsyncInPlace/AsyncInPlaceCopies.h"
#include "vyre/Transforms/OverlapCopies/CopyCostModel.h"
#include "vyre/Transforms/OverlapCopies/CopyPlan.h"
#include "vyre/Transforms/OverlapCopies/CopyRemarks.h"
#include "vyre/Transforms/OverlapCopies/OrderByCriticalPath.h"
#include "vyre/Transforms/OverlapCopies/OrderCopiesByNeed.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "overlap-copies"

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
    Location loc = function.getLoc();
    if ((costModel &&
         failed(checkRuntimeCostOptions(
             loc, getArgument(),
             {h2dGBps, d2hGBps, copyLatencyUs, defaultKernelUs, launchUs,
              eventUs, hostSyncUs, streamCreateUs}))) ||
        failed(checkCountOption(loc, getArgument(), "side-streams",
                                sideStreams, 1,
                                "copies need at least one side stream")) ||
        (asyncD2H &&
         failed(checkCountOption(
             loc, getArgument(), "d2h-streams", d2hStreams, 1,
             "asynchronous device-to-host copies (async-d2h=true) need at "
             "least one stream"))))
      return signalPassFailure();
    bool hasCopies = function
                         .walk([&](Operation *op) {
                           return isa<CopyH2DOp>(op) ||
                                          ((asyncD2H || asyncInPlace) &&
                                           isa<CopyD2HOp>(op))
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         })
                         .wasInterrupted();
    if (!hasCopies) {
      warnIfNotImported(function, getArgument());
      markAllAnalysesPreserved();
      return;
    }
    if (failed(diagnoseVyreOpsInDeviceCode(function)) ||
        failed(diagnoseHostAccessToDeviceMemory(function)))
      return signalPassFailure();
    SlotAccessAnalysis &slots = getAnalysis<SlotAccessAnalysis>();
    overlap::emitKernelSummaryRemarks(function, slots);
    // Copies by need first: the order the critical path's schedule must
    // beat is that of the copies as they will be issued.
    if (orderCopies)
      if (unsigned moved = overlap::orderCopiesByNeed(function, slots))
        overlap::emitCopiesOrderedRemark(function, moved);
    if (orderKernels)
      for (const overlap::ReorderedRun &run : overlap::orderByCriticalPath(
               function, slots,
               {h2dGBps, d2hGBps, copyLatencyUs, defaultKernelUs}))
        overlap::emitWorkReorderedRemark(function, run);
    overlap::emitUnknownCallRemarks(function);
    // Copies into the host written asynchronously by hand are not ordered
    // against those this pass would make asynchronous: it keeps those
    // synchronous (where each is ordered by the host).
    bool handWritten =
        function
            .walk([](Operation *op) {
              return isa<CopyH2DAsyncOp, CopyD2HAsyncOp>(op)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted();
    if (handWritten && asyncD2H)
      overlap::emitHandWrittenAsyncRemark(function);
    overlap::PlanOptions options{hoist,
                                 sideStreams,
                                 asyncD2H && !handWritten,
                                 d2hStreams,
                                 {},
                                 /*inPlaceCopiesBlockHost=*/!asyncInPlace};
    overlap::CopyCostOptions costs{h2dGBps,         d2hGBps,  copyLatencyUs,
                                   defaultKernelUs, launchUs, eventUs,
                                   hostSyncUs,      streamCreateUs,
                                   /*inPlaceBlocksHost=*/!asyncInPlace};
    overlap::PlanWork work;
    overlap::CopyPlan plan = overlap::planCopyOverlapWithCosts(
        function, slots, options, costModel ? &costs : nullptr, &work);
    LLVM_DEBUG({
      llvm::dbgs() << "[" DEBUG_TYPE "] @" << function.getName() << ": ";
      work.print(llvm::dbgs());
      llvm::dbgs() << "\n";
      plan.print(llvm::dbgs());
    });
    overlap::emitPlanRemarks(plan);
    overlap::applyCopyPlan(plan);
    // The copies left on the main stream no longer make the host wait.
    if (asyncInPlace)
      makeInPlaceCopiesAsync(function, slots);
  }
};

} // namespace
