//===- CopyCostModel.h - Whether moving a copy pays for itself --*- C++ -*-===//
//
// Moving a copy onto a side stream costs host time the copy in place does
// not: a join for the copy's own dependencies and one where the main stream
// waits for it (an event record and a stream wait per dependency, a stream
// from the pool), or a host synchronization where the host waits for it.
// The host spends it while the device runs the kernels beside the copy, so
// only what those do not cover delays the program. Moving saves the overlap
// (the copy's time, at most the kernel time it runs beside) and the copy in
// place's round trip (the host waits for it, then the device waits for the
// host's next launch). The cost model compares the two, in the terms of
// --vyre-simulate's runtime model; --overlap-copies leaves the copies that
// do not pay on the main stream (docs/OverlapCopies.md).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_COPYCOSTMODEL_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_COPYCOSTMODEL_H

#include "vyre/Transforms/OverlapCopies/CopyPlan.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mlir::vyre::overlap {

/// The machine the model assumes; the defaults of --overlap-copies are those
/// of --vyre-simulate, calibrated on an H200 (docs/benchmarks.md).
struct CopyCostOptions {
  double h2dGBps = 55.0;
  double d2hGBps = 55.0;
  double copyLatencyUs = 2.0;
  double defaultKernelUs = 10.0;
  /// Host time of a launch or memcpy, of each dependency of a join, of each
  /// host synchronization, and of the stream a join creates (0 with the
  /// runtime's pools).
  double launchUs = 0.85;
  double eventUs = 1.7;
  double hostSyncUs = 1.7;
  double streamCreateUs = 0.0;
  /// Whether a copy left in place makes the host wait for it (false where
  /// --overlap-copies makes such copies asynchronous on the main stream):
  /// then moving the copy also saves that wait, and lets the copies after
  /// it start while the host would have waited.
  bool inPlaceBlocksHost = true;
};

/// What the model estimates for one planned copy.
struct CopyCostVerdict {
  /// None: the copy's size is not static; it is assumed to pay.
  std::optional<uint64_t> bytes;
  double copyUs = 0;
  /// Kernel time between the copy's new place and the first op that waits
  /// for it; infinite where a loop of unknown trip count runs kernels there.
  double windowUs = 0;
  /// The time the copies moved after it could not start while the copy in
  /// place held the host (at most what the host would wait out).
  double releasedUs = 0;
  /// The overlap (at most the copy's time and the window), plus the round
  /// trip of the copy in place, plus `releasedUs`.
  double savingUs = 0;
  /// The joins moving adds, less the window's kernel time that hides them.
  double overheadUs = 0;

  bool worthMoving() const { return !bytes || savingUs >= overheadUs; }
  /// "copy of 4 KiB: saving 2.1 us < overhead 3.4 us".
  std::string describe() const;
};

/// The cost model over one plan, which decides the copies in one sweep in
/// planning order (program order, block by block): each copy is weighed with
/// the copies decided before it as decided (a copy left in place makes the
/// host wait there, and later copies in its direction stay behind it) and
/// the copies after it moved, but for those known to stay in place. Building the model costs O(n log n) in the ops
/// of the blocks that hold copies; weighing a copy costs O(log n), whatever
/// the shape of the program (docs/OverlapCopies.md).
class CopyCostModel {
public:
  /// The copies of `plan` in `leftInPlace` are known to stay in place: they
  /// count as ops of the function that make the host wait, also before the
  /// sweep reaches them (mark each with `markInPlace` as it does).
  CopyCostModel(const CopyPlan &plan, const CopyCostOptions &options,
                const llvm::SmallPtrSetImpl<Operation *> *leftInPlace =
                    nullptr);
  ~CopyCostModel();
  CopyCostModel(const CopyCostModel &) = delete;
  CopyCostModel &operator=(const CopyCostModel &) = delete;

  /// Estimates what moving `copy` saves and costs, given the decisions so
  /// far.
  CopyCostVerdict evaluate(const PlannedCopy &copy);
  /// Weighs `copy` and records the decision: moved if it pays, else left in
  /// place. Decide the copies in planning order.
  CopyCostVerdict decide(const PlannedCopy &copy);
  /// Records that `copy` is moved, without weighing it.
  void markMoved(const PlannedCopy &copy);
  /// Records that `copy` stays in place, without weighing it.
  void markInPlace(const PlannedCopy &copy);

  /// The model's work so far, in elementary steps (ops summed, search and
  /// tree steps), for tests of how it grows with the program.
  uint64_t getWork() const;

private:
  struct State;
  std::unique_ptr<State> state;
};

/// How much work planning a function took, in elementary steps: how it
/// grows with the program is tested, never its time.
struct PlanWork {
  /// Plans made from the start, and plans revised (copies the cost model
  /// left in place patched into the placement, and the waits planned again).
  unsigned plans = 0;
  unsigned revisions = 0;
  uint64_t planSteps = 0;
  /// The cost model's sweeps over the plan (at most `kMaxCostModelSweeps`
  /// per function), and its work over all of them.
  unsigned sweeps = 0;
  unsigned copiesWeighed = 0;
  uint64_t costModelSteps = 0;

  /// One line: `2 plan(s) (1 revised), 2 sweep(s) weighing 3 copies, ...`.
  void print(llvm::raw_ostream &os) const;
};

/// How many times at most the cost model weighs the copies of a function's
/// plan: each sweep weighs the copies still moved, knowing every copy the
/// sweeps before it left in place; it stops early when a sweep leaves none.
inline constexpr unsigned kMaxCostModelSweeps = 4;

/// Plans the copies of `function` as --overlap-copies does: then, with
/// `costs`, weighs the copies of that plan in sweeps, leaves in place those
/// whose move does not pay (adding them to `options.leaveInPlace`, with a
/// remark each) and, if it left any, revises the plan once
/// (`CopyPlanner::leaveCopiesInPlace`): the copies are placed once, their
/// waits planned at most twice. Where the plan cannot be revised, or with
/// several side streams into the device (`options.sideStreams` above 1,
/// whose copies planning again deals out anew), it is made again, once. Adds the work it took to `work`, if given.
CopyPlan planCopyOverlapWithCosts(FunctionOpInterface function,
                                  const SlotAccessAnalysis &slots,
                                  PlanOptions &options,
                                  const CopyCostOptions *costs,
                                  PlanWork *work = nullptr);

/// Estimates what moving planned copy `copy` of `plan` saves and costs, with
/// every other copy moved.
CopyCostVerdict evaluateCopyCost(const CopyPlan &plan, const PlannedCopy &copy,
                                 const CopyCostOptions &options);

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_COPYCOSTMODEL_H
