//===- HappensBefore.cpp - Happens-before over one trace ------------------===//
//
// Two passes: chains first (so that each clock has its final width), then
// the clocks, each the join of its predecessors'. A node continues a chain
// only from a predecessor, so every chain is ordered by happens-before, and
// a node's entry for a chain is the last place on it before the node.
//
//===----------------------------------------------------------------------===//

#include "HappensBefore.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

HappensBefore::HappensBefore(ArrayRef<Node> nodes) {
  unsigned count = nodes.size();
  chainOf.assign(count, 0);
  positionOf.assign(count, 0);
  // The last node of each chain so far.
  std::vector<unsigned> lastOf;
  for (unsigned index = 0; index < count; ++index) {
    const Node &node = nodes[index];
    std::optional<unsigned> chain;
    // Only from a predecessor where the node runs (the host, or the
    // device): work enqueued on a new stream does not take the host's
    // chain from the host ops after it.
    for (unsigned predecessor : node.predecessors) {
      if (nodes[predecessor].onDevice != node.onDevice)
        continue;
      unsigned candidate = chainOf[predecessor];
      if (lastOf[candidate] == predecessor) {
        chain = candidate;
        break;
      }
    }
    if (!chain) {
      chain = lastOf.size();
      lastOf.push_back(index);
    }
    chainOf[index] = *chain;
    positionOf[index] =
        lastOf[*chain] == index ? 1 : positionOf[lastOf[*chain]] + 1;
    lastOf[*chain] = index;
  }
  numChains = lastOf.size();

  if (static_cast<size_t>(numChains) * 32 > count) {
    matrix.assign(count, llvm::BitVector(count));
    for (unsigned index = 0; index < count; ++index)
      for (unsigned predecessor : nodes[index].predecessors) {
        matrix[index] |= matrix[predecessor];
        matrix[index].set(predecessor);
      }
    return;
  }
  clocks.assign(static_cast<size_t>(count) * numChains, 0);
  for (unsigned index = 0; index < count; ++index) {
    unsigned *clock = &clocks[static_cast<size_t>(index) * numChains];
    for (unsigned predecessor : nodes[index].predecessors) {
      const unsigned *other =
          &clocks[static_cast<size_t>(predecessor) * numChains];
      for (unsigned chain = 0; chain < numChains; ++chain)
        clock[chain] = std::max(clock[chain], other[chain]);
    }
    clock[chainOf[index]] = positionOf[index];
  }
}
