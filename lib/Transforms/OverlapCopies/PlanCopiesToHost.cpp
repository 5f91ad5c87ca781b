//===- PlanCopiesToHost.cpp - Where each async D2H copy goes -----*- C++ -*-===//
//
// With async-d2h, placement for copies into the host: each stays where it is,
// on the stream after the side streams, and later copies learn what it reads
// and writes.
//
//===----------------------------------------------------------------------===//

#include "PlacementPlanner.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

/// A copy into the host stays where it is, on the stream after the side
/// streams. It waits for what may still be writing its source, or touching
/// its destination, on the device: a copy still writing the source, the
/// copies still reading the destination, and, through a record, the main
/// stream's progress past the last op with device work that wrote the
/// source or touched the destination (the whole stream when an op of
/// unknown effect did) -- not past unrelated kernels.
SmallVector<PlannedDependency> PlacementPlanner::findCopyToHostDependencies(
    CopyD2HOp copy, ArrayRef<unsigned> sourceSlots, Value hostRoot,
    const Stamp &previous, BlockState &state) {
  LastAccesses &last = state.last;
  SmallVector<PlannedDependency> dependencies;
  WorkToFollow work;
  auto followEach = [&](const Stamp &stamp) { follow(work, stamp); };
  Stamp lastWrite = last.anySlotWrite;
  follow(work, last.anySlotWrite);
  for (unsigned slot : sourceSlots) {
    lastWrite.keepLatest(last.slotWrite.lookup(slot));
    follow(work, last.slotWrite.lookup(slot));
  }
  last.forEachWriterOf(hostRoot, last.deviceHostWrite, last.anyDeviceHostWrite,
                       context.hostAliasing, followEach);
  // Device work still reading the destination (the copies of a loop that
  // only the main stream waited for).
  last.forEachDeviceReaderOf(hostRoot, context.hostAliasing, followEach);
  // A destination that may be a slot too (a function argument, a buffer of
  // unknown origin): kernels that read or write it.
  SmallVector<unsigned> hostSlots =
      HostBufferAliasing::getSlotsOf(hostRoot, slots);
  Stamp lastHostSlotAccess = hostSlots.empty() ? Stamp() : last.anySlot;
  follow(work, lastHostSlotAccess);
  for (unsigned slot : hostSlots) {
    lastHostSlotAccess.keepLatest(last.slot.lookup(slot));
    follow(work, last.slot.lookup(slot));
  }
  SmallVector<std::pair<const std::pair<Value, int64_t> *, Stamp>> readers;
  context.steps += last.copyReadingHost.size();
  for (auto &[key, reader] : last.copyReadingHost)
    if (context.hostAliasing.mayAlias(key.first, hostRoot))
      readers.push_back({&key, reader});
  llvm::sort(readers, [](const auto &lhs, const auto &rhs) {
    return lhs.second.point.isBefore(rhs.second.point);
  });
  for (auto &entry : readers)
    if (std::optional<AsyncCopy> reader = asyncCopyAt(entry.second))
      dependencies.push_back(reader->token);
  // A destination that is also a slot: the copies, on any stream, still
  // reading it as their source.
  for (unsigned slot : hostSlots)
    for (auto &[stream, reader] : last.copyReadingSlot.lookup(slot))
      if (std::optional<AsyncCopy> async = asyncCopyAt(reader))
        dependencies.push_back(async->token);
  // Outside the entry block, earlier iterations or the ops before the
  // region may still be at work on the source or the destination.
  bool busyAtStart =
      (!lastWrite && slotMayBeBusyAtStart(*state.block, copy.getSource(),
                                          sourceSlots)) ||
      (!lastHostSlotAccess && !hostSlots.empty() &&
       slotMayBeBusyAtStart(*state.block, hostRoot, hostSlots)) ||
      hostBufferMayBeBusyAtStart(*state.block, hostRoot);
  addDependencies(work, state, copy.getLoc(), dependencies);
  if (!work.mainStream && busyAtStart)
    dependencies.push_back(recordAfter(state, Stamp(), copy.getLoc()));
  return unique(dependencies);
}

/// A copy into the host that follows an earlier one runs on its stream
/// (stream order then covers the dependency); others take the D2H streams in
/// turn.
int64_t PlacementPlanner::chooseCopyToHostStream(
    ArrayRef<PlannedDependency> dependencies) {
  int64_t first = options.sideStreams + 1;
  for (const PlannedDependency &dependency : dependencies)
    if (dependency.kind == PlannedDependency::Kind::Copy &&
        plan.copies[dependency.copy].toHost)
      return plan.copies[dependency.copy].stream;
  return first + int64_t(nextD2HStream++ % std::max(options.d2hStreams, 1u));
}

bool PlacementPlanner::planCopyToHost(CopyD2HOp copy, const Stamp &previous,
                                      BlockState &state) {
  bool exact = true;
  SmallVector<unsigned> sourceSlots =
      slots.getSlotsOf(copy.getSource(), &exact);
  if (!exact) {
    plan.keptInPlace.push_back(copy);
    return false;
  }
  Value hostRoot = SlotAccessAnalysis::resolveRoot(copy.getTarget());
  SmallVector<PlannedDependency> dependencies = findCopyToHostDependencies(
      copy, sourceSlots, hostRoot, previous, state);
  unsigned index = plan.copies.size();
  PlannedCopy &planned = plan.copies.emplace_back();
  planned.id = index;
  planned.original = copy;
  planned.toHost = true;
  planned.block = state.block;
  planned.at = insertAfter(state, previous);
  planned.stream = chooseCopyToHostStream(dependencies);
  planned.dependencies = std::move(dependencies);
  planned.slot = *slots.getSlotNumber(
      SlotAccessAnalysis::resolveRoot(copy.getSource()));
  planned.sourceSlots.assign(sourceSlots.begin(), sourceSlots.end());
  for (unsigned slot : HostBufferAliasing::getSlotsOf(hostRoot, slots))
    planned.slots.push_back(slot);
  planned.hostRoot = hostRoot;
  addToPlan(planned, state);

  // What later copies must follow: it reads its source's slots, and writes
  // its destination (and the destination's slots, for an argument).
  Stamp placed{planned.at, nullptr, index};
  LastAccesses &last = state.last;
  last.noteCopyReadingSlots(planned.sourceSlots, planned.stream, placed);
  last.noteCopyToHost(placed, copy, planned.slots, hostRoot);
  return true;
}

