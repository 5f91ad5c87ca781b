//===- LastAccesses.cpp - What touched each buffer last ----------*- C++ -*-===//

#include "LastAccesses.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

void LastAccesses::note(const Stamp &op, const OpFootprint &footprint) {
  for (const SideAccess *side : {&footprint.device, &footprint.host})
    steps += 1 + side->slots.getReads().size() +
             side->slots.getWrites().size() + side->hostWrites.size() +
             side->hostReads.size();
  if (footprint.unknown || footprint.device.slots.isUnknown() ||
      footprint.host.slots.isUnknown()) {
    anySlot = op;
    anySlotWrite = op;
  } else {
    for (const SideAccess *side : {&footprint.device, &footprint.host}) {
      for (unsigned read : side->slots.getReads())
        slot[read] = op;
      for (unsigned written : side->slots.getWrites()) {
        slot[written] = op;
        slotWrite[written] = op;
      }
    }
  }
  if (footprint.unknown || footprint.device.anyHostWrite ||
      footprint.host.anyHostWrite)
    anyHostWrite = op;
  for (const SideAccess *side : {&footprint.device, &footprint.host}) {
    for (Value root : side->hostWrites) {
      hostWrite[root] = op;
      if (HostBufferAliasing::getOrigin(root) != HostBufferOrigin::Allocation)
        openHostRoots.insert(root);
    }
  }
  // Device work the host waits for (a synchronous copy) is done when the host
  // moves on; other device work may still be writing.
  auto streamOp = dyn_cast_or_null<StreamOpInterface>(op.op);
  if (streamOp && streamOp.blocksHost())
    return;
  if (footprint.device.anyHostWrite)
    anyDeviceHostWrite = op;
  for (Value root : footprint.device.hostWrites)
    deviceHostWrite[root] = op;
  if (footprint.device.anyHostRead)
    anyDeviceHostRead = op;
  for (Value root : footprint.device.hostReads)
    deviceHostRead[root] = op;
}

Stamp LastAccesses::lastDeviceReaderOf(Value hostRoot,
                                       HostBufferAliasing &aliasing) const {
  Stamp latest = anyDeviceHostRead;
  steps += deviceHostRead.size();
  for (auto &[root, reader] : deviceHostRead)
    if (root == hostRoot || aliasing.mayAlias(root, hostRoot))
      latest.keepLatest(reader);
  return latest;
}

Stamp LastAccesses::lastWriterOf(Value hostRoot,
                                 const DenseMap<Value, Stamp> &writers,
                                 Stamp anyWriter,
                                 HostBufferAliasing &aliasing) const {
  Stamp latest = anyWriter;
  if (HostBufferAliasing::getOrigin(hostRoot) == HostBufferOrigin::Unknown) {
    steps += writers.size();
    for (auto &entry : writers)
      latest.keepLatest(entry.second);
    return latest;
  }
  latest.keepLatest(writers.lookup(hostRoot));
  steps += 1 + openHostRoots.size();
  for (Value root : openHostRoots)
    if (aliasing.mayAlias(root, hostRoot))
      latest.keepLatest(writers.lookup(root));
  return latest;
}


void LastAccesses::noteCopyReadingSlots(ArrayRef<unsigned> slots,
                                        int64_t stream, const Stamp &copy) {
  for (unsigned slot : slots) {
    SmallVector<std::pair<int64_t, Stamp>, 2> &readers = copyReadingSlot[slot];
    steps += 1 + readers.size();
    auto it = llvm::find_if(
        readers, [&](const auto &entry) { return entry.first == stream; });
    if (it != readers.end())
      it->second = copy;
    else
      readers.push_back({stream, copy});
  }
}
