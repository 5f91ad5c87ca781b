//===- OpFootprint.h - What an op may touch ---------------------*- C++ -*-===//
//
// The slots and host buffers that one op, with everything nested in it, may
// read or write, split by where the access happens: on the device (vyre ops,
// which run on a stream) or on the host (everything else).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_OPFOOTPRINT_H
#define VYRE_ANALYSIS_OPFOOTPRINT_H

#include "vyre/Analysis/AccessSummary.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <memory>

namespace mlir::vyre {

class HostBufferAliasing;
class SlotAccessAnalysis;

/// Accesses made on one side (device or host).
struct SideAccess {
  /// Slots read and written; unknown when any slot may be touched.
  AccessSummary slots;
  /// Roots of the host buffers written or freed.
  llvm::SetVector<Value> hostWrites;
  /// Whether any host buffer may be written or freed.
  bool anyHostWrite = false;
  /// Roots of the host buffers read, and whether any host buffer may be.
  llvm::SetVector<Value> hostReads;
  bool anyHostRead = false;

  bool mayWriteHost() const { return anyHostWrite || !hostWrites.empty(); }
  bool mayReadHost() const { return anyHostRead || !hostReads.empty(); }
  void merge(const SideAccess &other);
};

/// Whether two accesses may conflict: one may write a slot or host buffer
/// the other reads or writes (an unknown slot set meets any other slot, and
/// host buffers meet where `aliasing` says they may alias). Two accesses that
/// do not conflict may run in either order.
bool sidesMayConflict(const SideAccess &lhs, const SideAccess &rhs,
                      HostBufferAliasing &aliasing);

/// What an op and the ops nested in it may touch.
struct OpFootprint {
  /// Accesses by vyre device ops, ordered on the main stream.
  SideAccess device;
  /// Accesses by host ops, and everything an op of unknown effect may do.
  SideAccess host;
  /// The op has effects the analysis cannot model (a call, an op without
  /// declared memory effects): it may touch anything, on either side.
  bool unknown = false;
  /// How many kernel dispatches the op is or contains.
  unsigned numKernels = 0;

  bool isEmpty() const {
    return !unknown && device.slots.isEmpty() && !device.mayWriteHost() &&
           !device.mayReadHost() && host.slots.isEmpty() &&
           !host.mayWriteHost() && !host.mayReadHost();
  }
  void merge(const OpFootprint &other);
};

/// Computes the footprint of `op`. Dispatch summaries and slot numbers come
/// from `slots`; buffers resolve to their roots through views. Ops with
/// regions are the union of the ops inside them.
OpFootprint computeOpFootprint(Operation *op, const SlotAccessAnalysis &slots);

/// Footprints of ops, those of ops with regions computed once: such an op's
/// footprint is merged from those of the ops directly in its regions, so the
/// footprints of every op of a nest of depth d cost O(n) merges, not
/// O(n * d) walks. Valid while the IR it was asked about does not change.
class OpFootprintCache {
public:
  explicit OpFootprintCache(const SlotAccessAnalysis &slots) : slots(slots) {}

  /// The footprint of `op`, as `computeOpFootprint` computes it.
  OpFootprint get(Operation *op);
  /// Forgets the footprints of `ops`: ops a rewrite changed, holds changed
  /// ops, or erased (a new op may take an erased one's address).
  void forget(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      withRegions.erase(op);
  }
  /// Footprints computed and merged so far, for tests of how the work grows
  /// with the program.
  uint64_t getSteps() const { return steps; }

private:
  const OpFootprint &getWithRegions(Operation *op);

  const SlotAccessAnalysis &slots;
  llvm::DenseMap<Operation *, std::unique_ptr<OpFootprint>> withRegions;
  uint64_t steps = 0;
};

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_OPFOOTPRINT_H
