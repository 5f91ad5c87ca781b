//===- BodyAccesses.cpp - Which ops of a loop body touch what -------------===//

#include "BodyAccesses.h"

#include <algorithm>
#include <iterator>

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

BodyAccesses::BodyAccesses(ArrayRef<OpFootprint> footprints) {
  for (auto [index, footprint] : llvm::enumerate(footprints)) {
    unsigned op = index;
    const AccessSummary &device = footprint.device.slots;
    const AccessSummary &host = footprint.host.slots;
    if (device.isUnknown() || host.isUnknown())
      unknown.push_back(op);
    // An op is listed once per slot, in order: the last entry is the op's
    // if it was added already.
    auto add = [&](DenseMap<unsigned, SmallVector<unsigned>> &map,
                   ArrayRef<unsigned> slots) {
      for (unsigned slot : slots) {
        SmallVector<unsigned> &ops = map[slot];
        if (ops.empty() || ops.back() != op)
          ops.push_back(op);
      }
    };
    for (const AccessSummary *side : {&device, &host}) {
      add(accessors, side->getReads());
      add(accessors, side->getWrites());
      add(writers, side->getWrites());
    }
    if (footprint.device.mayWriteHost() || footprint.host.mayWriteHost())
      writesHost.push_back(op);
    if (footprint.device.mayWriteHost())
      deviceWritesHost.push_back(op);
    if (footprint.device.mayWriteHost() || footprint.device.mayReadHost() ||
        footprint.host.mayWriteHost() || footprint.host.mayReadHost())
      touchesHost.push_back(op);
  }
}

SmallVector<unsigned>
BodyAccesses::mergeWithUnknown(ArrayRef<unsigned> ops,
                               ArrayRef<unsigned> unknown) {
  SmallVector<unsigned> merged;
  merged.reserve(ops.size() + unknown.size());
  std::set_union(ops.begin(), ops.end(), unknown.begin(), unknown.end(),
                 std::back_inserter(merged));
  return merged;
}

SmallVector<unsigned> BodyAccesses::accessorsOf(unsigned slot) const {
  auto it = accessors.find(slot);
  return mergeWithUnknown(it == accessors.end() ? ArrayRef<unsigned>()
                                                : ArrayRef(it->second),
                          unknown);
}

SmallVector<unsigned> BodyAccesses::writersOf(unsigned slot) const {
  auto it = writers.find(slot);
  return mergeWithUnknown(it == writers.end() ? ArrayRef<unsigned>()
                                              : ArrayRef(it->second),
                          unknown);
}

std::optional<unsigned>
BodyAccesses::firstAccessorBefore(unsigned slot, unsigned end,
                                  unsigned skip) const {
  auto it = accessors.find(slot);
  std::optional<unsigned> first;
  auto consider = [&](ArrayRef<unsigned> ops) {
    for (unsigned op : ops) {
      if (op >= end)
        break;
      if (op == skip)
        continue;
      if (!first || op < *first)
        first = op;
      break;
    }
  };
  if (it != accessors.end())
    consider(it->second);
  consider(unknown);
  return first;
}
