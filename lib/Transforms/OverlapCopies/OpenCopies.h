//===- OpenCopies.h - The copies of a block still in flight ------*- C++ -*-===//
//
// While the ordering step walks a block, the planned copies that may still be
// in flight, indexed so that each op finds the copies it conflicts with.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_OPENCOPIES_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_OPENCOPIES_H

#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Transforms/OverlapCopies/CopyPlan.h"

#include "MainStreamInFlight.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::vyre::overlap {

/// What must happen before one op: copies to wait for on the device, and
/// copies to synchronize with on the host, each with the reason.
struct Orders {
  SetVector<PlannedCopy *> wait;
  SetVector<PlannedCopy *> sync;
  DenseMap<PlannedCopy *, OrderReason> reasons;

  void add(PlannedCopy *copy, bool onHost, OrderReason reason) {
    (onHost ? sync : wait).insert(copy);
    reasons.try_emplace(copy, reason);
  }
};

/// The copies of a block that may still be in flight.
class OpenCopies {
public:
  explicit OpenCopies(HostBufferAliasing &hostAliasing)
      : hostAliasing(hostAliasing) {}

  /// Starts tracking `copy`, which the plan has just put in flight.
  void track(PlannedCopy *copy);
  /// The copies the host has not synchronized with yet.
  ArrayRef<PlannedCopy *> notDoneForHost();
  /// Adds to `orders` the copies that an op accessing the slots in `summary`
  /// on the device (or the host) must wait for, as the verdict API decides.
  void collectSlotConflicts(const AccessSummary &summary, bool onHost,
                            Orders &orders);
  /// Adds to `orders` the copies still reading a host buffer that `side`
  /// writes (anything, if `everything`). On the device, the main stream must
  /// wait for copies it has not waited for; on the host, the host must
  /// synchronize with all.
  void collectHostConflicts(const SideAccess &side, bool onHost,
                            bool everything, Orders &orders);
  /// Adds to `orders` the copies into the host still writing a host buffer
  /// that `side` reads or writes (anything, if `everything`).
  void collectHostWriterConflicts(const SideAccess &side, bool onHost,
                                  bool everything, Orders &orders);

  /// Copies the main stream has not waited for, by slot written, and by slot
  /// read (a source that is a slot).
  DenseMap<unsigned, SmallVector<PlannedCopy *>> bySlot;
  DenseMap<unsigned, SmallVector<PlannedCopy *>> bySourceSlot;
  /// Copies the host has not synchronized with, by host root read; and those
  /// reading roots that are not allocations.
  DenseMap<Value, SmallVector<PlannedCopy *>> byHostRoot;
  SmallVector<PlannedCopy *> openHostRoots;
  /// Copies into the host the host has not synchronized with; and the same
  /// by the root they write: an allocation, an argument, or another root.
  SmallVector<PlannedCopy *> hostWriters;
  DenseMap<Value, SmallVector<PlannedCopy *>> writersByAllocation;
  llvm::MapVector<Value, SmallVector<PlannedCopy *>> writersByArgument;
  SmallVector<PlannedCopy *> writersOfUnknownRoots;
  /// Every copy of the block, in order.
  SmallVector<PlannedCopy *> all;
  /// Slots that main-stream work since the host last waited for the main
  /// stream may still be touching (the blocks around included).
  MainStreamInFlight mainInFlight;
  /// What the device-only loops since then, whose copies the main stream
  /// has joined and the host has not, may touch (their device side, host
  /// buffers included): a host op that may touch any of it first waits for
  /// the main stream.
  SideAccess loopsInFlight;
  /// Kernels so far in the block, and before and after each op of it
  /// looked at.
  unsigned kernels = 0;
  DenseMap<Operation *, unsigned> kernelsBeforeOp;
  DenseMap<Operation *, unsigned> kernelsAfterOp;
  /// Kernels of the block the host has waited for (by waiting for the main
  /// stream at or after them); whether kernels issued before the block may
  /// still be running.
  unsigned kernelsDone = 0;
  bool earlierKernelsInFlight = false;
  /// The block, and where it is nested: the open copies of the block around
  /// it (as they are before its op), and whether its op repeats it with
  /// kernels in it (a loop: an earlier iteration's kernels may be running).
  Block *block = nullptr;
  const OpenCopies *parent = nullptr;
  bool repeatsKernels = false;
  /// Copies looked at so far, for tests of how the work grows.
  uint64_t steps = 0;

  HostBufferAliasing &getHostAliasing() const { return hostAliasing; }

private:
  HostBufferAliasing &hostAliasing;
};

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_OPENCOPIES_H
