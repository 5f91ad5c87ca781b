//===- HappensBefore.h - Happens-before over one trace ----------*- C++ -*-===//
//
// Part of --vyre-verify-gpu-streams: whether one node of a trace happens
// before another, as vector clocks over chains of nodes. The lowering makes
// a new stream at every join, so a chain per stream would be as many chains
// as nodes; instead each node continues the chain of a predecessor that is
// still that chain's last node (a stream made by a join continues the chain
// of a stream it waits for), and starts a new chain only where none is.
// Memory: nodes times chains, not nodes squared; where chains are more than
// a 32nd of the nodes (a trace of many streams that start with no work
// before them), a bit per pair of nodes takes less, and is kept instead.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_VERIFICATION_GPUSTREAMS_HAPPENSBEFORE_H
#define VYRE_LIB_VERIFICATION_GPUSTREAMS_HAPPENSBEFORE_H

#include "Trace.h"

#include "llvm/ADT/BitVector.h"

#include <vector>

namespace mlir::vyre::gpu_streams {

class HappensBefore {
public:
  /// `nodes` in issue order, every edge pointing back.
  explicit HappensBefore(ArrayRef<Node> nodes);

  /// Whether node `earlier` happens before node `later` (earlier < later).
  bool operator()(unsigned earlier, unsigned later) const {
    if (!matrix.empty())
      return matrix[later].test(earlier);
    return clocks[static_cast<size_t>(later) * numChains + chainOf[earlier]] >=
           positionOf[earlier];
  }

  unsigned getNumChains() const { return numChains; }

private:
  /// Per node: its chain and its place on it (from 1).
  std::vector<unsigned> chainOf, positionOf;
  /// Per node, `numChains` entries: the last place on each chain that
  /// happens before it or is it (0: none).
  std::vector<unsigned> clocks;
  unsigned numChains = 0;
  /// Instead of the clocks: per node, the nodes that happen before it.
  std::vector<llvm::BitVector> matrix;
};

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_HAPPENSBEFORE_H
