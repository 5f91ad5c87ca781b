//===- ScheduleCopies.cpp - What --overlap-copies does, as a call -*- C++
//-*-===//
//
// The steps of --overlap-copies on one function (ScheduleCopies.h).
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/OverlapCopies/ScheduleCopies.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/Transforms/AsyncInPlace/AsyncInPlaceCopies.h"
#include "vyre/Transforms/OverlapCopies/CopyPlan.h"
#include "vyre/Transforms/OverlapCopies/CopyRemarks.h"
#include "vyre/Transforms/OverlapCopies/OrderByCriticalPath.h"
#include "vyre/Transforms/OverlapCopies/OrderCopiesByNeed.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "overlap-copies"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

void overlap::scheduleCopies(FunctionOpInterface function,
                             SlotAccessAnalysis &slots,
                             const ScheduleOptions &options) {
  bool remarks = options.emitRemarks;
  if (remarks)
    emitKernelSummaryRemarks(function, slots);
  // Copies by need first: the order the critical path's schedule must beat
  // is that of the copies as they will be issued.
  if (options.orderCopies)
    if (unsigned moved = orderCopiesByNeed(function, slots); moved && remarks)
      emitCopiesOrderedRemark(function, moved);
  CopyCostOptions costs = options.costs;
  if (options.orderKernels)
    for (const ReorderedRun &run :
         orderByCriticalPath(function, slots,
                             {costs.h2dGBps, costs.d2hGBps, costs.copyLatencyUs,
                              costs.defaultKernelUs}))
      if (remarks)
        emitWorkReorderedRemark(function, run);
  if (remarks)
    emitUnknownCallRemarks(function);
  // Copies into the host written asynchronously by hand are not ordered
  // against those this pass would make asynchronous: it keeps those
  // synchronous (where each is ordered by the host).
  bool handWritten = function
                         .walk([](Operation *op) {
                           return isa<CopyH2DAsyncOp, CopyD2HAsyncOp>(op)
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         })
                         .wasInterrupted();
  if (handWritten && options.asyncD2H && remarks)
    emitHandWrittenAsyncRemark(function);
  PlanOptions planOptions;
  planOptions.hoist = options.hoist;
  planOptions.sideStreams = options.sideStreams;
  planOptions.asyncD2H = options.asyncD2H && !handWritten;
  planOptions.d2hStreams = options.d2hStreams;
  planOptions.inPlaceCopiesBlockHost = !options.asyncInPlace;
  planOptions.emitRemarks = remarks;
  costs.inPlaceBlocksHost = !options.asyncInPlace;
  PlanWork work;
  CopyPlan plan =
      planCopyOverlapWithCosts(function, slots, planOptions,
                               options.costModel ? &costs : nullptr, &work);
  LLVM_DEBUG({
    llvm::dbgs() << "[" DEBUG_TYPE "] @" << function.getName() << ": ";
    work.print(llvm::dbgs());
    llvm::dbgs() << "\n";
    plan.print(llvm::dbgs());
  });
  if (remarks)
    emitPlanRemarks(plan);
  applyCopyPlan(plan);
  // The copies left on the main stream no longer make the host wait.
  if (options.asyncInPlace) {
    AsyncInPlaceOptions inPlace;
    inPlace.emitRemarks = remarks;
    makeInPlaceCopiesAsync(function, slots, inPlace);
  }
}
