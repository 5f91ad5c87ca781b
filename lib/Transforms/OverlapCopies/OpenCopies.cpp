//===- OpenCopies.cpp - The copies of a block still in flight ----*- C++ -*-===//

#include "OpenCopies.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

void OpenCopies::track(PlannedCopy *copy) {
  for (unsigned slot : copy->slots)
    bySlot[slot].push_back(copy);
  for (unsigned slot : copy->sourceSlots)
    bySourceSlot[slot].push_back(copy);
  if (copy->toHost) {
    hostWriters.push_back(copy);
    switch (HostBufferAliasing::getOrigin(copy->hostRoot)) {
    case HostBufferOrigin::Allocation:
      writersByAllocation[copy->hostRoot].push_back(copy);
      break;
    case HostBufferOrigin::Unknown:
      writersOfUnknownRoots.push_back(copy);
      break;
    case HostBufferOrigin::Argument:
    case HostBufferOrigin::ArgumentChoice:
      writersByArgument[copy->hostRoot].push_back(copy);
      break;
    }
  } else if (HostBufferAliasing::getOrigin(copy->hostRoot) ==
           HostBufferOrigin::Allocation)
    byHostRoot[copy->hostRoot].push_back(copy);
  else
    openHostRoots.push_back(copy);
  all.push_back(copy);
}

ArrayRef<PlannedCopy *> OpenCopies::notDoneForHost() {
  steps += 1 + all.size();
  llvm::erase_if(all,
                 [](PlannedCopy *copy) { return copy->hostCovered; });
  return all;
}

void OpenCopies::collectSlotConflicts(const AccessSummary &summary,
                                      bool onHost, Orders &orders) {
  if (summary.isEmpty())
    return;
  // The verdict decides, and names the hazard.
  auto visit = [&](PlannedCopy *copy) {
    bool needed = onHost ? !copy->hostCovered : copy->isOpen();
    if (!needed)
      return;
    Concurrency verdict = canRunConcurrently(copy->summarize(), summary);
    if (!verdict.isIndependent())
      orders.add(copy, onHost, OrderReason::of(*verdict.reason));
  };
  // Host-side slot accesses are rare, and an unknown summary conflicts with
  // everything: look at every copy.
  if (onHost || summary.isUnknown()) {
    for (PlannedCopy *copy : notDoneForHost())
      visit(copy);
    return;
  }
  // On the device, look only at the copies that touch the op's slots; drop
  // copies already ordered, so each is looked at once more at most.
  auto visitList = [&](DenseMap<unsigned, SmallVector<PlannedCopy *>> &map,
                       unsigned slot) {
    auto it = map.find(slot);
    if (it == map.end())
      return;
    steps += 1 + it->second.size();
    llvm::erase_if(it->second,
                   [](PlannedCopy *copy) { return !copy->isOpen(); });
    for (PlannedCopy *copy : it->second)
      visit(copy);
  };
  for (unsigned slot : summary.getWrites()) {
    visitList(bySlot, slot);
    visitList(bySourceSlot, slot);
  }
  for (unsigned slot : summary.getReads())
    visitList(bySlot, slot);
}

void OpenCopies::collectHostConflicts(const SideAccess &side, bool onHost,
                                      bool everything, Orders &orders) {
  auto visit = [&](PlannedCopy *copy, HazardKind hazard) {
    ++steps;
    if (copy->hostCovered || (!onHost && copy->deviceCovered))
      return;
    orders.add(copy, onHost, OrderReason::of(hazard));
  };
  if (everything || side.anyHostWrite) {
    HazardKind hazard =
        everything ? HazardKind::UnknownAccess : HazardKind::HostBuffer;
    for (PlannedCopy *copy : notDoneForHost())
      visit(copy, hazard);
    return;
  }
  for (Value root : side.hostWrites) {
    if (HostBufferAliasing::getOrigin(root) == HostBufferOrigin::Unknown) {
      for (PlannedCopy *copy : notDoneForHost())
        visit(copy, HazardKind::HostBuffer);
      continue;
    }
    auto it = byHostRoot.find(root);
    ++steps;
    if (it != byHostRoot.end()) {
      llvm::erase_if(it->second,
                     [](PlannedCopy *copy) { return copy->hostCovered; });
      for (PlannedCopy *copy : it->second)
        visit(copy, HazardKind::HostBuffer);
    }
    steps += openHostRoots.size();
    llvm::erase_if(openHostRoots,
                   [](PlannedCopy *copy) { return copy->hostCovered; });
    for (PlannedCopy *copy : openHostRoots)
      if (hostAliasing.mayAlias(root, copy->hostRoot))
        visit(copy, HazardKind::HostBuffer);
  }
}


void OpenCopies::collectHostWriterConflicts(const SideAccess &side,
                                            bool onHost, bool everything,
                                            Orders &orders) {
  bool any = everything || side.anyHostWrite || side.anyHostRead;
  if (!any && side.hostWrites.empty() && side.hostReads.empty())
    return;
  OrderReason reason = OrderReason::of(everything ? HazardKind::UnknownAccess
                                                  : HazardKind::HostBuffer);
  // The copies found, added in planning order.
  SmallVector<PlannedCopy *> found;
  auto visitList = [&](SmallVectorImpl<PlannedCopy *> &copies) {
    steps += 1 + copies.size();
    llvm::erase_if(copies,
                   [](PlannedCopy *copy) { return copy->hostCovered; });
    for (PlannedCopy *copy : copies)
      if (onHost || !copy->deviceCovered)
        found.push_back(copy);
  };
  auto addFound = [&] {
    llvm::sort(found, [](PlannedCopy *lhs, PlannedCopy *rhs) {
      return lhs->id < rhs->id;
    });
    for (PlannedCopy *copy : found)
      orders.add(copy, onHost, reason);
  };
  if (any) {
    visitList(hostWriters);
    return addFound();
  }
  auto visitRoot = [&](Value root) {
    switch (HostBufferAliasing::getOrigin(root)) {
    case HostBufferOrigin::Unknown:
      return visitList(hostWriters);
    case HostBufferOrigin::Allocation:
      if (auto it = writersByAllocation.find(root);
          it != writersByAllocation.end())
        visitList(it->second);
      break;
    case HostBufferOrigin::Argument:
    case HostBufferOrigin::ArgumentChoice:
      // The arguments, and selects among them, that may alias it (few
      // distinct roots).
      steps += writersByArgument.size();
      for (auto &[argument, copies] : writersByArgument)
        if (hostAliasing.mayAlias(root, argument))
          visitList(copies);
      break;
    }
    visitList(writersOfUnknownRoots);
  };
  for (Value root : side.hostWrites)
    visitRoot(root);
  for (Value root : side.hostReads)
    visitRoot(root);
  addFound();
}
