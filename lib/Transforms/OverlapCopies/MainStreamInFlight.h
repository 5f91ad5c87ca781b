//===- MainStreamInFlight.h - What the main stream may touch ----*- C++ -*-===//
//
// The slots that main-stream work issued since the host last waited for the
// main stream may still be touching, while the ordering step walks a block:
// what the block added, and what the block around it had in flight where
// its op starts. A nested block refers to the latter, which does not change
// while the nested block is planned, instead of copying it: a function with
// many region ops would otherwise copy a set that grows with the function
// once per region.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_MAINSTREAMINFLIGHT_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_MAINSTREAMINFLIGHT_H

#include "vyre/Analysis/AccessSummary.h"

namespace mlir::vyre::overlap {

class MainStreamInFlight {
public:
  MainStreamInFlight() = default;
  /// `own`, after what `outer` holds (null: nothing). `outer` must outlive
  /// this and not change while this is used.
  MainStreamInFlight(const MainStreamInFlight *outer, AccessSummary own)
      : outer(outer && outer->own.isEmpty() ? outer->outer : outer),
        own(std::move(own)) {}
  explicit MainStreamInFlight(AccessSummary own) : own(std::move(own)) {}

  bool isEmpty() const { return own.isEmpty() && !outer; }
  bool mayAccess(unsigned slot) const {
    for (const MainStreamInFlight *layer = this; layer; layer = layer->outer)
      if (layer->own.mayAccess(slot))
        return true;
    return false;
  }
  void merge(const AccessSummary &slots) { own.merge(slots); }
  /// The host waited for the main stream: nothing of it is in flight, the
  /// work of the blocks around included.
  void clear() {
    own = AccessSummary();
    outer = nullptr;
  }

private:
  /// The nearest layer around that holds a slot (its `own` is not empty);
  /// null where none does.
  const MainStreamInFlight *outer = nullptr;
  AccessSummary own;
};

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_MAINSTREAMINFLIGHT_H
