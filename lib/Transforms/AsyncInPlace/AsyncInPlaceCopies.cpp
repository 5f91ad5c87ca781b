//===- AsyncInPlaceCopies.cpp - Copies on the main stream, host goes on -*- C++ -*-===//
//
// Two steps. The first walks the host code, block by block, without changing
// it. A copy the host waited for covered, for the host, all the main-stream
// work before it (and the side-stream work the main stream had waited for):
// the ops after it may rely on that. So each such copy *covers* the work
// since the last one, and each later op that conflicts with covered work is
// noted as needing a host wait (host ops) or a dependency (copies on side
// streams, unless one of their dependencies already covers it) on the token
// of the copy that covered it. The second step rewrites the copies and
// places the waits, dependencies and the records they name.
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/AsyncInPlace/AsyncInPlaceCopies.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Analysis/ViewDisjointness.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr llvm::StringLiteral kRemarkCategory = "async-in-place";

/// A point of the main stream whose token the host may wait on: a copy made
/// asynchronous, or a record of the main stream's progress (just after an
/// op with regions that holds such copies, at the top of a block, or just
/// before an op, for upstream's rule).
struct PendingWork {
  /// The copy, or the op the record goes after or before, or the block it
  /// goes at the top of: exactly one is set.
  Operation *copy = nullptr;
  Operation *after = nullptr;
  Operation *before = nullptr;
  Block *atStartOf = nullptr;
  /// Its position among the entries of its block.
  unsigned position = 0;
  /// The token the host waits on: the rewritten copy's, or the record's.
  Value token;
  /// For a copy, the op the host first waits before, if in its block.
  Operation *firstHostWaiter = nullptr;
};

/// Where a rewrite goes: a wait before `op`, or a dependency of `op`, on
/// the token of `work`.
struct PlannedEdit {
  Operation *op;
  unsigned work;
};

/// Whether `access` touches nothing.
bool touchesNothing(const SideAccess &access) {
  return access.slots.isEmpty() && !access.mayReadHost() &&
         !access.mayWriteHost();
}

/// The main-stream work of one block, in program order, as entries: what an
/// op (or the work around the block) does on the device. An entry is
/// *covered* once a copy made asynchronous after it stood for it (the host
/// used to wait for that copy, and so for the entry); only covered entries
/// are looked up, through the latest covered entry that touches each slot
/// and host buffer. Entries before `retired` are done as far as the host
/// knows.
class PendingInBlock {
public:
  explicit PendingInBlock(HostBufferAliasing &aliasing) : aliasing(aliasing) {}

  /// Adds an entry; returns its position. `sideWork` is the copy on a side
  /// stream whose work the entry is, if any.
  /// `inPlaceCopy`: the copy the host waited for whose work the entry is.
  unsigned add(const SideAccess &access, Operation *sideWork = nullptr,
               Operation *inPlaceCopy = nullptr);
  /// Adds the first entry, the work around the block, which may touch many
  /// buffers: it is looked up as a whole, not indexed buffer by buffer (a
  /// block in each of many branches starts with one).
  unsigned addBase(const SideAccess &access) {
    assert(entries.empty() && "the base comes first");
    baseIsFirst = true;
    return add(access);
  }
  /// The entries not covered yet, up to `position`, are now covered by
  /// `work`.
  void cover(unsigned position, unsigned work);
  /// The position of the latest covered entry, not retired, that an access
  /// `other` (everything if `unknown`) conflicts with.
  std::optional<unsigned> latestConflict(const SideAccess &other,
                                         bool unknown);
  /// The same for a copy on a side stream, among the entries from `from`
  /// on: the work of a side-stream copy that `isDone` says its dependencies
  /// cover does not count. Looks at a bounded number of entries, then
  /// answers as `latestConflict` (which may only be later).
  /// `query` is the copy asking: an entry that is a copy touching only
  /// other bytes than it (ViewDisjointness.h) does not conflict.
  std::optional<unsigned>
  latestConflictAfter(const SideAccess &other, bool unknown, size_t from,
                      function_ref<bool(Operation *)> isDone,
                      Operation *query);
  /// The latest covered entry not retired, if any.
  std::optional<unsigned> latestCovered() const {
    if (covered > retired)
      return covered - 1;
    return std::nullopt;
  }
  /// The host has waited for the main stream's progress when it had
  /// `count` entries.
  void retireFirst(size_t count) {
    if (count > retired) {
      retired = count;
      dirty = true;
    }
  }
  size_t size() const { return entries.size(); }
  size_t firstNotRetired() const { return retired; }
  unsigned coveringWork(unsigned position) const {
    return entries[position].work;
  }
  /// What the covered entries not retired may touch, and what the entries
  /// not covered may.
  const SideAccess &coveredAccess() {
    refresh();
    return coveredUnion;
  }
  const SideAccess &uncoveredAccess() {
    refresh();
    return uncoveredUnion;
  }

private:
  struct Entry {
    SideAccess access;
    /// The work that covers it; none before it is covered.
    unsigned work = ~0u;
    Operation *sideWork = nullptr;
    Operation *inPlaceCopy = nullptr;
  };

  void keep(std::optional<unsigned> &latest, int position) const {
    if (position >= 0 && size_t(position) >= retired &&
        (!latest || unsigned(position) > *latest))
      latest = unsigned(position);
  }
  /// The latest position that touched each host buffer root; `open` lists
  /// the roots that are not allocations, the only ones that may alias
  /// another root.
  struct RootPositions {
    DenseMap<Value, int> all;
    SmallVector<Value> open;
    void set(Value root, int position) {
      auto [it, inserted] = all.try_emplace(root, position);
      if (!inserted)
        it->second = position;
      else if (HostBufferAliasing::getOrigin(root) !=
               HostBufferOrigin::Allocation)
        open.push_back(root);
    }
  };
  void keepFromRoots(std::optional<unsigned> &latest,
                     const RootPositions &roots, Value root);
  /// Keeps the base's position in `latest` where `other` conflicts with it,
  /// once covered.
  void keepFromBase(std::optional<unsigned> &latest, const SideAccess &other);
  void index(unsigned position);
  void refresh();

  HostBufferAliasing &aliasing;
  std::vector<Entry> entries;
  /// Entries before `covered` are covered (or retired).
  size_t covered = 0;
  size_t retired = 0;
  DenseMap<unsigned, int> slotRead, slotWrite;
  int anySlot = -1;
  RootPositions hostRead, hostWrite;
  int anyHostRead = -1, anyHostWrite = -1;
  /// Whether entry 0 is a base (addBase), and whether it is covered.
  bool baseIsFirst = false, baseIndexed = false;
  /// Unions over the entries, brought up to date when asked for (entries
  /// before `coveredMerged` and `uncoveredMerged` are in them), and made
  /// again after a retirement.
  SideAccess coveredUnion, uncoveredUnion;
  size_t coveredMerged = 0, uncoveredMerged = 0;
  bool dirty = false;
};

/// Plans the rewrite of one function.
class AsyncInPlacePlanner {
public:
  AsyncInPlacePlanner(FunctionOpInterface function,
                      const SlotAccessAnalysis &slots,
                      const AsyncInPlaceOptions &options)
      : function(function), options(options), aliasing(function),
        footprints(slots) {}

  /// Plans, then rewrites.
  AsyncInPlaceResult run();

private:
  /// Per side stream, how many of its copies (in walk order) a block's
  /// entries already count.
  using StreamCursors = DenseMap<int64_t, size_t>;
  /// The main-stream ops around a block whose tokens stand for all the
  /// covered work where the block starts: those the block around counted
  /// after its latest covered entry.
  struct CoveringOutside {
    const DenseMap<Operation *, size_t> *entriesBefore = nullptr;
    std::optional<unsigned> latestCovered;

    bool contains(Operation *producer) const {
      return entriesBefore && latestCovered &&
             entriesBefore->lookup(producer) > *latestCovered;
    }
  };
  void planBlock(Block &block, bool repeats, const SideAccess &covered,
                 const SideAccess &uncovered, StreamCursors cursors,
                 const CoveringOutside &coveringOutside,
                 SmallVectorImpl<Operation *> &awaitedOutside,
                 DenseSet<int64_t> &unjoinedStreams);
  void addSideWork(Operation *awaited, PendingInBlock &pending,
                   StreamCursors &cursors);
  void planBlockAsUpstream(Block &block);
  bool holdsInPlaceCopies(Operation &op);
  bool holdsInPlaceCopies(Block &block);
  SideAccess coveredInEarlierRun(Block &block);
  void waitBefore(Operation *op, PendingInBlock &pending, unsigned position);
  unsigned addWork(PendingWork work);
  Value materialize(PendingWork &work);
  void emitRemark(const PendingWork &work);

  FunctionOpInterface function;
  AsyncInPlaceOptions options;
  /// The function has no asynchronous op: as lowered, the host waits for
  /// the main stream before every host op that may touch memory. Then all
  /// the main stream's work is covered, not only what copies covered.
  bool sequential = false;
  HostBufferAliasing aliasing;
  OpFootprintCache footprints;
  std::vector<PendingWork> work;
  SmallVector<PlannedEdit> hostWaits, dependencies;
  /// Per op with regions: whether it holds a copy the host waits for.
  DenseMap<Operation *, bool> inPlaceCache;
  /// The copies on each side stream, in the order of the walk, and each
  /// one's place there.
  DenseMap<int64_t, std::vector<Operation *>> sideCopies;
  DenseMap<Operation *, size_t> sideOrder;
  /// What each copy on a side stream touches on the device, by its place in
  /// sideCopies: blocks that wait for a copy count those before it again.
  DenseMap<int64_t, std::vector<SideAccess>> sideCopyAccesses;
};

} // namespace

//===----------------------------------------------------------------------===//
// PendingInBlock
//===----------------------------------------------------------------------===//

unsigned PendingInBlock::add(const SideAccess &access, Operation *sideWork,
                             Operation *inPlaceCopy) {
  entries.push_back({access, ~0u, sideWork, inPlaceCopy});
  return entries.size() - 1;
}

void PendingInBlock::cover(unsigned position, unsigned work) {
  for (size_t i = std::max(covered, retired); i <= position; ++i) {
    entries[i].work = work;
    index(i);
  }
  covered = std::max<size_t>(covered, position + 1);
}

void PendingInBlock::index(unsigned position) {
  const SideAccess &access = entries[position].access;
  if (access.slots.isUnknown())
    anySlot = position;
  if (position == 0 && baseIsFirst) {
    baseIndexed = true;
    if (access.anyHostRead)
      anyHostRead = position;
    if (access.anyHostWrite)
      anyHostWrite = position;
    return;
  }
  for (unsigned slot : access.slots.getReads())
    slotRead[slot] = position;
  for (unsigned slot : access.slots.getWrites())
    slotWrite[slot] = position;
  for (Value root : access.hostReads)
    hostRead.set(root, position);
  for (Value root : access.hostWrites)
    hostWrite.set(root, position);
  if (access.anyHostRead)
    anyHostRead = position;
  if (access.anyHostWrite)
    anyHostWrite = position;
}

void PendingInBlock::refresh() {
  if (dirty) {
    dirty = false;
    coveredUnion = SideAccess();
    uncoveredUnion = SideAccess();
    coveredMerged = retired;
    uncoveredMerged = std::max(covered, retired);
  }
  for (coveredMerged = std::max(coveredMerged, retired);
       coveredMerged < covered; ++coveredMerged)
    coveredUnion.merge(entries[coveredMerged].access);
  // Entries covered since are no longer uncovered.
  if (uncoveredMerged < covered) {
    uncoveredUnion = SideAccess();
    uncoveredMerged = std::max(covered, retired);
  }
  for (; uncoveredMerged < entries.size(); ++uncoveredMerged)
    uncoveredUnion.merge(entries[uncoveredMerged].access);
}

void PendingInBlock::keepFromRoots(std::optional<unsigned> &latest,
                                   const RootPositions &roots, Value root) {
  if (auto it = roots.all.find(root); it != roots.all.end())
    keep(latest, it->second);
  // A root of unknown origin may alias any other; any other root may alias
  // only roots that are not allocations (two allocations are distinct).
  if (HostBufferAliasing::getOrigin(root) == HostBufferOrigin::Unknown) {
    for (auto &[other, position] : roots.all)
      if (other != root && size_t(position) >= retired &&
          aliasing.mayAlias(other, root))
        keep(latest, position);
    return;
  }
  for (Value other : roots.open) {
    int position = roots.all.lookup(other);
    if (other != root && size_t(position) >= retired &&
        aliasing.mayAlias(other, root))
      keep(latest, position);
  }
}

std::optional<unsigned>
PendingInBlock::latestConflict(const SideAccess &other, bool unknown) {
  std::optional<unsigned> latest;
  if (unknown)
    return latestCovered();
  // Slots: a read conflicts with writes; a write with any access.
  if (other.slots.isUnknown()) {
    for (auto &[slot, position] : slotRead)
      keep(latest, position);
    for (auto &[slot, position] : slotWrite)
      keep(latest, position);
    keep(latest, anySlot);
  } else {
    if (!other.slots.isEmpty())
      keep(latest, anySlot);
    for (unsigned slot : other.slots.getReads())
      if (auto it = slotWrite.find(slot); it != slotWrite.end())
        keep(latest, it->second);
    for (unsigned slot : other.slots.getWrites()) {
      if (auto it = slotWrite.find(slot); it != slotWrite.end())
        keep(latest, it->second);
      if (auto it = slotRead.find(slot); it != slotRead.end())
        keep(latest, it->second);
    }
  }
  // Host buffers, through every root that may alias.
  if (other.mayReadHost())
    keep(latest, anyHostWrite);
  if (other.mayWriteHost()) {
    keep(latest, anyHostWrite);
    keep(latest, anyHostRead);
  }
  if (other.anyHostRead)
    for (auto &[root, position] : hostWrite.all)
      keep(latest, position);
  if (other.anyHostWrite) {
    for (auto &[root, position] : hostWrite.all)
      keep(latest, position);
    for (auto &[root, position] : hostRead.all)
      keep(latest, position);
  }
  for (Value root : other.hostReads)
    keepFromRoots(latest, hostWrite, root);
  for (Value root : other.hostWrites) {
    keepFromRoots(latest, hostWrite, root);
    keepFromRoots(latest, hostRead, root);
  }
  keepFromBase(latest, other);
  return latest;
}

void PendingInBlock::keepFromBase(std::optional<unsigned> &latest,
                                  const SideAccess &other) {
  // Any other entry touching the same buffer is later.
  if (!baseIndexed || retired > 0 || latest)
    return;
  const SideAccess &base = entries[0].access;
  // Slots (an unknown base is anySlot): a read conflicts with writes; a
  // write with any access.
  bool conflicts =
      !base.slots.isUnknown() && !base.slots.isEmpty() &&
      (other.slots.isUnknown() ||
       llvm::any_of(other.slots.getReads(),
                    [&](unsigned slot) { return base.slots.mayWrite(slot); }) ||
       llvm::any_of(other.slots.getWrites(), [&](unsigned slot) {
         return base.slots.mayWrite(slot) || base.slots.mayRead(slot);
       }));
  // Host buffers, through every root that may alias.
  auto meets = [&](const SetVector<Value> &roots, Value root) {
    return llvm::any_of(roots, [&](Value each) {
      return each == root || aliasing.mayAlias(each, root);
    });
  };
  conflicts =
      conflicts ||
      ((other.anyHostRead || other.anyHostWrite) && !base.hostWrites.empty()) ||
      (other.anyHostWrite && !base.hostReads.empty()) ||
      llvm::any_of(other.hostReads,
                   [&](Value root) { return meets(base.hostWrites, root); }) ||
      llvm::any_of(other.hostWrites, [&](Value root) {
        return meets(base.hostWrites, root) || meets(base.hostReads, root);
      });
  if (conflicts)
    keep(latest, 0);
}

std::optional<unsigned> PendingInBlock::latestConflictAfter(
    const SideAccess &other, bool unknown, size_t from,
    function_ref<bool(Operation *)> isDone, Operation *query) {
  constexpr size_t kMaxScanned = 64;
  size_t stop = std::max(from, retired);
  // The latest conflict at all bounds where the scan starts.
  std::optional<unsigned> any = latestConflict(other, unknown);
  if (!any || *any < stop)
    return std::nullopt;
  size_t scanned = 0;
  for (size_t i = *any + 1; i > stop; --i) {
    const Entry &entry = entries[i - 1];
    if (++scanned > kMaxScanned)
      return any;
    if (entry.sideWork && isDone(entry.sideWork))
      continue;
    // The copy the entry is (in place, or on a side stream) may touch only
    // other bytes than the query.
    Operation *copy = entry.inPlaceCopy ? entry.inPlaceCopy : entry.sideWork;
    if (unknown ||
        (sidesMayConflict(entry.access, other, aliasing) &&
         !(copy && copiesTouchOnlyDisjointBytes(copy, query, aliasing))))
      return unsigned(i - 1);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

/// The copies the host waits for as they are issued.
static bool isInPlaceCopy(Operation *op) {
  return isa<CopyH2DOp, CopyD2HOp>(op);
}

/// Whether a region of `op` may run more than once per run of `op`.
static bool regionRepeats(Operation *op, unsigned index) {
  if (auto branch = dyn_cast<RegionBranchOpInterface>(op))
    return branch.isRepetitiveRegion(index);
  return true;
}

/// Whether `op` is a copy on a side stream.
static bool isOnSideStream(Operation *op) {
  auto streamOp = dyn_cast<StreamOpInterface>(op);
  return streamOp && streamOp.getStreamIndex().value_or(0) > 0;
}

unsigned AsyncInPlacePlanner::addWork(PendingWork entry) {
  work.push_back(std::move(entry));
  return work.size() - 1;
}

/// Whether `op`'s regions hold a copy the host waits for.
bool AsyncInPlacePlanner::holdsInPlaceCopies(Operation &op) {
  if (op.getNumRegions() == 0 || hasDeviceCodeRegions(&op))
    return false;
  auto it = inPlaceCache.find(&op);
  if (it != inPlaceCache.end())
    return it->second;
  bool holds = false;
  for (Region &region : op.getRegions())
    for (Block &block : region)
      holds = holds || holdsInPlaceCopies(block);
  return inPlaceCache[&op] = holds;
}

bool AsyncInPlacePlanner::holdsInPlaceCopies(Block &block) {
  return llvm::any_of(block, [&](Operation &op) {
    return isInPlaceCopy(&op) || holdsInPlaceCopies(op);
  });
}

/// The ops of `block` whose device work is done by the end of a run of it,
/// as the block's own host waits say: those the host waited for directly
/// (a `vyre.sync` on their token), and, before the last `vyre.record` a
/// `vyre.sync` of the block awaits, the main stream's ops and the copies the
/// main stream waited for (`vyre.wait`) there.
static DenseSet<Operation *> doneByEndOfRun(Block &block) {
  DenseSet<Operation *> done;
  Operation *waitedUpTo = nullptr;
  for (Operation &op : block)
    if (auto sync = dyn_cast<SyncOp>(op))
      for (Value token : sync.getTokens()) {
        Operation *producer = token.getDefiningOp();
        if (!producer || producer->getBlock() != &block)
          continue;
        done.insert(producer);
        if (isa<RecordOp>(producer) &&
            (!waitedUpTo || waitedUpTo->isBeforeInBlock(producer)))
          waitedUpTo = producer;
      }
  if (!waitedUpTo)
    return done;
  for (Operation &op : block) {
    if (&op == waitedUpTo)
      break;
    if (!isOnSideStream(&op))
      done.insert(&op);
    if (auto wait = dyn_cast<WaitOp>(op))
      for (Value token : wait.getTokens())
        if (Operation *producer = token.getDefiningOp();
            producer && producer->getBlock() == &block)
          done.insert(producer);
  }
  return done;
}

/// What the copies of a run of `block` cover by its end, and the host has
/// not waited for: the device work of its ops up to the last that is or
/// holds such a copy.
SideAccess AsyncInPlacePlanner::coveredInEarlierRun(Block &block) {
  Operation *last = nullptr;
  for (Operation &op : block)
    if (isInPlaceCopy(&op) || holdsInPlaceCopies(op))
      last = &op;
  SideAccess access;
  if (!last)
    return access;
  DenseSet<Operation *> done = doneByEndOfRun(block);
  for (Operation &op : block) {
    if (!done.contains(&op))
      access.merge(footprints.get(&op).device);
    if (&op == last)
      break;
  }
  return access;
}

void AsyncInPlacePlanner::waitBefore(Operation *op, PendingInBlock &pending,
                                     unsigned position) {
  unsigned covering = pending.coveringWork(position);
  hostWaits.push_back({op, covering});
  unsigned through = work[covering].position;
  for (size_t i = pending.firstNotRetired(); i <= through; ++i) {
    PendingWork &entry = work[pending.coveringWork(i)];
    if (entry.copy && !entry.firstHostWaiter)
      entry.firstHostWaiter = op;
  }
  pending.retireFirst(through + 1);
}

/// Upstream's rule: before each host op with memory effects (and each op
/// with regions that holds any), and at the end of each block but the
/// function's, the host waits for the main stream if it has work.
void AsyncInPlacePlanner::planBlockAsUpstream(Block &block) {
  bool inFlight = false;
  SmallVector<unsigned> copies;
  auto waitForMainStream = [&](Operation *op) {
    PendingWork here;
    here.before = op;
    hostWaits.push_back({op, addWork(std::move(here))});
    for (unsigned copy : copies)
      work[copy].firstHostWaiter = op;
    copies.clear();
    inFlight = false;
  };
  for (Operation &op : block) {
    if (isInPlaceCopy(&op)) {
      PendingWork copy;
      copy.copy = &op;
      copies.push_back(addWork(std::move(copy)));
      inFlight = true;
      continue;
    }
    if (auto streamOp = dyn_cast<StreamOpInterface>(op)) {
      // A copy on a side stream follows the copies the host no longer
      // waits for, as upstream's single chain would order it.
      if (isOnSideStream(&op) && !copies.empty()) {
        PendingWork here;
        here.before = &op;
        dependencies.push_back({&op, addWork(std::move(here))});
      }
      inFlight |= streamOp.getDeviceWork() != DeviceWork::None;
      continue;
    }
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      // The function's return waits for the main stream anyway.
      bool returns = block.getParentOp() == function.getOperation() &&
                     op.hasTrait<OpTrait::ReturnLike>();
      if (inFlight && !returns)
        waitForMainStream(&op);
      continue;
    }
    bool regions = op.getNumRegions() != 0 && !hasDeviceCodeRegions(&op);
    if (inFlight &&
        (regions ? !footprints.get(&op).isEmpty() : !isMemoryEffectFree(&op)))
      waitForMainStream(&op);
    if (!regions)
      continue;
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        planBlockAsUpstream(nested);
  }
}

static int64_t streamOf(Operation *op) {
  return *cast<StreamOpInterface>(op).getStreamIndex();
}

/// Adds to `pending` the side-stream work that the main stream, waiting for
/// the copy `awaited`, waits for: the copies on its stream up to it, and
/// what those depend on, that the block does not count yet.
void AsyncInPlacePlanner::addSideWork(Operation *awaited,
                                      PendingInBlock &pending,
                                      StreamCursors &cursors) {
  SmallVector<Operation *> worklist{awaited};
  while (!worklist.empty()) {
    Operation *last = worklist.pop_back_val();
    int64_t stream = streamOf(last);
    const std::vector<Operation *> &onStream = sideCopies[stream];
    const std::vector<SideAccess> &accesses = sideCopyAccesses[stream];
    for (size_t &next = cursors[stream]; next <= sideOrder.lookup(last);
         ++next) {
      Operation *copy = onStream[next];
      pending.add(accesses[next], copy);
      for (Value token : cast<StreamOpInterface>(copy).getAwaitedTokens())
        if (Operation *producer = token.getDefiningOp();
            producer && sideOrder.contains(producer))
          worklist.push_back(producer);
    }
  }
}

/// Plans `block`. `covered` is what the copies made asynchronous around it
/// covered and the host has not waited for since; `uncovered` the other
/// main-stream work still in flight where the block starts; `cursors` says
/// which side-stream copies that work counts.
/// `coveringOutside`: the main-stream ops around the block (records, copies)
/// whose tokens stand for all of `covered`: a copy on a side stream that
/// depends on one needs nothing from the record at the block's top.
/// `unjoinedStreams` gets the side streams with a copy in the block (at any
/// depth) that no main-stream op directly in the block waits for, or for a
/// copy after it on its stream.
void AsyncInPlacePlanner::planBlock(
    Block &block, bool repeats, const SideAccess &covered,
    const SideAccess &uncovered, StreamCursors cursors,
    const CoveringOutside &coveringOutside,
    SmallVectorImpl<Operation *> &awaitedOutside,
    DenseSet<int64_t> &unjoinedStreams) {
  PendingInBlock pending(aliasing);
  // Per side stream, its copies before the block, and how many of them the
  // main stream directly in the block waited for.
  DenseMap<int64_t, size_t> copiesBefore, joinedUpTo;
  for (auto &[stream, copies] : sideCopies)
    copiesBefore[stream] = copies.size();
  // At the block's top: the work around it, and, in a block that runs
  // again, what the copies of its earlier run covered (in a sequential
  // function, all its work). A record at the top stands for both.
  SideAccess top = covered;
  SideAccess blockWork;
  if (sequential)
    for (Operation &op : block)
      blockWork.merge(footprints.get(&op).device);
  bool holdsCopies =
      sequential ? !touchesNothing(blockWork) : holdsInPlaceCopies(block);
  if (repeats && holdsCopies) {
    top.merge(uncovered);
    top.merge(sequential ? blockWork : coveredInEarlierRun(block));
  }
  // The work of a main-stream op (or an op with regions) that nothing
  // covers otherwise: in a sequential function, the main stream's progress
  // just after it.
  auto coverInSequence = [&](Operation *op, unsigned position) {
    if (!sequential)
      return;
    PendingWork after;
    after.after = op;
    after.position = position;
    pending.cover(position, addWork(std::move(after)));
  };
  // Only `covered` is at the top of a block that does not run again.
  bool topIsCovered = false;
  if (!touchesNothing(top)) {
    PendingWork record;
    record.atStartOf = &block;
    record.position = pending.addBase(top);
    topIsCovered = !repeats || !holdsCopies;
    pending.cover(record.position, addWork(std::move(record)));
  }
  // The other work around it, for the copies in it to cover: in a block
  // that runs again, also the earlier run's work after its last copy.
  if (repeats && holdsCopies) {
    SideAccess earlierRun;
    DenseSet<Operation *> done = doneByEndOfRun(block);
    for (Operation &op : block)
      if (!done.contains(&op))
        earlierRun.merge(footprints.get(&op).device);
    pending.add(earlierRun);
  } else if (holdsCopies && !touchesNothing(uncovered)) {
    pending.add(uncovered);
  }
  // Where the main stream's progress is a token: a host wait on it covers
  // the entries before it; a dependency on it, those too.
  DenseMap<Operation *, size_t> entriesBefore;
  auto coveredByDependencies = [&](Operation *op) {
    size_t count = 0;
    for (Value token : cast<StreamOpInterface>(op).getAwaitedTokens())
      if (Operation *producer = token.getDefiningOp()) {
        count = std::max(count, entriesBefore.lookup(producer));
        // The record at the top is entry 0.
        if (topIsCovered && coveringOutside.contains(producer))
          count = std::max<size_t>(count, 1);
      }
    return count;
  };
  for (Operation &op : block) {
    // The host used to wait for the copy, and so for the work before it.
    if (isInPlaceCopy(&op)) {
      PendingWork copy;
      copy.copy = &op;
      copy.position = pending.add(footprints.get(&op).device,
                                  /*sideWork=*/nullptr, &op);
      unsigned position = copy.position;
      pending.cover(position, addWork(std::move(copy)));
      entriesBefore[&op] = position + 1;
      continue;
    }
    if (auto sync = dyn_cast<SyncOp>(op)) {
      pending.retireFirst(coveredByDependencies(&op));
      continue;
    }
    if (auto streamOp = dyn_cast<StreamOpInterface>(op)) {
      if (isOnSideStream(&op)) {
        // A copy on a side stream that conflicts with covered work depends
        // on the copy that covered it, unless it already depends on later
        // main-stream progress.
        OpFootprint footprint = footprints.get(&op);
        // A dependency on a side-stream copy covers the copies before it on
        // its stream.
        DenseMap<int64_t, size_t> doneUpTo;
        for (Value token : streamOp.getAwaitedTokens())
          if (Operation *producer = token.getDefiningOp())
            if (auto it = sideOrder.find(producer); it != sideOrder.end()) {
              int64_t stream =
                  *cast<StreamOpInterface>(producer).getStreamIndex();
              size_t &upTo = doneUpTo[stream];
              upTo = std::max(upTo, it->second + 1);
            }
        // So does its own stream's order.
        doneUpTo[streamOf(&op)] = sideCopies[streamOf(&op)].size();
        auto isDone = [&](Operation *side) {
          auto it = doneUpTo.find(streamOf(side));
          return it != doneUpTo.end() && sideOrder.lookup(side) < it->second;
        };
        if (std::optional<unsigned> position = pending.latestConflictAfter(
                footprint.device, footprint.unknown,
                coveredByDependencies(&op), isDone, &op))
          dependencies.push_back({&op, pending.coveringWork(*position)});
        std::vector<Operation *> &onStream = sideCopies[streamOf(&op)];
        sideOrder[&op] = onStream.size();
        onStream.push_back(&op);
        sideCopyAccesses[streamOf(&op)].push_back(footprint.device);
        continue;
      }
      if (streamOp.getStreamIndex() != 0)
        continue;
      OpFootprint footprint = footprints.get(&op);
      if (!touchesNothing(footprint.device))
        coverInSequence(&op, pending.add(footprint.device));
      // The main stream also runs after the side-stream work it waits for,
      // and what that work waited for. Work from outside the block is
      // counted there too, after the op that holds the block.
      for (Value token : streamOp.getAwaitedTokens())
        if (Operation *producer = token.getDefiningOp();
            producer && sideOrder.contains(producer)) {
          addSideWork(producer, pending, cursors);
          size_t &joined = joinedUpTo[streamOf(producer)];
          joined = std::max(joined, sideOrder.lookup(producer) + 1);
          if (!block.findAncestorOpInBlock(*producer))
            awaitedOutside.push_back(producer);
        }
      if (streamOp.getCompletionToken())
        entriesBefore[&op] = pending.size();
      continue;
    }
    // The work stays in flight past the block's end: the top of the block's
    // next run, and the op that holds the block, account for it. A block of
    // several in a region may branch to any, and other ops with regions may
    // run them in ways the walk does not follow (scf.while's two regions,
    // a scope that frees its stack): there the host waits.
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      Operation *parent = block.getParentOp();
      bool followed = block.getParent()->hasOneBlock() &&
                      isa<scf::ForOp, scf::IfOp, scf::IndexSwitchOp,
                          scf::ExecuteRegionOp, FunctionOpInterface>(parent);
      if (!followed)
        if (std::optional<unsigned> position = pending.latestCovered())
          waitBefore(&op, pending, *position);
      continue;
    }
    // An op without effects touches nothing.
    if (op.getNumRegions() == 0 && isMemoryEffectFree(&op))
      continue;
    bool regions = op.getNumRegions() != 0 && !hasDeviceCodeRegions(&op);
    // The host waits for all the covered work, not only what conflicts: a
    // wait on the main stream waits for all of it as lowered (a blocking
    // wait on the stream), so one wait serves every later conflict.
    OpFootprint footprint = footprints.get(&op);
    if (pending.latestConflict(footprint.host, footprint.unknown))
      waitBefore(&op, pending, *pending.latestCovered());
    if (!regions)
      continue;
    // Inside, copies on side streams order themselves against the covered
    // work through the top of their blocks.
    SideAccess coveredHere = pending.coveredAccess();
    SideAccess uncoveredHere = pending.uncoveredAccess();
    // The main-stream ops here whose tokens stand for all the covered work
    // (a record issued after it, say, on which copies inside may depend).
    CoveringOutside coveringHere{&entriesBefore, pending.latestCovered()};
    SmallVector<Operation *> awaitedInside;
    DenseMap<int64_t, size_t> copiesBeforeOp;
    for (auto &[stream, copies] : sideCopies)
      copiesBeforeOp[stream] = copies.size();
    DenseSet<int64_t> unjoinedInside;
    for (auto [index, region] : llvm::enumerate(op.getRegions()))
      for (Block &nested : region)
        planBlock(nested, regionRepeats(&op, index), coveredHere, uncoveredHere,
                  cursors, coveringHere, awaitedInside, unjoinedInside);
    // The main stream waited inside for side-stream work from out here.
    for (Operation *producer : awaitedInside) {
      if (op.isAncestor(producer))
        continue;
      addSideWork(producer, pending, cursors);
      if (!block.findAncestorOpInBlock(*producer))
        awaitedOutside.push_back(producer);
    }
    // A block inside that ran waited on the main stream for its copies on a
    // stream, and one that did not run issued none: once the op is done,
    // the main stream is past them, and the op's entry below counts what
    // they touch. Where this block counts every copy before the op on the
    // stream, it need not count the op's again (each block inside would
    // otherwise count those of the blocks before it, for ever more
    // branches).
    for (auto &[stream, copies] : sideCopies) {
      size_t before = copiesBeforeOp.lookup(stream);
      size_t &cursor = cursors[stream];
      if (copies.size() > before && !unjoinedInside.contains(stream) &&
          cursor == before)
        cursor = copies.size();
    }
    unsigned position = pending.add(footprint.device);
    if (!holdsInPlaceCopies(op)) {
      coverInSequence(&op, position);
      continue;
    }
    // The copies inside covered the work before the op and in it: the main
    // stream's progress just after it stands for them.
    PendingWork after;
    after.after = &op;
    after.position = position;
    pending.cover(position, addWork(std::move(after)));
  }
  for (auto &[stream, copies] : sideCopies)
    if (copies.size() > copiesBefore.lookup(stream) &&
        joinedUpTo.lookup(stream) < copies.size())
      unjoinedStreams.insert(stream);
}

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

Value AsyncInPlacePlanner::materialize(PendingWork &entry) {
  if (entry.token)
    return entry.token;
  OpBuilder builder(function.getContext());
  Location loc = function.getLoc();
  if (entry.after) {
    builder.setInsertionPointAfter(entry.after);
    loc = entry.after->getLoc();
  } else if (entry.before) {
    builder.setInsertionPoint(entry.before);
    loc = entry.before->getLoc();
  } else {
    builder.setInsertionPointToStart(entry.atStartOf);
    if (!entry.atStartOf->empty())
      loc = entry.atStartOf->front().getLoc();
  }
  entry.token = RecordOp::create(builder, loc).getToken();
  return entry.token;
}

void AsyncInPlacePlanner::emitRemark(const PendingWork &entry) {
  auto remark = remark::analysis(vyre::getSourceLocation(entry.copy->getLoc()),
                                 remark::RemarkOpts::name("CopyAsyncInPlace")
                                     .category(kRemarkCategory)
                                     .function(function.getName()));
  if (!remark)
    return;
  std::string text = "copy stays on the main stream, and the host goes on: ";
  if (entry.firstHostWaiter)
    text += "it waits for the copy before '" +
            entry.firstHostWaiter->getName().getStringRef().str() + "'";
  else if (entry.copy->getBlock() == &function.getFunctionBody().front())
    text += "it waits for the copy at the function's return";
  else
    text += "nothing in the copy's block makes it wait for the copy";
  remark << text;
}

AsyncInPlaceResult AsyncInPlacePlanner::run() {
  AsyncInPlaceResult result;
  sequential = !isInStreamForm(function);
  for (Block &block : function.getFunctionBody()) {
    SmallVector<Operation *> awaitedOutside;
    DenseSet<int64_t> unjoinedStreams;
    if (options.waitBeforeAnyEffect)
      planBlockAsUpstream(block);
    else
      planBlock(block, /*repeats=*/false, SideAccess(), SideAccess(),
                StreamCursors(), CoveringOutside(), awaitedOutside,
                unjoinedStreams);
  }
  // Records first: a wait before an op may follow a record after the op
  // before it.
  for (PlannedEdit edit : hostWaits)
    if (!work[edit.work].copy)
      materialize(work[edit.work]);
  for (PlannedEdit edit : dependencies)
    if (!work[edit.work].copy)
      materialize(work[edit.work]);
  for (PendingWork &entry : work) {
    if (!entry.copy)
      continue;
    if (options.emitRemarks)
      emitRemark(entry);
    Operation *copy = entry.copy;
    OpBuilder builder(copy);
    Operation *async;
    if (auto h2d = dyn_cast<CopyH2DOp>(copy))
      async = CopyH2DAsyncOp::create(builder, copy->getLoc(), h2d.getSource(),
                                     h2d.getTarget(), /*stream=*/0);
    else {
      auto d2h = cast<CopyD2HOp>(copy);
      async = CopyD2HAsyncOp::create(builder, copy->getLoc(), d2h.getSource(),
                                     d2h.getTarget(), /*stream=*/0);
    }
    for (NamedAttribute attribute : copy->getDiscardableAttrs())
      async->setAttr(attribute.getName(), attribute.getValue());
    entry.token = async->getResult(0);
    copy->erase();
    entry.copy = async;
    ++result.copies;
  }
  for (PlannedEdit edit : hostWaits) {
    OpBuilder builder(edit.op);
    SyncOp::create(builder, edit.op->getLoc(),
                   ValueRange{work[edit.work].token});
    ++result.hostWaits;
  }
  for (PlannedEdit edit : dependencies) {
    Value token = work[edit.work].token;
    auto add = [&](auto copy) {
      if (llvm::is_contained(copy.getDependencies(), token))
        return;
      copy.getDependenciesMutable().append(token);
      ++result.dependencies;
    };
    if (auto h2d = dyn_cast<CopyH2DAsyncOp>(edit.op))
      add(h2d);
    else if (auto d2h = dyn_cast<CopyD2HAsyncOp>(edit.op))
      add(d2h);
  }
  return result;
}

AsyncInPlaceResult
mlir::vyre::makeInPlaceCopiesAsync(FunctionOpInterface function,
                                   const SlotAccessAnalysis &slots,
                                   const AsyncInPlaceOptions &options) {
  if (function.isExternal())
    return {};
  return AsyncInPlacePlanner(function, slots, options).run();
}
