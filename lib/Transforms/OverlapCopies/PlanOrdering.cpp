//===- PlanOrdering.cpp - Where later ops wait for the copies ----*- C++ -*-===//
//
// Step 2 of planning --overlap-copies, block by block in the order the plan
// leaves the block in: each op that conflicts with a copy still in flight
// waits for its token, on the device (vyre.wait) when the op is device work
// and on the host (vyre.sync) when the host touches the memory; the verdict
// API decides and names each conflict. Tokens still open at the end of a
// block are joined there.
//
//===----------------------------------------------------------------------===//

#include "OpenCopies.h"
#include "PlanContext.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/OpFootprint.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

namespace {

/// Plans the waits of one function.
class OrderingPlanner {
public:
  explicit OrderingPlanner(PlanContext &context)
      : context(context), plan(context.plan), slots(context.slots) {}

  unsigned planBlock(Block &block, const MainStreamInFlight &inFlight,
                     const OpenCopies *parent);

private:
  void startCopiesAfter(Block &block, Operation *anchor, OpenCopies &open);
  void startTracking(PlannedCopy *copy, OpenCopies &open);
  void orderForeignCopy(Operation *foreign, OpenCopies &open);
  void noteFirstWait(PlannedCopy *copy, PlanOp waiter, OrderReason reason);
  unsigned kernelsIssuedSince(const PlannedCopy *copy) const;
  void orderBefore(Operation *op, const OpFootprint &footprint,
                   const AccessSummary &leftInFlight, OpenCopies &open);
  const AccessSummary &mainStreamSlots(Operation *op);
  bool isSyncedByEndOfBlock(Operation &op);
  void planMainStreamSync(Block *block, Operation *before, Location loc);
  void mainStreamDone(OpenCopies &open, bool hostWaits = true);
  static void hostWaitedForKernels(OpenCopies &open, unsigned kernels);
  void noteKernelsOverlappedBefore(PlannedCopy *copy, const OpenCopies &open);
  unsigned kernelsAfter(const OpenCopies &open, Operation *anchor);
  bool earlierKernelsAfter(const OpenCopies &open, Block *recordBlock,
                           Operation *anchor);
  SmallVector<unsigned> minimalCopies(ArrayRef<PlannedCopy *> copies);
  void markDeviceCovered(PlannedCopy *copy, unsigned wait);
  void markHostCovered(PlannedCopy *copy);
  std::optional<unsigned> synchronize(Block &block, Operation *op,
                                      ArrayRef<PlannedCopy *> copies,
                                      bool includeWaited);
  void joinAtEnd(Block &block, Operation *terminator, OpenCopies &open);
  void joinAtEndOfDeviceLoop(Block &block, Operation *terminator,
                             ArrayRef<PlannedCopy *> pending,
                             OpenCopies &open);

  PlanContext &context;
  CopyPlan &plan;
  const SlotAccessAnalysis &slots;
  /// Planned waits after which a vyre.record is planned.
  DenseSet<unsigned> recordAfterWait;
  /// What each loop or branch leaves on the main stream (mainStreamSlots).
  DenseMap<Operation *, AccessSummary> mainStreamSlotsOf;
  /// The open copies of the innermost block being planned.
  const OpenCopies *current = nullptr;
  /// Device-only loops directly in the function's body after which the host
  /// does not wait for the main stream at once, only before a host op that
  /// may touch what they touch (joinAtEndOfDeviceLoop).
  DenseSet<Operation *> loopsLeftRunning;
  /// Whether each block looked at is device-only (isDeviceOnlyBlock).
  DenseMap<Block *, bool> deviceOnlyBlocks;
  bool isDeviceOnlyBlock(Block &block);
  bool isInDeviceOnlyLoop(Block &block);
};

} // namespace

/// Whether `op` may launch kernels that its footprint does not count: a call
/// the host does not wait before (one of unknown effect synchronizes the
/// copies in flight before it), or a `gpu.launch_func` written in the host
/// code. Each counts as one kernel among those a copy may run beside.
static bool mayLaunchUncountedKernels(Operation *op,
                                      const OpFootprint &footprint) {
  return (isa<CallOpInterface>(op) && !footprint.unknown) ||
         isa<gpu::LaunchFuncOp>(op);
}

/// Whether `access` may conflict with what a device-only loop left running
/// (without the host waiting after it) touches.
static bool loopsMayConflict(const SideAccess &access, const OpenCopies &open);

/// Plans the waits of `block`; returns how many kernels its calls and
/// written launches (and those of the blocks nested in it) count for.
unsigned OrderingPlanner::planBlock(Block &block,
                                    const MainStreamInFlight &inFlight,
                                    const OpenCopies *parent) {
  OpenCopies open(context.hostAliasing);
  open.mainInFlight = inFlight;
  open.block = &block;
  open.parent = parent;
  const OpenCopies *outer = current;
  current = &open;
  // Kernels may be running when the block starts: those issued before its
  // op, and, in a loop, an earlier iteration's. (A block after a function's
  // entry block may start with anything running.)
  if (parent) {
    Operation *op = block.getParentOp();
    open.repeatsKernels =
        !isa<scf::IfOp>(op) && context.footprints.get(op).numKernels != 0;
    open.earlierKernelsInFlight = parent->earlierKernelsInFlight ||
                                  parent->kernels > parent->kernelsDone ||
                                  open.repeatsKernels;
  } else {
    open.earlierKernelsInFlight = !block.isEntryBlock();
  }
  bool joined = false;
  unsigned launchedByCalls = 0;
  startCopiesAfter(block, nullptr, open);
  for (Operation &op : block) {
    ++context.steps;
    open.kernelsBeforeOp[&op] = open.kernels;
    if (context.replaced.contains(&op)) {
      open.kernelsAfterOp[&op] = open.kernels;
      continue;
    }
    // Device code gets no host waits: the op as a whole waits before it.
    bool hostWaitsAfterOp = false;
    unsigned nestedCallKernels = 0;
    if (op.getNumRegions() != 0 && !hasDeviceCodeRegions(&op)) {
      MainStreamInFlight nestedInFlight(&open.mainInFlight,
                                        mainStreamSlots(&op));
      size_t insertionsBefore = plan.insertions.size();
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          nestedCallKernels += planBlock(nested, nestedInFlight, &open);
      // A device-only loop ends with the host waiting for the main stream,
      // right after the op.
      hostWaitsAfterOp = llvm::any_of(
          llvm::drop_begin(plan.insertions, insertionsBefore),
          [&](const PlannedInsertion &insertion) {
            return insertion.kind == PlannedInsertion::Kind::MainStreamSync &&
                   insertion.block == &block;
          });
    }
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      joinAtEnd(block, &op, open);
      joined = true;
      continue;
    }
    if (isa<CopyH2DAsyncOp, CopyD2HAsyncOp>(op)) {
      // An async copy written in the input waits for no token of a loop
      // left running: the host waits for the main stream first where it
      // may touch what the loop touches.
      if (loopsMayConflict(context.footprints.get(&op).device, open)) {
        planMainStreamSync(op.getBlock(), &op, op.getLoc());
        mainStreamDone(open);
      }
      orderForeignCopy(&op, open);
    } else {
      OpFootprint footprint = context.footprints.get(&op);
      if (!footprint.isEmpty())
        orderBefore(&op, footprint,
                    op.getNumRegions() != 0 ? mainStreamSlots(&op)
                                            : footprint.device.slots,
                    open);
      if (loopsLeftRunning.contains(&op)) {
        open.loopsInFlight.merge(footprint.device);
        open.mainInFlight.merge(footprint.device.slots);
      }
      unsigned byCalls =
          nestedCallKernels + mayLaunchUncountedKernels(&op, footprint);
      launchedByCalls += byCalls;
      open.kernels += footprint.numKernels + byCalls;
    }
    open.kernelsAfterOp[&op] = open.kernels;
    startCopiesAfter(block, &op, open);
    // The host waits for the main stream after the copies placed right
    // after the op, before the next op.
    if (hostWaitsAfterOp)
      hostWaitedForKernels(open, open.kernels);
  }
  if (!joined)
    joinAtEnd(block, nullptr, open);
  context.steps += open.steps + open.all.size();
  current = outer;
  return launchedByCalls;
}

void OrderingPlanner::startCopiesAfter(Block &block, Operation *anchor,
                                       OpenCopies &open) {
  auto it = context.copiesAfter.find({&block, anchor});
  if (it == context.copiesAfter.end())
    return;
  for (unsigned index : it->second)
    startTracking(&plan.copies[index], open);
}

void OrderingPlanner::startTracking(PlannedCopy *copy, OpenCopies &open) {
  copy->kernelsBefore = open.kernels;
  noteKernelsOverlappedBefore(copy, open);
  // A copy into the host runs on its own stream, which a main-stream wait
  // does not order: it depends on the open copies it conflicts with.
  if (copy->toHost) {
    Orders orders;
    open.collectSlotConflicts(copy->summarize(), /*onHost=*/false, orders);
    for (unsigned prior : minimalCopies(orders.wait.getArrayRef())) {
      PlannedDependency dependency{PlannedDependency::Kind::Copy, prior,
                                   Value(), nullptr};
      if (!llvm::is_contained(copy->dependencies, dependency))
        copy->dependencies.push_back(dependency);
    }
  }
  for (const PlannedDependency &dependency : copy->dependencies) {
    if (dependency.kind != PlannedDependency::Kind::Copy)
      continue;
    PlannedCopy *prior = &plan.copies[dependency.copy];
    if (prior->deviceCovered)
      continue;
    copy->implies.push_back(dependency.copy);
    Concurrency verdict =
        canRunConcurrently(prior->summarize(), copy->summarize());
    noteFirstWait(
        prior, {nullptr, copy->id},
        OrderReason::of(verdict.reason.value_or(HazardKind::WriteWrite)));
    // A later copy into the same slots implies this one for later readers
    // of them; a copy into the host does not write them.
    if (!copy->toHost && !prior->toHost)
      prior->subsumed = llvm::all_of(prior->slots, [&](unsigned slot) {
        return llvm::is_contained(copy->slots, slot);
      });
  }
  open.track(copy);
}

/// An async copy the input already had (either direction) runs on a side
/// stream, which a main-stream wait does not order: it takes the tokens of
/// the open copies it conflicts with as dependencies instead (those into
/// the slots it reads or writes, and those reading or writing the host
/// buffer it touches).
void OrderingPlanner::orderForeignCopy(Operation *foreign, OpenCopies &open) {
  OpFootprint footprint = context.footprints.get(foreign);
  Orders orders;
  open.collectSlotConflicts(footprint.device.slots, /*onHost=*/false, orders);
  open.collectHostConflicts(footprint.device, /*onHost=*/false,
                            /*everything=*/false, orders);
  open.collectHostWriterConflicts(footprint.device, /*onHost=*/false,
                                  /*everything=*/false, orders);
  SmallVector<unsigned> copies = minimalCopies(orders.wait.getArrayRef());
  if (!copies.empty())
    plan.foreignDependencies.push_back({foreign, std::move(copies)});
}

void OrderingPlanner::noteFirstWait(PlannedCopy *copy, PlanOp waiter,
                                    OrderReason reason) {
  if (copy->firstWaiter)
    return;
  copy->firstWaiter = waiter;
  copy->waitReason = reason;
}

/// The kernels issued since `copy` was, on the path through the blocks
/// being planned: those of its block after it, and those of the blocks
/// nested in it so far. A later copy that depends on it does not hold the
/// main stream: the kernels it may run beside are counted up to the point
/// where the main stream, or the host, first waits for it.
unsigned OrderingPlanner::kernelsIssuedSince(const PlannedCopy *copy) const {
  unsigned nested = 0;
  for (const OpenCopies *level = current; level; level = level->parent) {
    if (level->block == copy->block)
      return nested + level->kernels -
             std::min(copy->kernelsBefore, level->kernels);
    nested += level->kernels;
  }
  return nested;
}

/// How many kernels of `open`'s block, issued so far, run after the main
/// stream passes `anchor` (null: the block's start) of that block, and the
/// host has not waited for.
unsigned OrderingPlanner::kernelsAfter(const OpenCopies &open,
                                       Operation *anchor) {
  unsigned ordered = open.kernelsDone;
  if (anchor) {
    auto known = open.kernelsAfterOp.find(anchor);
    ordered =
        std::max(ordered, known == open.kernelsAfterOp.end() ? open.kernels
                                                             : known->second);
  }
  return open.kernels - std::min(ordered, open.kernels);
}

/// Whether kernels issued before `open`'s block may run after the main
/// stream passes `anchor` in `recordBlock`, a block around it: those of the
/// blocks in between, an earlier iteration of a loop in between, and those
/// `recordBlock` issued after the anchor.
bool OrderingPlanner::earlierKernelsAfter(const OpenCopies &open,
                                          Block *recordBlock,
                                          Operation *anchor) {
  for (const OpenCopies *level = &open; level->parent; level = level->parent) {
    if (!level->earlierKernelsInFlight)
      return false;
    if (level->repeatsKernels)
      return true;
    const OpenCopies &around = *level->parent;
    if (around.block == recordBlock)
      return kernelsAfter(around, anchor) != 0;
    if (around.kernels > around.kernelsDone)
      return true;
  }
  // The record's block was not found around the copy: it may overlap.
  return true;
}

/// The kernels issued before `copy` that it may run beside: those the host
/// has not waited for, after the main-stream points the copy's records make
/// it wait for. A record in its own block orders it after the kernels up to
/// its anchor, and every kernel before the block; one in a block around it
/// (a copy in a branch) after that block's kernels up to its anchor.
void OrderingPlanner::noteKernelsOverlappedBefore(PlannedCopy *copy,
                                                  const OpenCopies &open) {
  unsigned before = kernelsAfter(open, nullptr);
  bool earlier = open.earlierKernelsInFlight;
  for (const PlannedDependency &dependency : copy->dependencies) {
    if (dependency.kind != PlannedDependency::Kind::Record)
      continue;
    if (!dependency.recordBlock || dependency.recordBlock == open.block) {
      before = std::min(before, kernelsAfter(open, dependency.recordAnchor));
      earlier = false;
    } else {
      earlier = earlier && earlierKernelsAfter(open, dependency.recordBlock,
                                               dependency.recordAnchor);
    }
  }
  copy->kernelsOverlappedBefore = before;
  copy->overlapsEarlierKernels = earlier;
}

/// Whether a device-only loop was left running without the host waiting
/// after it (joinAtEndOfDeviceLoop).
static bool hasLoopsRunning(const OpenCopies &open) {
  const SideAccess &loops = open.loopsInFlight;
  return loops.slots.isUnknown() || !loops.slots.isEmpty() ||
         loops.mayReadHost() || loops.mayWriteHost();
}

static bool loopsMayConflict(const SideAccess &access, const OpenCopies &open) {
  return hasLoopsRunning(open) &&
         sidesMayConflict(access, open.loopsInFlight, open.getHostAliasing());
}

/// Whether a host op with `footprint` may touch what the main stream is still
/// working on: an op of unknown effect, a host access to a busy slot, or one
/// that may conflict with what a device-only loop left running touches.
static bool touchesMainWork(const OpFootprint &footprint,
                            const OpenCopies &open) {
  const MainStreamInFlight &mainInFlight = open.mainInFlight;
  if (mainInFlight.isEmpty() && !hasLoopsRunning(open))
    return false;
  auto busy = [&](unsigned slot) { return mainInFlight.mayAccess(slot); };
  return footprint.unknown || loopsMayConflict(footprint.host, open) ||
         llvm::any_of(footprint.host.slots.getReads(), busy) ||
         llvm::any_of(footprint.host.slots.getWrites(), busy);
}

void OrderingPlanner::orderBefore(Operation *op, const OpFootprint &footprint,
                                  const AccessSummary &leftInFlight,
                                  OpenCopies &open) {
  Orders orders;
  open.collectSlotConflicts(footprint.device.slots, /*onHost=*/false, orders);
  open.collectHostConflicts(footprint.device, /*onHost=*/false,
                            /*everything=*/false, orders);
  open.collectSlotConflicts(footprint.host.slots, /*onHost=*/true, orders);
  open.collectHostConflicts(footprint.host, /*onHost=*/true,
                            footprint.unknown, orders);
  open.collectHostWriterConflicts(footprint.device, /*onHost=*/false,
                                  /*everything=*/false, orders);
  open.collectHostWriterConflicts(footprint.host, /*onHost=*/true,
                                  footprint.unknown, orders);
  if (footprint.unknown)
    for (PlannedCopy *copy : open.notDoneForHost())
      orders.add(copy, /*onHost=*/true,
                 OrderReason::of(HazardKind::UnknownAccess));
  for (PlannedCopy *copy : orders.sync)
    orders.wait.remove(copy);

  if (!orders.sync.empty()) {
    // Waiting on a record after a main-stream wait, the host also waits for
    // the kernels before that wait.
    std::optional<unsigned> hostWaitedAfter = synchronize(
        *op->getBlock(), op, orders.sync.getArrayRef(), /*includeWaited=*/true);
    if (hostWaitedAfter)
      if (Operation *before = plan.insertions[*hostWaitedAfter].before)
        if (Operation *ancestor =
                op->getBlock()->findAncestorOpInBlock(*before))
          hostWaitedForKernels(open, open.kernelsBeforeOp.lookup(ancestor));
  }
  if (!orders.wait.empty()) {
    unsigned wait = plan.insertions.size();
    plan.insertions.push_back({PlannedInsertion::Kind::Wait, op->getBlock(),
                               nullptr, op, 0,
                               minimalCopies(orders.wait.getArrayRef()),
                               std::nullopt, op->getLoc()});
    for (PlannedCopy *copy : orders.wait)
      markDeviceCovered(copy, wait);
  }
  for (auto &[copy, reason] : orders.reasons)
    noteFirstWait(copy, {op, std::nullopt}, reason);

  // Kernels run beside the host: a host op that may touch what the main
  // stream is still working on first waits for the main stream.
  if (touchesMainWork(footprint, open)) {
    planMainStreamSync(op->getBlock(), op, op->getLoc());
    mainStreamDone(open);
  }
  // A synchronous copy returns to the host once the main stream is done.
  auto streamOp = dyn_cast<StreamOpInterface>(op);
  if (streamOp && streamOp.getStreamIndex() && streamOp.blocksHost())
    mainStreamDone(open, /*hostWaits=*/context.inPlaceCopiesBlockHost ||
                             !isa<CopyH2DOp, CopyD2HOp>(op));
  else
    open.mainInFlight.merge(leftInFlight);
}


/// Whether `op` is a copy moved off the main stream that the host waits for
/// before the end of its block if that block is not in a device-only loop
/// (joinAtEnd): a copy to the host, or a copy from a host buffer the
/// function may write.
bool OrderingPlanner::isSyncedByEndOfBlock(Operation &op) {
  if (!context.replaced.contains(&op))
    return false;
  if (isa<CopyD2HOp>(op))
    return true;
  auto copy = dyn_cast<CopyH2DOp>(op);
  return copy && context.mayBeWrittenInFunction(
                     SlotAccessAnalysis::resolveRoot(copy.getSource()));
}

/// The slots the loop or branch `op` may leave busy on the main stream: its
/// ops' device footprint, without the copies moved off the main stream that
/// the host waits for before their block ends (isSyncedByEndOfBlock), in
/// blocks outside device-only loops: none of them is in flight after `op`,
/// nor at the start of the next iteration. Counting them made a host op
/// that touches such a copy's host buffer (a read of a loss copied back, an
/// exchange call that writes the buffer the next halo comes from) wait for
/// the whole main stream, kernels that have nothing to do with it included,
/// after the copy's own wait.
const AccessSummary &OrderingPlanner::mainStreamSlots(Operation *op) {
  if (auto known = mainStreamSlotsOf.find(op); known != mainStreamSlotsOf.end())
    return known->second;
  AccessSummary slots;
  if (!isa<scf::ForOp, scf::IfOp>(op)) {
    slots = context.footprints.get(op).device.slots;
  } else {
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        // Asked only of blocks with such a copy: it walks the block.
        std::optional<bool> hostWaitsAtEnd;
        AccessSummary blockSlots;
        for (Operation &nested : block) {
          ++context.steps;
          // A copy left in place returns to the host once the main stream
          // is done with it and everything before it.
          if (isa<CopyH2DOp, CopyD2HOp>(nested) &&
              !context.replaced.contains(&nested)) {
            blockSlots = AccessSummary();
            continue;
          }
          if (isSyncedByEndOfBlock(nested)) {
            if (!hostWaitsAtEnd)
              hostWaitsAtEnd = !isInDeviceOnlyLoop(block);
            if (*hostWaitsAtEnd)
              continue;
          }
          if (nested.getNumRegions() != 0)
            blockSlots.merge(mainStreamSlots(&nested));
          else
            blockSlots.merge(context.footprints.get(&nested).device.slots);
        }
        slots.merge(blockSlots);
      }
  }
  return mainStreamSlotsOf[op] = std::move(slots);
}

/// Plans a wait of the host for the main stream before `before`, unless
/// the last insertion planned there is one already. (Insertions at one
/// point come in the order planned: a wait of the main stream planned
/// after a host wait is not covered by it.)
void OrderingPlanner::planMainStreamSync(Block *block, Operation *before,
                                         Location loc) {
  auto last = llvm::find_if(llvm::reverse(plan.insertions),
                            [&](const PlannedInsertion &insertion) {
                              return insertion.block == block &&
                                     insertion.before == before;
                            });
  bool planned = last != plan.insertions.rend() &&
                 last->kind == PlannedInsertion::Kind::MainStreamSync;
  if (!planned)
    plan.insertions.push_back({PlannedInsertion::Kind::MainStreamSync, block,
                               nullptr, before, 0, {}, std::nullopt, loc});
}

/// The host waits for the main stream (`hostWaits`), or is planned as if it
/// did (a copy left in place that async-in-place will make asynchronous).
void OrderingPlanner::mainStreamDone(OpenCopies &open, bool hostWaits) {
  open.mainInFlight.clear();
  open.loopsInFlight = SideAccess();
  if (hostWaits)
    hostWaitedForKernels(open, open.kernels);
  for (PlannedCopy *copy : open.notDoneForHost())
    if (copy->deviceCovered)
      markHostCovered(copy);
}

void OrderingPlanner::hostWaitedForKernels(OpenCopies &open, unsigned kernels) {
  open.kernelsDone = std::max(open.kernelsDone, kernels);
  open.earlierKernelsInFlight = false;
}

SmallVector<unsigned>
OrderingPlanner::minimalCopies(ArrayRef<PlannedCopy *> copies) {
  // Drop the copies another of them implies. The copies given are not yet
  // waited for; a copy that is implies only copies that are, and copies
  // imply earlier ones: the search stops at either, so that it looks at the
  // copies since the earliest given, not at every copy before it. (Stopping
  // early can only keep a copy another implies: one wait too many, never
  // one too few.)
  unsigned earliest = copies.empty() ? 0 : copies.front()->id;
  for (PlannedCopy *copy : copies)
    earliest = std::min(earliest, copy->id);
  llvm::SmallPtrSet<PlannedCopy *, 8> implied;
  SmallVector<PlannedCopy *> worklist;
  auto pushImplied = [&](PlannedCopy *copy) {
    for (unsigned prior : copy->implies) {
      PlannedCopy *priorCopy = &plan.copies[prior];
      if (priorCopy->id >= earliest && !priorCopy->deviceCovered)
        worklist.push_back(priorCopy);
    }
  };
  for (PlannedCopy *copy : copies)
    pushImplied(copy);
  context.steps += 1 + copies.size();
  while (!worklist.empty()) {
    ++context.steps;
    PlannedCopy *copy = worklist.pop_back_val();
    if (implied.insert(copy).second)
      pushImplied(copy);
  }
  SmallVector<unsigned> kept;
  for (PlannedCopy *copy : copies)
    if (!implied.contains(copy))
      kept.push_back(copy->id);
  llvm::sort(kept);
  return kept;
}

void OrderingPlanner::markDeviceCovered(PlannedCopy *copy, unsigned wait) {
  if (copy->deviceCovered)
    return;
  copy->deviceCovered = true;
  copy->kernelsOverlapped = kernelsIssuedSince(copy);
  copy->coveringWait = wait;
  for (unsigned prior : copy->implies)
    markDeviceCovered(&plan.copies[prior], wait);
}

void OrderingPlanner::markHostCovered(PlannedCopy *copy) {
  if (copy->hostCovered)
    return;
  if (!copy->deviceCovered)
    copy->kernelsOverlapped = kernelsIssuedSince(copy);
  copy->hostCovered = true;
  copy->deviceCovered = true;
  for (unsigned prior : copy->implies)
    markHostCovered(&plan.copies[prior]);
}

/// Plans one vyre.sync before `op` (null: the end of `block`) that orders the
/// host after `copies`. A copy the main stream already waited for is not
/// waited for again: the host synchronizes on a vyre.record after the latest
/// such wait instead (only if `includeWaited`); returns that wait.
std::optional<unsigned>
OrderingPlanner::synchronize(Block &block, Operation *op,
                             ArrayRef<PlannedCopy *> copies,
                             bool includeWaited) {
  SmallVector<PlannedCopy *> direct;
  std::optional<unsigned> latestWait;
  for (PlannedCopy *copy : copies) {
    if (!copy->deviceCovered) {
      direct.push_back(copy);
      continue;
    }
    if (!includeWaited || !copy->coveringWait)
      continue;
    unsigned wait = *copy->coveringWait;
    if (!latestWait || plan.insertions[*latestWait].before->isBeforeInBlock(
                           plan.insertions[wait].before))
      latestWait = wait;
  }
  SmallVector<unsigned> tokens = minimalCopies(direct);
  if (latestWait && recordAfterWait.insert(*latestWait).second)
    plan.insertions.push_back({PlannedInsertion::Kind::RecordAfterWait,
                               &block, nullptr, nullptr, 0, {}, latestWait,
                               plan.insertions[*latestWait].loc});
  if (!tokens.empty() || latestWait)
    plan.insertions.push_back(
        {PlannedInsertion::Kind::Sync, &block, nullptr, op, 0,
         std::move(tokens), latestWait,
         op ? op->getLoc() : plan.function.getLoc()});
  for (PlannedCopy *copy : copies)
    if (includeWaited || !copy->deviceCovered)
      markHostCovered(copy);
  return latestWait;
}

/// Whether the ops of `block`, besides vyre ops, neither touch memory nor
/// hold regions, except loops and branches whose blocks are the same:
/// nothing in it runs on the host that a copy could race with. Each block is
/// looked at once: the blocks of a body's many branches each ask about the
/// body.
bool OrderingPlanner::isDeviceOnlyBlock(Block &block) {
  if (auto known = deviceOnlyBlocks.find(&block);
      known != deviceOnlyBlocks.end())
    return known->second;
  bool deviceOnly = llvm::all_of(block, [&](Operation &op) {
    if (op.hasTrait<OpTrait::IsTerminator>() || isa<VyreDialect>(op.getDialect()))
      return true;
    if (isa<scf::ForOp, scf::IfOp>(op))
      return llvm::all_of(op.getRegions(), [&](Region &region) {
        return llvm::all_of(region,
                            [&](Block &nested) { return isDeviceOnlyBlock(nested); });
      });
    return op.getNumRegions() == 0 && isMemoryEffectFree(&op);
  });
  context.steps += block.getOperations().size();
  return deviceOnlyBlocks[&block] = deviceOnly;
}

/// Whether `block` is in a device-only loop: the body of an `scf.for`, or a
/// block of an `scf.if` in such a body, that holds nothing but vyre ops, ops
/// without memory effects, and loops and branches of the same kind.
bool OrderingPlanner::isInDeviceOnlyLoop(Block &block) {
  Operation *parent = block.getParentOp();
  if (!isa_and_nonnull<scf::ForOp, scf::IfOp>(parent) ||
      !isDeviceOnlyBlock(block))
    return false;
  return isa<scf::ForOp>(parent) ||
         (parent->getBlock() && isInDeviceOnlyLoop(*parent->getBlock()));
}

/// The end of a block in a device-only loop: the main stream, not the host,
/// waits for the copies still open, so that the next iteration starts
/// without the host waiting. The host waits for the main stream, which then
/// has waited for every iteration's copies, after the outermost device-only
/// loop around it: directly in the function's body, only before the first
/// host op that may touch what the loop touches (or at the return, which
/// waits for every stream), so that the copies and kernels after the loop
/// are issued while it runs; elsewhere, right after the loop.
void OrderingPlanner::joinAtEndOfDeviceLoop(Block &block, Operation *terminator,
                                            ArrayRef<PlannedCopy *> pending,
                                            OpenCopies &open) {
  SmallVector<PlannedCopy *> unwaited;
  for (PlannedCopy *copy : pending)
    if (!copy->deviceCovered)
      unwaited.push_back(copy);
  if (!unwaited.empty()) {
    for (PlannedCopy *copy : unwaited)
      noteFirstWait(copy, {terminator, std::nullopt},
                    OrderReason::of(OrderReason::Kind::EndOfBlock));
    unsigned wait = plan.insertions.size();
    plan.insertions.push_back({PlannedInsertion::Kind::Wait, &block, nullptr,
                               terminator, 0, minimalCopies(unwaited),
                               std::nullopt, terminator->getLoc()});
    for (PlannedCopy *copy : unwaited)
      markDeviceCovered(copy, wait);
  }
  Operation *loop = block.getParentOp();
  while (loop->getBlock() && isInDeviceOnlyLoop(*loop->getBlock()))
    loop = loop->getBlock()->getParentOp();
  // Only in a function of one block: a branch to another block leaves it
  // without the wait the return makes.
  Region &body = plan.function.getFunctionBody();
  if (body.hasOneBlock() && loop->getBlock() == &body.front())
    loopsLeftRunning.insert(loop);
  else
    planMainStreamSync(loop->getBlock(), loop->getNextNode(), loop->getLoc());
  for (PlannedCopy *copy : pending)
    markHostCovered(copy);
}

/// Plans the join of the copies still open at the end of `block`, before its
/// terminator (null: none).
void OrderingPlanner::joinAtEnd(Block &block, Operation *terminator,
                                OpenCopies &open) {
  SmallVector<PlannedCopy *> pending;
  bool needsHostOrder = false;
  bool returnsFromFunction = terminator &&
                             block.getParentOp() == plan.function &&
                             terminator->hasTrait<OpTrait::ReturnLike>();
  for (PlannedCopy *copy : open.all) {
    if (copy->hostCovered)
      continue;
    if (!copy->deviceCovered) {
      pending.push_back(copy);
      continue;
    }
    // The main stream waited for the copy. A return waits for the main
    // stream; elsewhere the host must order itself after the copy if the
    // function may write its host buffer later.
    if (!returnsFromFunction &&
        (copy->toHost || context.mayBeWrittenInFunction(copy->hostRoot))) {
      pending.push_back(copy);
      needsHostOrder = true;
    }
  }
  if (!pending.empty() && terminator && isInDeviceOnlyLoop(block))
    return joinAtEndOfDeviceLoop(block, terminator, pending, open);
  for (PlannedCopy *copy : pending)
    if (!copy->deviceCovered)
      noteFirstWait(copy, {terminator, std::nullopt},
                    OrderReason::of(OrderReason::Kind::EndOfBlock));
  if (!pending.empty())
    synchronize(block, terminator, pending, needsHostOrder);
}

void overlap::planOrdering(PlanContext &context) {
  OrderingPlanner planner(context);
  // A block after the entry block may start with the main stream busy.
  for (Block &block : context.plan.function.getFunctionBody())
    planner.planBlock(block,
                      MainStreamInFlight(block.isEntryBlock()
                                             ? AccessSummary()
                                             : AccessSummary::unknown()),
                      /*parent=*/nullptr);
}
