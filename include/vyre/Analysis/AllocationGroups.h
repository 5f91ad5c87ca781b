//===- AllocationGroups.h - Buffers allocated and freed as one -*- C++ -*-===//
//
// Device buffers freed together: `vyre.alloc`s of static shape whose
// `vyre.dealloc`s follow one another in the block that allocates them. The
// lowering makes each group one `gpu.alloc`, carved into the buffers, made
// where the first of them was and freed once, where the last of the group's
// deallocs stood: the runtime's free waits for the whole device, so one free
// in place of many is time the device does not sit idle. The simulator
// charges one allocation and one free per group by the same rule.
//
// Nothing sees a difference but the device's memory between the first
// alloc and each later one: a buffer allocated later is reserved from the
// first. That is no more than the program holds just before the frees,
// where every buffer of the group is live.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_ALLOCATIONGROUPS_H
#define VYRE_ANALYSIS_ALLOCATIONGROUPS_H

#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::vyre {

/// The alignment of each buffer within its group's allocation, in bytes:
/// what `cuMemAlloc` guarantees of a buffer of its own.
constexpr int64_t kGroupedBufferAlignment = 256;

/// Two or more `vyre.alloc`s of one block, each of static shape (of
/// elements of 1, 2, 4, 8 or 16 bytes) in the default memory space and freed
/// by exactly one `vyre.dealloc`, in the same block; their deallocs follow one
/// another, with no op between them but pure ones (no memory effect, no region:
/// constants, index arithmetic) and the schedule's `vyre.record`, `vyre.wait`
/// and `vyre.sync`. The group is freed at the last: past those ops, which
/// allocate nothing.
struct AllocationGroup {
  /// In block order.
  SmallVector<AllocOp> allocs;
  /// Each alloc's byte offset in the group's allocation (aligned to
  /// kGroupedBufferAlignment), in the order of `allocs`.
  SmallVector<int64_t> byteOffsets;
  int64_t totalBytes = 0;
  /// In block order: the group is freed at the last.
  SmallVector<DeallocOp> deallocs;
};

/// The one `vyre.dealloc` of `alloc`, in `alloc`'s block, if `alloc` may be
/// grouped (a static shape of integers, floats or indices whose size is a
/// power of two bytes, as LLVM lays them out, in the default memory space,
/// and exactly one dealloc, in its block); null otherwise.
DeallocOp getGroupableDealloc(AllocOp alloc);

/// The groups of the allocations in `root`'s regions (`root` included when
/// it has regions), each block's in order.
SmallVector<AllocationGroup> findAllocationGroups(Operation *root);

/// Which group each grouped alloc and dealloc in `root` belongs to: an index
/// into `findAllocationGroups(root)`.
struct AllocationGroups {
  /// The groups in `root`; none if `root` is null.
  explicit AllocationGroups(Operation *root);

  SmallVector<AllocationGroup> groups;
  DenseMap<Operation *, unsigned> groupOf;

  /// The group `op` (a vyre.alloc or vyre.dealloc) belongs to, or null.
  const AllocationGroup *lookup(Operation *op) const;
  /// Whether `dealloc` frees nothing on its own: its group is freed at a
  /// later dealloc of the group.
  bool isFreedLater(DeallocOp dealloc) const;
};

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_ALLOCATIONGROUPS_H
