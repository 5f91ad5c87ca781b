//===- AllocationGroups.cpp - Buffers allocated and freed as one ----------===//
//
// See AllocationGroups.h. A block's buffers whose deallocs follow one
// another in it form a group: their deallocs, sorted, split where an op
// other than those mayStandBetweenFrees accepts stands between two.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/AllocationGroups.h"

#include "vyre/Analysis/DeviceCosts.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::vyre;

DeallocOp vyre::getGroupableDealloc(AllocOp alloc) {
  auto type = dyn_cast<MemRefType>(alloc.getType());
  if (!type || !type.hasStaticShape() || type.getMemorySpace() ||
      !type.getLayout().isIdentity() ||
      !isa<IntegerType, FloatType, IndexType>(type.getElementType()))
    return {};
  // An element of 3, 5, 6 or 7 bytes (i24, f80) takes more in LLVM's
  // layout (its alloc size, a power of two) than its size: the buffer's
  // bytes would not be what the group reserves for it.
  std::optional<uint64_t> elementBytes =
      getElementBytes(type.getElementType(), alloc);
  if (!elementBytes || !llvm::isPowerOf2_64(*elementBytes))
    return {};
  DeallocOp found;
  for (Operation *user : alloc->getUsers()) {
    auto dealloc = dyn_cast<DeallocOp>(user);
    if (!dealloc)
      continue;
    if (found)
      return {};
    found = dealloc;
  }
  if (!found || found->getBlock() != alloc->getBlock())
    return {};
  return found;
}

/// Whether `op` may stand between a group's deallocs: an op that touches no
/// memory and holds no region (a constant, index arithmetic), or one that
/// only orders streams and the host (`vyre.record`, `vyre.wait`,
/// `vyre.sync`: the schedule joins a buffer's copies before its dealloc).
/// Neither allocates, so holding a buffer past it costs no memory that the
/// op could have used.
static bool mayStandBetweenFrees(Operation *op) {
  if (isa<RecordOp, WaitOp, SyncOp>(op))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// The op after `op` in its block, past those that may stand between frees;
/// null at the end.
static Operation *nextFreeOrOther(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (!mayStandBetweenFrees(next))
      return next;
  return nullptr;
}

/// Lays `group`'s buffers out one after another; false if a size is unknown
/// or the total does not fit in 2^62 bytes.
static bool layOut(AllocationGroup &group) {
  int64_t end = 0;
  for (AllocOp alloc : group.allocs) {
    bool overflows = false;
    std::optional<uint64_t> bytes =
        getCopyBytes(alloc.getMemref(), alloc, &overflows);
    constexpr uint64_t limit = uint64_t(1) << 62;
    if (!bytes || overflows || *bytes >= limit)
      return false;
    int64_t offset = int64_t(llvm::alignTo(end, kGroupedBufferAlignment));
    group.byteOffsets.push_back(offset);
    if (uint64_t(offset) + *bytes >= limit)
      return false;
    end = offset + int64_t(*bytes);
  }
  group.totalBytes = end;
  return true;
}

/// The groups among `allocs`, the allocs of one block.
static void groupAllocs(ArrayRef<AllocOp> allocs,
                        SmallVectorImpl<AllocationGroup> &groups) {
  // Each candidate's dealloc, in block order.
  SmallVector<std::pair<DeallocOp, AllocOp>> freed;
  for (AllocOp alloc : allocs)
    if (DeallocOp dealloc = getGroupableDealloc(alloc))
      freed.push_back({dealloc, alloc});
  llvm::sort(freed, [](const auto &lhs, const auto &rhs) {
    return lhs.first->isBeforeInBlock(rhs.first);
  });
  // Split where two deallocs are not adjacent.
  size_t begin = 0;
  for (size_t i = 1; i <= freed.size(); ++i) {
    if (i < freed.size() &&
        nextFreeOrOther(freed[i - 1].first) == freed[i].first.getOperation())
      continue;
    if (i - begin >= 2) {
      AllocationGroup group;
      for (size_t j = begin; j < i; ++j) {
        group.deallocs.push_back(freed[j].first);
        group.allocs.push_back(freed[j].second);
      }
      llvm::sort(group.allocs, [](AllocOp lhs, AllocOp rhs) {
        return lhs->isBeforeInBlock(rhs);
      });
      if (layOut(group))
        groups.push_back(std::move(group));
    }
    begin = i;
  }
}

SmallVector<AllocationGroup> vyre::findAllocationGroups(Operation *root) {
  SmallVector<AllocationGroup> groups;
  root->walk([&](Block *block) {
    SmallVector<AllocOp> allocs;
    for (Operation &op : *block)
      if (auto alloc = dyn_cast<AllocOp>(op))
        allocs.push_back(alloc);
    groupAllocs(allocs, groups);
  });
  return groups;
}

AllocationGroups::AllocationGroups(Operation *root) {
  if (root)
    groups = findAllocationGroups(root);
  for (auto [index, group] : llvm::enumerate(groups)) {
    for (AllocOp alloc : group.allocs)
      groupOf[alloc] = index;
    for (DeallocOp dealloc : group.deallocs)
      groupOf[dealloc] = index;
  }
}

const AllocationGroup *AllocationGroups::lookup(Operation *op) const {
  auto it = groupOf.find(op);
  return it == groupOf.end() ? nullptr : &groups[it->second];
}

bool AllocationGroups::isFreedLater(DeallocOp dealloc) const {
  const AllocationGroup *group = lookup(dealloc);
  return group && group->deallocs.back() != dealloc;
}
