//===- ScheduleCopies.h - What --overlap-copies does, as a call -*- C++ -*-===//
//
// The steps of --overlap-copies on one function, for the pass and for
// passes that weigh a change by the schedule --overlap-copies would make of
// it (--vyre-pipeline-loops choosing a loop's depth): copies put in the
// order they are needed, kernels by their critical path, the copy plan with
// its cost model applied, and the copies left in place made asynchronous.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_SCHEDULECOPIES_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_SCHEDULECOPIES_H

#include "vyre/Transforms/OverlapCopies/CopyCostModel.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::vyre {
class SlotAccessAnalysis;
} // namespace mlir::vyre

namespace mlir::vyre::overlap {

/// The options of --overlap-copies, with its defaults.
struct ScheduleOptions {
  bool hoist = true;
  unsigned sideStreams = 1;
  bool asyncD2H = true;
  unsigned d2hStreams = 1;
  bool asyncInPlace = true;
  bool orderCopies = true;
  bool orderKernels = true;
  /// The figures of the cost model and of the kernels' critical path.
  CopyCostOptions costs;
  /// Whether a copy whose move does not pay stays in place (false: every
  /// copy that may move moves).
  bool costModel = true;
  /// Whether the steps explain themselves in remarks (the pass), or stay
  /// silent (a trial schedule that is thrown away).
  bool emitRemarks = true;
};

/// The options of a pass that has --overlap-copies' options of the same
/// names (--overlap-copies, and --vyre-pipeline-loops for its depth
/// trials): all but `costModel` and `emitRemarks`.
template <typename PassT> ScheduleOptions scheduleOptionsOf(const PassT &pass) {
  ScheduleOptions options;
  options.hoist = pass.hoist;
  options.sideStreams = pass.sideStreams;
  options.asyncD2H = pass.asyncD2H;
  options.d2hStreams = pass.d2hStreams;
  options.asyncInPlace = pass.asyncInPlace;
  options.orderCopies = pass.orderCopies;
  options.orderKernels = pass.orderKernels;
  options.costs = CopyCostOptions{
      pass.h2dGBps,  pass.d2hGBps, pass.copyLatencyUs, pass.defaultKernelUs,
      pass.launchUs, pass.eventUs, pass.hostSyncUs,    pass.streamCreateUs};
  return options;
}

/// Schedules the copies of `function`, a sequential vyre function with
/// copies whose device code was checked, as --overlap-copies does. `slots`
/// must describe `function`; it stays valid (the steps move and replace
/// copies, and keep the buffers and kernels).
void scheduleCopies(FunctionOpInterface function, SlotAccessAnalysis &slots,
                    const ScheduleOptions &options);

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_SCHEDULECOPIES_H
