//===- OrderCopiesByNeed.cpp - Copies in the order they are needed --------===//

#include "vyre/Transforms/OverlapCopies/OrderCopiesByNeed.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

#include <queue>

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

namespace {

/// One copy of a run, with what orders it.
struct RunCopy {
  Operation *op;
  OpFootprint footprint;
  /// Where its first consumer comes (ops after the run); UINT_MAX: none
  /// found.
  unsigned neededAt = UINT_MAX;
  /// The copies of the run it must follow, and how many are not yet issued.
  SmallVector<unsigned, 2> followers;
  unsigned pending = 0;
};

/// Whether a copy with `footprint` may move among the copies around it: its
/// accesses are known slots, and it writes no argument (host memory that
/// another copy may read).
bool mayMove(const OpFootprint &footprint) {
  return !footprint.unknown && !footprint.device.slots.isUnknown() &&
         !footprint.device.anyHostWrite && footprint.device.hostWrites.empty();
}

/// Orders `segment` (copies that may move, one after another) by need,
/// moving their ops before `end`. Returns how many changed place.
unsigned orderSegment(MutableArrayRef<RunCopy> segment, Operation *end) {
  // What each must follow: the last earlier copy that wrote a slot it
  // touches, and the copies that read a slot it writes since that slot's
  // last write.
  llvm::DenseMap<unsigned, unsigned> lastWriter;
  llvm::DenseMap<unsigned, SmallVector<unsigned, 2>> readersSinceWrite;
  for (unsigned i = 0; i < segment.size(); ++i) {
    const AccessSummary &slots = segment[i].footprint.device.slots;
    SmallVector<unsigned, 4> before;
    for (unsigned slot : slots.getReads())
      if (auto writer = lastWriter.find(slot); writer != lastWriter.end())
        before.push_back(writer->second);
    for (unsigned slot : slots.getWrites()) {
      if (auto writer = lastWriter.find(slot); writer != lastWriter.end())
        before.push_back(writer->second);
      llvm::append_range(before, readersSinceWrite[slot]);
    }
    llvm::sort(before);
    before.erase(std::unique(before.begin(), before.end()), before.end());
    for (unsigned earlier : before)
      if (earlier != i) {
        segment[earlier].followers.push_back(i);
        ++segment[i].pending;
      }
    for (unsigned slot : slots.getWrites()) {
      lastWriter[slot] = i;
      readersSinceWrite[slot].clear();
    }
    for (unsigned slot : slots.getReads())
      if (!slots.mayWrite(slot))
        readersSinceWrite[slot].push_back(i);
  }
  // Issue the copy needed first among those free to go; ties in input
  // order.
  using Entry = std::pair<unsigned, unsigned>; // (neededAt, index)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (unsigned i = 0; i < segment.size(); ++i)
    if (segment[i].pending == 0)
      ready.push({segment[i].neededAt, i});
  unsigned moved = 0, position = 0;
  while (!ready.empty()) {
    unsigned i = ready.top().second;
    ready.pop();
    moved += i != position++;
    segment[i].op->moveBefore(end);
    for (unsigned follower : segment[i].followers)
      if (--segment[follower].pending == 0)
        ready.push({segment[follower].neededAt, follower});
  }
  return moved;
}

/// Whether copies may move past `op`: it has no regions and touches no
/// buffer (a view, index arithmetic), or it makes a new device buffer,
/// which no earlier copy can touch.
bool isTransparent(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isa<AllocOp>(op) || isMemoryEffectFree(op));
}

/// Orders one run of consecutive copies whose first consumers are known,
/// moving them before `end` (the op after the run).
unsigned orderRun(MutableArrayRef<RunCopy> run, Operation *end) {
  // Copies that may not move split the run.
  unsigned moved = 0, start = 0;
  for (unsigned i = 0; i <= run.size(); ++i) {
    if (i != run.size() && mayMove(run[i].footprint))
      continue;
    if (i - start >= 2)
      moved += orderSegment(run.slice(start, i - start),
                            i == run.size() ? end : run[i].op);
    start = i + 1;
  }
  return moved;
}

/// Orders the runs of consecutive copies of `block`. One walk from the
/// block's end finds, for each run, where each slot is next used after it.
unsigned orderBlock(Block &block, OpFootprintCache &footprints) {
  SmallVector<Operation *> ops = llvm::map_to_vector(
      block, [](Operation &op) { return &op; });
  // The runs, as [first, last] positions, in order: copies, with ops that
  // touch no buffer between them (the views a copy reads, allocations).
  // The copies move to the run's end, after those ops, which keeps every
  // operand defined before its use.
  SmallVector<std::pair<unsigned, unsigned>> runs;
  for (unsigned i = 0; i < ops.size(); ++i) {
    if (!isa<CopyH2DOp>(ops[i]))
      continue;
    unsigned last = i, copies = 1;
    for (unsigned next = i + 1; next < ops.size(); ++next) {
      if (isa<CopyH2DOp>(ops[next])) {
        last = next;
        ++copies;
        continue;
      }
      if (!isTransparent(ops[next]))
        break;
    }
    // A run needs an op after it to be moved before.
    if (copies > 1 && last + 1 < ops.size())
      runs.push_back({i, last});
    i = last;
  }
  if (runs.empty())
    return 0;
  // Walking back: the next use of each slot, and the next op that may touch
  // every slot (an op of unknown effect, the terminator).
  llvm::DenseMap<unsigned, unsigned> nextUse;
  unsigned nextEverything = UINT_MAX;
  SmallVector<SmallVector<RunCopy, 0>> ordered(runs.size());
  unsigned run = runs.size();
  for (unsigned i = ops.size(); i-- > 0;) {
    if (run != 0 && runs[run - 1].second == i) {
      --run;
      auto [first, last] = runs[run];
      for (unsigned k = first; k <= last; ++k) {
        if (!isa<CopyH2DOp>(ops[k]))
          continue;
        RunCopy copy{ops[k], footprints.get(ops[k])};
        copy.neededAt = nextEverything;
        for (unsigned slot : copy.footprint.device.slots.getWrites())
          if (auto next = nextUse.find(slot); next != nextUse.end())
            copy.neededAt = std::min(copy.neededAt, next->second);
        ordered[run].push_back(std::move(copy));
      }
    }
    OpFootprint footprint = footprints.get(ops[i]);
    if (footprint.unknown || footprint.device.slots.isUnknown() ||
        footprint.host.slots.isUnknown() ||
        ops[i]->hasTrait<OpTrait::IsTerminator>()) {
      nextEverything = i;
      continue;
    }
    for (const AccessSummary *slots :
         {&footprint.device.slots, &footprint.host.slots}) {
      for (unsigned slot : slots->getReads())
        nextUse[slot] = i;
      for (unsigned slot : slots->getWrites())
        nextUse[slot] = i;
    }
  }
  unsigned moved = 0;
  for (unsigned r = 0; r < runs.size(); ++r)
    moved += orderRun(ordered[r], ops[runs[r].second + 1]);
  return moved;
}

} // namespace

unsigned overlap::orderCopiesByNeed(FunctionOpInterface function,
                                    const SlotAccessAnalysis &slots) {
  OpFootprintCache footprints(slots);
  unsigned moved = 0;
  for (Block *block : getHostBlocks(function))
    moved += orderBlock(*block, footprints);
  return moved;
}
