//===- RegionSummaries.h - What a region op holds, computed once -*- C++ -*-===//
//
// Part of --convert-vyre-to-gpu: what the lowering asks of a region op about
// the ops nested in it (whether it is a device region, which side streams
// its copies use, which tokens from outside it waits on). Each answer is
// computed once per function, bottom-up, from the answers of the region ops
// directly inside: asking it again at every level of a nest would cost the
// size of the nest at each level, the depth times the ops in all.
//
// The answers are about the function as it was before the lowering started:
// the lowering reaches a region op before it lowers anything inside it, and
// keeps the ops inside (it moves a region op's blocks into the op it rebuilds
// the region op as).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_CONVERSION_VYRETOGPU_REGIONSUMMARIES_H
#define VYRE_LIB_CONVERSION_VYRETOGPU_REGIONSUMMARIES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::vyre::vyre_to_gpu {

class RegionSummaries {
public:
  /// Summarizes every region op nested in `root`, forgetting the previous
  /// root's.
  void compute(Operation *root);

  /// Whether `op` is, or holds, a vyre op (`containsVyreOps`).
  bool holdsVyreOps(Operation *op) const;
  /// Whether an op of `region` is, or holds, a vyre op.
  bool holdsVyreOps(Region &region) const;
  /// `isDeviceRegion(op)`.
  bool isDeviceRegion(Operation *op) const;
  /// The side streams of the async copies nested in `op`, in program order,
  /// each once.
  ArrayRef<int64_t> sideStreams(Operation *op) const;
  /// The vyre tokens that ops nested in `op` use and that are defined
  /// outside it, in the order of their first use, each once.
  ArrayRef<Value> tokensFromOutside(Operation *op) const;

private:
  struct Summary {
    bool holdsVyreOps = false;
    bool isDeviceRegion = false;
    SmallVector<int64_t, 2> sideStreams;
    SmallVector<Value, 2> tokensFromOutside;
  };
  /// The summary of `op`, which has regions.
  Summary summarize(Operation *op) const;
  const Summary *lookup(Operation *op) const;

  DenseMap<Operation *, Summary> summaries;
};

} // namespace mlir::vyre::vyre_to_gpu

#endif // VYRE_LIB_CONVERSION_VYRETOGPU_REGIONSUMMARIES_H
