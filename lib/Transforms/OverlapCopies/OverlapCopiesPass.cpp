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
#include "vyre/Transforms/OverlapCopies/ScheduleCopies.h"

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
  // (The options are the base's protected members.)
  friend overlap::ScheduleOptions(
      overlap::scheduleOptionsOf<OverlapCopiesPass>)(const OverlapCopiesPass &);

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
    overlap::ScheduleOptions options = overlap::scheduleOptionsOf(*this);
    options.costModel = costModel;
    overlap::scheduleCopies(function, slots, options);
  }
};

} // namespace
