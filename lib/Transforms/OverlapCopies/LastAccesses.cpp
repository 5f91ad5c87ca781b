//===- LastAccesses.cpp - What touched each buffer last ----------*- C++ -*-===//

#include "LastAccesses.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

/// Whether `op` reaches a buffer through a view, so that a copy may find it
/// touches other bytes than its own.
static bool reachesAView(Operation *op) {
  return op && op->getNumRegions() == 0 &&
         llvm::any_of(op->getOperands(), [](Value operand) {
           return operand.getDefiningOp<memref::SubViewOp>();
         });
}

void LastAccesses::note(const Stamp &op, const OpFootprint &footprint) {
  bool keepPriors = !footprint.unknown && reachesAView(op.op);
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
        Stamp &latest = slotWrite[written];
        if (keepPriors)
          priorSlotWrite[{op.op, written}] = latest;
        latest = op;
      }
    }
  }
  if (footprint.unknown || footprint.device.anyHostWrite ||
      footprint.host.anyHostWrite)
    anyHostWrite = op;
  for (const SideAccess *side : {&footprint.device, &footprint.host}) {
    for (Value root : side->hostWrites) {
      Stamp &latest = hostWrite[root];
      if (keepPriors)
        priorHostWrite[{op.op, root}] = latest;
      latest = op;
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
  for (Value root : footprint.device.hostWrites) {
    Stamp &latest = deviceHostWrite[root];
    if (keepPriors)
      priorDeviceHostWrite[{op.op, root}] = latest;
    latest = op;
  }
  if (footprint.device.anyHostRead)
    anyDeviceHostRead = op;
  for (Value root : footprint.device.hostReads)
    deviceHostRead[root] = op;
}

void LastAccesses::forEachDeviceReaderOf(
    Value hostRoot, HostBufferAliasing &aliasing,
    llvm::function_ref<void(const Stamp &)> each) const {
  each(anyDeviceHostRead);
  steps += deviceHostRead.size();
  for (auto &[root, reader] : deviceHostRead)
    if (root == hostRoot || aliasing.mayAlias(root, hostRoot))
      each(reader);
}

void LastAccesses::forEachWriterOf(
    Value hostRoot, const DenseMap<Value, Stamp> &writers, Stamp anyWriter,
    HostBufferAliasing &aliasing, llvm::function_ref<void(const Stamp &)> each,
    const DenseMap<std::pair<Operation *, Value>, Stamp> *priors,
    SkippableWriter skippable) const {
  each(anyWriter);
  if (HostBufferAliasing::getOrigin(hostRoot) == HostBufferOrigin::Unknown) {
    steps += writers.size();
    for (auto &entry : writers)
      each(entry.second);
    return;
  }
  each(priors ? lastWriteNotSkipped(writers, *priors, hostRoot, skippable)
              : writers.lookup(hostRoot));
  steps += 1 + openHostRoots.size();
  for (Value root : openHostRoots)
    if (root != hostRoot && aliasing.mayAlias(root, hostRoot))
      each(writers.lookup(root));
}

Stamp LastAccesses::lastWriterOf(
    Value hostRoot, const DenseMap<Value, Stamp> &writers, Stamp anyWriter,
    HostBufferAliasing &aliasing,
    const DenseMap<std::pair<Operation *, Value>, Stamp> *priors,
    SkippableWriter skippable) const {
  Stamp latest;
  forEachWriterOf(
      hostRoot, writers, anyWriter, aliasing,
      [&](const Stamp &writer) { latest.keepLatest(writer); }, priors,
      skippable);
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

void LastAccesses::noteCopyToHost(const Stamp &placed, Operation *original,
                                  ArrayRef<unsigned> slots, Value hostRoot) {
  bool keepPriors = reachesAView(original);
  auto replace = [&](auto &latestByKey, auto &priors, auto key) {
    Stamp &latest = latestByKey[key];
    if (keepPriors)
      priors[{original, key}] = latest;
    latest = placed;
  };
  for (unsigned written : slots) {
    slot[written] = placed;
    replace(slotWrite, priorSlotWrite, written);
  }
  replace(hostWrite, priorHostWrite, hostRoot);
  replace(deviceHostWrite, priorDeviceHostWrite, hostRoot);
  if (HostBufferAliasing::getOrigin(hostRoot) != HostBufferOrigin::Allocation)
    openHostRoots.insert(hostRoot);
}
