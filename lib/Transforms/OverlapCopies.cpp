//===- OverlapCopies.cpp - Host-to-device copies on side streams -*- C++ -*-===//
//
// --overlap-copies: every vyre.copy_h2d becomes a vyre.copy_h2d_async on a
// side stream, hoisted as early as is legal, and ordered against the rest of
// the function with tokens only where an op conflicts with it.
//
// The pass works block by block, each block in two phases:
//  1. Placement, in program order: each copy moves up to just after the last
//     op it must follow (an access to its slot, a write of its host buffer, a
//     definition of its operands), becomes asynchronous, and depends on the
//     last op in flight that touched its slot.
//  2. Ordering, in program order: each later op that conflicts with a copy
//     still in flight waits for its token, on the device (vyre.wait) or the
//     host (vyre.sync); tokens still open at the terminator are joined there.
// Nested blocks are handled on their own first; the op holding them counts as
// everything inside it.
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/Passes.h"

#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/ErrorHandling.h"

#include <deque>

namespace mlir::vyre {
#define GEN_PASS_DEF_OVERLAPCOPIESPASS
#include "vyre/Transforms/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// The remark category: `--remarks-filter=overlap-copies` shows every
/// decision.
constexpr StringLiteral kRemarkCategory = "overlap-copies";

/// Why two ops must stay in order, as remarks name it.
enum class OrderReason {
  ReadAfterCopy,
  ReadAfterWrite,
  WriteAfterRead,
  WriteAfterWrite,
  HostBuffer,
  UnknownEffects,
  OperandDefinition,
  StreamOrder,
  EndOfBlock,
};

StringRef describe(OrderReason reason) {
  switch (reason) {
  case OrderReason::ReadAfterCopy:
    return "read-after-copy";
  case OrderReason::ReadAfterWrite:
    return "read-after-write";
  case OrderReason::WriteAfterRead:
    return "write-after-read";
  case OrderReason::WriteAfterWrite:
    return "write-after-write";
  case OrderReason::HostBuffer:
    return "host buffer";
  case OrderReason::UnknownEffects:
    return "unknown effects";
  case OrderReason::OperandDefinition:
    return "operand definition";
  case OrderReason::StreamOrder:
    return "stream order";
  case OrderReason::EndOfBlock:
    return "end of block";
  }
  llvm_unreachable("unknown order reason");
}

/// `@module::@kernel`, as the IR prints it.
std::string symbolText(SymbolRefAttr symbol) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << symbol;
  return text;
}

/// Whether `op` enqueues device work on a stream and blocks the host until it
/// is done (a synchronous copy).
bool blocksHostOnDeviceWork(Operation *op) {
  auto streamOp = dyn_cast<StreamOpInterface>(op);
  return streamOp && streamOp.getStreamIndex() && streamOp.blocksHost();
}

/// Whether `op` runs on a side stream.
bool isOnSideStream(Operation *op) {
  auto streamOp = dyn_cast<StreamOpInterface>(op);
  return streamOp && streamOp.getStreamIndex().value_or(0) > 0;
}

/// One copy the pass made asynchronous, and what it learned about it.
struct CopyState {
  CopyH2DAsyncOp op;
  /// Creation order, for deterministic output.
  unsigned id = 0;
  /// The slot of the copy's destination root, and every slot that may alias
  /// it (sorted).
  unsigned slot = 0;
  SmallVector<unsigned> slots;
  /// The root of the host buffer the copy reads, and its slots if that root
  /// is one (a device buffer copied as if it were host memory).
  Value hostRoot;
  SmallVector<unsigned> sourceSlots;

  /// The op the copy could not move above, and why; null if none did.
  Operation *hoistLimit = nullptr;
  OrderReason hoistReason = OrderReason::OperandDefinition;

  /// Whether the main stream, and the host, are ordered after the copy.
  bool deviceCovered = false;
  bool hostCovered = false;
  /// The vyre.wait that ordered the main stream after the copy.
  Operation *coveringWait = nullptr;
  /// Copies into the same slots this copy waits for: ordering this copy
  /// orders them too.
  SmallVector<CopyState *> implies;
  /// Whether a later copy implies this one for every slot it writes.
  bool subsumed = false;

  /// Kernels seen in the block before the copy, and the first op that
  /// waited for it, why, and how many kernels ran in between.
  unsigned kernelsBefore = 0;
  Operation *firstWaiter = nullptr;
  OrderReason waitReason = OrderReason::EndOfBlock;
  unsigned kernelsOverlapped = 0;

  Value getToken() { return op.getToken(); }
  bool isOpen() const { return !deviceCovered && !subsumed; }
};

/// A position in a block that stays valid while ops are inserted: the index
/// of the original op, and the order among ops inserted after it.
using Position = std::pair<unsigned, unsigned>;

/// An op of a block and its position there; null op: none (the block's
/// start). An op the pass inserted also names the original op it follows.
struct Stamp {
  Operation *op = nullptr;
  Position position{0, 0};
  Operation *anchor = nullptr;

  explicit operator bool() const { return op; }
  /// Keeps whichever of this and `candidate` comes later.
  void keepLatest(Stamp candidate) {
    if (candidate.op && (!op || position < candidate.position))
      *this = candidate;
  }
};

/// Rewrites the copies of one function.
class CopyOverlapper {
public:
  CopyOverlapper(FunctionOpInterface function, SlotAccessAnalysis &slots,
                 bool hoist, unsigned sideStreams)
      : function(function), slots(slots), hostAliasing(function),
        builder(function.getContext()), hoist(hoist),
        sideStreams(sideStreams) {}

  void run() {
    for (Block &block : function.getFunctionBody())
      placeCopies(block);
    // A block after the entry block may start with the main stream busy.
    for (Block &block : function.getFunctionBody())
      orderCopies(block, block.isEntryBlock() ? AccessSummary()
                                              : AccessSummary::unknown());
    for (CopyState &copy : copies)
      emitRemarks(copy);
  }

private:
  //===--------------------------------------------------------------------===//
  // Phase 1: placement
  //===--------------------------------------------------------------------===//

  /// The last ops of a block, so far in program order, that touched each
  /// slot and host buffer.
  struct LastAccesses {
    DenseMap<unsigned, Stamp> slot;
    Stamp anySlot;
    DenseMap<Value, Stamp> hostWrite;
    /// Written roots that are function arguments or of unknown origin.
    SetVector<Value> openHostRoots;
    Stamp anyHostWrite;
    /// The last op whose main-stream work may still be writing a host buffer
    /// when the host moves on (a kernel writing an argument), per root.
    DenseMap<Value, Stamp> deviceHostWrite;
    Stamp anyDeviceHostWrite;
    /// Per side stream, the last async copy reading each host root that is
    /// not an allocation, and writing each argument slot: a function argument
    /// may be both a copy's source and another copy's destination.
    DenseMap<std::pair<Value, int64_t>, Stamp> copyReadingRoot;
    DenseMap<std::pair<Value, int64_t>, Stamp> copyWritingArgument;
  };

  /// Block-local bookkeeping of where new ops go.
  struct Placement {
    Block *block = nullptr;
    /// Positions of the ops that define memrefs, which copies use.
    DenseMap<Operation *, Position> definitions;
    /// The last copy placed on each side stream: copies on one stream keep
    /// their program order, so a copy needed later never delays one needed
    /// sooner.
    DenseMap<int64_t, Stamp> lastCopyOnStream;
    /// Original op (null: the block's start) → the ops inserted after it:
    /// the last one, how many, and the vyre.record among them.
    struct Inserted {
      Operation *last = nullptr;
      unsigned count = 0;
      Value record;
    };
    DenseMap<Operation *, Inserted> insertedAfter;
  };

  void placeCopies(Block &block) {
    Placement placement;
    placement.block = &block;
    LastAccesses last;
    unsigned index = 0;
    Stamp previous;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      Stamp stamp{&op, {++index, 0}, &op};
      if (llvm::any_of(op.getResultTypes(), llvm::IsaPred<BaseMemRefType>))
        placement.definitions[&op] = stamp.position;
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          placeCopies(nested);
      if (auto copy = dyn_cast<CopyH2DOp>(op))
        if (placeCopy(copy, previous, placement, last))
          continue;
      noteAccesses(stamp, computeOpFootprint(&op, slots), last);
      previous = stamp;
    }
  }

  /// Records what `op` touches as the latest access in its block.
  void noteAccesses(Stamp op, const OpFootprint &footprint,
                    LastAccesses &last) {
    if (footprint.unknown || footprint.device.slots.isUnknown() ||
        footprint.host.slots.isUnknown()) {
      last.anySlot = op;
    } else {
      for (const SideAccess *side : {&footprint.device, &footprint.host}) {
        for (unsigned slot : side->slots.getReads())
          last.slot[slot] = op;
        for (unsigned slot : side->slots.getWrites())
          last.slot[slot] = op;
      }
    }
    if (footprint.unknown || footprint.device.anyHostWrite ||
        footprint.host.anyHostWrite)
      last.anyHostWrite = op;
    for (const SideAccess *side : {&footprint.device, &footprint.host}) {
      for (Value root : side->hostWrites) {
        last.hostWrite[root] = op;
        if (HostBufferAliasing::getOrigin(root) !=
            HostBufferOrigin::Allocation)
          last.openHostRoots.insert(root);
      }
    }
    // A D2H copy blocks the host until it is done; other device work may
    // still be writing when the host enqueues the next op.
    if (blocksHostOnDeviceWork(op.op))
      return;
    if (footprint.device.anyHostWrite)
      last.anyDeviceHostWrite = op;
    for (Value root : footprint.device.hostWrites)
      last.deviceHostWrite[root] = op;
  }

  /// The latest op, in `writers` or `anyWriter`, that may write `hostRoot`.
  Stamp lastWriterOf(Value hostRoot, const DenseMap<Value, Stamp> &writers,
                     Stamp anyWriter, LastAccesses &last) {
    Stamp latest = anyWriter;
    if (HostBufferAliasing::getOrigin(hostRoot) ==
        HostBufferOrigin::Unknown) {
      for (auto &entry : writers)
        latest.keepLatest(entry.second);
      return latest;
    }
    latest.keepLatest(writers.lookup(hostRoot));
    for (Value root : last.openHostRoots)
      if (hostAliasing.mayAlias(root, hostRoot))
        latest.keepLatest(writers.lookup(root));
    return latest;
  }

  /// Inserts `create()`'s op after `anchor` (none: the block's start), after
  /// any op inserted there before it.
  template <typename Fn>
  Stamp insertAfter(Placement &placement, Stamp after, Fn create) {
    Placement::Inserted &inserted = placement.insertedAfter[after.anchor];
    OpBuilder::InsertionGuard guard(builder);
    if (inserted.last)
      builder.setInsertionPointAfter(inserted.last);
    else if (after.anchor)
      builder.setInsertionPointAfter(after.anchor);
    else
      builder.setInsertionPointToStart(placement.block);
    Stamp created{create(), {after.position.first, ++inserted.count},
                  after.anchor};
    inserted.last = created.op;
    return created;
  }

  /// A token for the main stream's progress up to `op` (null: the block's
  /// start), creating the vyre.record once.
  Value recordAfter(Placement &placement, Stamp op, Location loc) {
    if (Value record = placement.insertedAfter.lookup(op.anchor).record)
      return record;
    Value record = insertAfter(placement, op, [&] {
                     return RecordOp::create(builder, loc).getOperation();
                   }).op->getResult(0);
    placement.insertedAfter[op.anchor].record = record;
    return record;
  }

  bool isFunctionEntry(Block &block) {
    return block.isEntryBlock() && block.getParentOp() == function;
  }

  /// Whether an op before `block` may still be using `copySlots` on the main
  /// stream when the block starts.
  bool slotMayBeBusyAtStart(Block &block, Value target,
                            ArrayRef<unsigned> copySlots) {
    // A buffer allocated in this block is new in it.
    Value root = SlotAccessAnalysis::resolveRoot(target);
    if (auto alloc = root.getDefiningOp<AllocOp>();
        alloc && alloc->getBlock() == &block)
      return false;
    // Outside the entry block, earlier ops and earlier iterations may.
    if (!isFunctionEntry(block))
      return true;
    // In the entry block only the caller's work on an argument may.
    return llvm::any_of(copySlots, [&](unsigned slot) {
      return isa<BlockArgument>(slots.getSlots()[slot]);
    });
  }

  /// Whether main-stream work before `block` (an earlier iteration's kernel,
  /// say) may still be writing `hostRoot` when the block starts.
  bool hostBufferMayBeBusyAtStart(Block &block, Value hostRoot) {
    if (isFunctionEntry(block))
      return false;
    const FunctionHostWrites &writes = getFunctionHostWrites();
    return writes.anyRootByDevice ||
           llvm::any_of(writes.rootsByDevice, [&](Value root) {
             return hostAliasing.mayAlias(root, hostRoot);
           });
  }

  /// Why an op that touches `copySlots` keeps a later copy into them below it.
  OrderReason reasonToStayBelow(Operation *op, ArrayRef<unsigned> copySlots) {
    if (isOnSideStream(op))
      return OrderReason::WriteAfterWrite;
    OpFootprint footprint = computeOpFootprint(op, slots);
    if (footprint.unknown || footprint.device.slots.isUnknown() ||
        footprint.host.slots.isUnknown())
      return OrderReason::UnknownEffects;
    bool writes = llvm::any_of(copySlots, [&](unsigned slot) {
      return footprint.device.slots.mayWrite(slot) ||
             footprint.host.slots.mayWrite(slot);
    });
    return writes ? OrderReason::WriteAfterWrite : OrderReason::WriteAfterRead;
  }

  /// Makes `copy` asynchronous, as early as is legal. Returns false if it
  /// must stay as it is.
  /// `previous` is the original op just before the copy.
  bool placeCopy(CopyH2DOp copy, Stamp previous, Placement &placement,
                 LastAccesses &last) {
    Block &block = *placement.block;
    bool exact = true;
    SmallVector<unsigned> copySlots = slots.getSlotsOf(copy.getTarget(), &exact);
    if (!exact) {
      remark::missed(copy.getLoc(), remarkOptions("CopyKeptInPlace"))
          << "copy stays in place: its destination is not a known slot";
      return false;
    }
    Value hostRoot = SlotAccessAnalysis::resolveRoot(copy.getSource());

    // The last op that touched the slot: the copy waits for it.
    Stamp lastSlotAccess = last.anySlot;
    for (unsigned slot : copySlots)
      lastSlotAccess.keepLatest(last.slot.lookup(slot));
    // A source that is itself a slot (a device buffer copied as if it were
    // host memory) must not be read before earlier ops on it are done.
    SmallVector<unsigned> sourceSlots;
    Stamp lastSourceAccess;
    if (slots.getSlotNumber(hostRoot)) {
      sourceSlots = slots.getSlotsOf(hostRoot);
      lastSourceAccess = last.anySlot;
      for (unsigned slot : sourceSlots)
        lastSourceAccess.keepLatest(last.slot.lookup(slot));
    }

    // The copy stays below the last op it must follow.
    Stamp limit;
    OrderReason reason = OrderReason::OperandDefinition;
    auto consider = [&](Stamp candidate, OrderReason why) {
      Operation *before = limit.op;
      limit.keepLatest(candidate);
      if (limit.op != before)
        reason = why;
    };
    if (lastSlotAccess)
      consider(lastSlotAccess,
               reasonToStayBelow(lastSlotAccess.op, copySlots));
    consider(lastWriterOf(hostRoot, last.hostWrite, last.anyHostWrite, last),
             OrderReason::HostBuffer);
    consider(lastSourceAccess, OrderReason::ReadAfterWrite);
    // Earlier copies whose source may be this copy's destination, or whose
    // destination may be this copy's source, through aliasing arguments.
    SmallVector<Value> targetArguments;
    for (unsigned slot : copySlots)
      if (isa<BlockArgument>(slots.getSlots()[slot]))
        targetArguments.push_back(slots.getSlots()[slot]);
    // The latest such copy on each side stream: stream order covers the
    // earlier ones there.
    DenseMap<int64_t, Stamp> aliasingCopies;
    for (auto &entry : last.copyReadingRoot) {
      Value root = entry.first.first;
      if (llvm::any_of(targetArguments, [&](Value target) {
            return hostAliasing.mayAlias(root, target);
          }))
        aliasingCopies[entry.first.second].keepLatest(entry.second);
    }
    for (auto &[key, writer] : last.copyWritingArgument)
      if (hostAliasing.mayAlias(key.first, hostRoot))
        aliasingCopies[key.second].keepLatest(writer);
    for (auto &entry : aliasingCopies)
      consider(entry.second, OrderReason::HostBuffer);
    for (Value operand : {copy.getSource(), copy.getTarget()})
      if (Operation *definition = operand.getDefiningOp();
          definition && definition->getBlock() == &block)
        consider({definition, placement.definitions.lookup(definition),
                  definition},
                 OrderReason::OperandDefinition);
    // A copy that depends on an earlier copy into its slot runs on that
    // copy's stream; others take the side streams in turn. On its stream, the
    // copy stays behind the copies before it.
    auto prior = dyn_cast_or_null<CopyH2DAsyncOp>(lastSlotAccess.op);
    int64_t stream =
        prior ? prior.getStream() : 1 + int64_t(nextStream++ % sideStreams);
    consider(placement.lastCopyOnStream.lookup(stream),
             OrderReason::StreamOrder);
    if (!hoist) {
      limit = previous;
      reason = OrderReason::OperandDefinition;
    }

    // Dependencies: the last copy into the slot, and the main stream's
    // progress past the last op that touched the slot or may still be
    // writing the host buffer.
    SmallVector<Value> dependencies;
    Stamp mainStreamWork = lastWriterOf(hostRoot, last.deviceHostWrite,
                                        last.anyDeviceHostWrite, last);
    if (prior)
      dependencies.push_back(prior.getToken());
    else
      mainStreamWork.keepLatest(lastSlotAccess);
    auto sourceCopy = dyn_cast_or_null<CopyH2DAsyncOp>(lastSourceAccess.op);
    if (sourceCopy && sourceCopy != prior)
      dependencies.push_back(sourceCopy.getToken());
    else if (!sourceCopy)
      mainStreamWork.keepLatest(lastSourceAccess);
    SmallVector<Stamp> aliasing;
    for (auto &entry : aliasingCopies)
      aliasing.push_back(entry.second);
    llvm::sort(aliasing, [](const Stamp &lhs, const Stamp &rhs) {
      return lhs.position < rhs.position;
    });
    for (const Stamp &copy : aliasing)
      if (auto other = dyn_cast<CopyH2DAsyncOp>(copy.op);
          other && other != prior)
        dependencies.push_back(other.getToken());
    bool busyAtStart =
        (!lastSlotAccess &&
         slotMayBeBusyAtStart(block, copy.getTarget(), copySlots)) ||
        hostBufferMayBeBusyAtStart(block, hostRoot);
    if (mainStreamWork)
      dependencies.push_back(
          recordAfter(placement, mainStreamWork, copy.getLoc()));
    else if (busyAtStart)
      dependencies.push_back(recordAfter(placement, Stamp(), copy.getLoc()));

    // Several reasons may name the same token: each once.
    SetVector<Value> uniqueDependencies(dependencies.begin(),
                                        dependencies.end());
    dependencies.assign(uniqueDependencies.begin(), uniqueDependencies.end());
    Stamp placed = insertAfter(placement, limit, [&] {
      return CopyH2DAsyncOp::create(builder, copy.getLoc(), copy.getSource(),
                                    copy.getTarget(), stream, dependencies)
          .getOperation();
    });
    auto async = cast<CopyH2DAsyncOp>(placed.op);
    async->setDiscardableAttrs(copy->getDiscardableAttrDictionary());

    CopyState &state = copies.emplace_back();
    state.op = async;
    state.id = copies.size() - 1;
    state.slot = *slots.getSlotNumber(
        SlotAccessAnalysis::resolveRoot(copy.getTarget()));
    state.slots = std::move(copySlots);
    state.hostRoot = hostRoot;
    state.sourceSlots = sourceSlots;
    if (hoist && limit && reason != OrderReason::OperandDefinition) {
      state.hoistLimit = limit.op;
      state.hoistReason = reason;
    }
    stateOf[async] = &state;
    copy.erase();

    for (unsigned slot : state.slots)
      last.slot[slot] = placed;
    placement.lastCopyOnStream[stream] = placed;
    if (HostBufferAliasing::getOrigin(hostRoot) != HostBufferOrigin::Allocation)
      last.copyReadingRoot[{hostRoot, stream}] = placed;
    for (Value target : targetArguments)
      last.copyWritingArgument[{target, stream}] = placed;
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Phase 2: ordering
  //===--------------------------------------------------------------------===//

  /// The copies of a block that may still be in flight.
  struct OpenCopies {
    /// Copies the main stream has not waited for, by slot written, and by
    /// slot read (a source that is a slot).
    DenseMap<unsigned, SmallVector<CopyState *>> bySlot;
    DenseMap<unsigned, SmallVector<CopyState *>> bySourceSlot;
    /// Copies the host has not synchronized with, by host root read; and
    /// those reading roots that are not allocations.
    DenseMap<Value, SmallVector<CopyState *>> byHostRoot;
    SmallVector<CopyState *> openHostRoots;
    /// Every copy of the block, in order.
    SmallVector<CopyState *> all;
    /// Slots that main-stream work since the host last waited for the main
    /// stream may still be touching.
    AccessSummary mainInFlight;
  };

  /// What must happen before one op: copies to wait for on the device, and
  /// copies to synchronize with on the host.
  struct Orders {
    SetVector<CopyState *> wait;
    SetVector<CopyState *> sync;
    DenseMap<CopyState *, OrderReason> reasons;

    void add(CopyState *copy, bool onHost, OrderReason reason) {
      (onHost ? sync : wait).insert(copy);
      reasons.try_emplace(copy, reason);
    }
  };

  /// `inFlight`: what main-stream work from before the block (the enclosing
  /// block's, and an earlier iteration's) may still be touching.
  void orderCopies(Block &block, const AccessSummary &inFlight = {}) {
    OpenCopies open;
    open.mainInFlight = inFlight;
    unsigned kernels = 0;
    bool joined = false;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (op.getNumRegions() != 0) {
        AccessSummary nestedInFlight = open.mainInFlight;
        nestedInFlight.merge(computeOpFootprint(&op, slots).device.slots);
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            orderCopies(nested, nestedInFlight);
      }
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        joinAtEnd(block, &op, open, kernels);
        joined = true;
        continue;
      }
      if (CopyState *copy = stateOf.lookup(&op)) {
        startTracking(copy, open, kernels);
        continue;
      }
      if (auto foreign = dyn_cast<CopyH2DAsyncOp>(op)) {
        orderForeignCopy(foreign, open);
        continue;
      }
      OpFootprint footprint = computeOpFootprint(&op, slots);
      if (!footprint.isEmpty())
        orderBefore(&op, footprint, open, kernels);
      kernels += footprint.numKernels;
    }
    if (!joined)
      joinAtEnd(block, nullptr, open, kernels);
  }

  void startTracking(CopyState *copy, OpenCopies &open, unsigned kernels) {
    copy->kernelsBefore = kernels;
    for (Value dependency : copy->op.getDependencies()) {
      CopyState *prior = stateOf.lookup(dependency.getDefiningOp());
      if (!prior || prior->deviceCovered)
        continue;
      copy->implies.push_back(prior);
      noteFirstWait(prior, copy->op, OrderReason::WriteAfterWrite, kernels);
      prior->subsumed = llvm::all_of(prior->slots, [&](unsigned slot) {
        return llvm::is_contained(copy->slots, slot);
      });
    }
    for (unsigned slot : copy->slots)
      open.bySlot[slot].push_back(copy);
    for (unsigned slot : copy->sourceSlots)
      open.bySourceSlot[slot].push_back(copy);
    if (HostBufferAliasing::getOrigin(copy->hostRoot) ==
        HostBufferOrigin::Allocation)
      open.byHostRoot[copy->hostRoot].push_back(copy);
    else
      open.openHostRoots.push_back(copy);
    open.all.push_back(copy);
  }

  /// An async copy the input already had runs on a side stream, which a
  /// main-stream wait does not order: it takes the tokens of the open copies
  /// into its slots as dependencies instead.
  void orderForeignCopy(CopyH2DAsyncOp foreign, OpenCopies &open) {
    OpFootprint footprint = computeOpFootprint(foreign, slots);
    Orders orders;
    collectSlotConflicts(footprint.device.slots, /*onHost=*/false, open,
                         orders);
    for (Value token : minimalTokens(orders.wait.getArrayRef()))
      if (!llvm::is_contained(foreign.getDependencies(), token))
        foreign.getDependenciesMutable().append(token);
  }

  void noteFirstWait(CopyState *copy, Operation *waiter, OrderReason reason,
                     unsigned kernels) {
    if (copy->firstWaiter)
      return;
    copy->firstWaiter = waiter;
    copy->waitReason = reason;
    copy->kernelsOverlapped = kernels - copy->kernelsBefore;
  }

  /// The copies of the block the host has not synchronized with yet.
  ArrayRef<CopyState *> notDoneForHost(OpenCopies &open) {
    llvm::erase_if(open.all, [](CopyState *copy) { return copy->hostCovered; });
    return open.all;
  }

  /// Adds to `orders` the open copies that write a slot in `summary` and must
  /// be waited for on the device (or the host).
  void collectSlotConflicts(const AccessSummary &summary, bool onHost,
                            OpenCopies &open, Orders &orders) {
    auto visit = [&](CopyState *copy, OrderReason reason) {
      bool needed = onHost ? !copy->hostCovered : copy->isOpen();
      if (needed)
        orders.add(copy, onHost, reason);
    };
    if (summary.isUnknown()) {
      for (CopyState *copy : notDoneForHost(open))
        visit(copy, OrderReason::UnknownEffects);
      return;
    }
    auto visitSlot = [&](unsigned slot, OrderReason reason) {
      bool write = reason == OrderReason::WriteAfterWrite;
      if (onHost) {
        // Host-side slot accesses are rare; look at every copy.
        for (CopyState *copy : notDoneForHost(open))
          if (llvm::is_contained(copy->slots, slot) ||
              (write && llvm::is_contained(copy->sourceSlots, slot)))
            visit(copy, write && !llvm::is_contained(copy->slots, slot)
                            ? OrderReason::HostBuffer
                            : reason);
        return;
      }
      // Drop copies already ordered, so each is looked at once more at most.
      auto visitList = [&](DenseMap<unsigned, SmallVector<CopyState *>> &map,
                           OrderReason why) {
        auto it = map.find(slot);
        if (it == map.end())
          return;
        llvm::erase_if(it->second,
                       [](CopyState *copy) { return !copy->isOpen(); });
        for (CopyState *copy : it->second)
          visit(copy, why);
      };
      visitList(open.bySlot, reason);
      // A write to a slot a copy still reads waits for the copy.
      if (write)
        visitList(open.bySourceSlot, OrderReason::WriteAfterRead);
    };
    for (unsigned slot : summary.getWrites())
      visitSlot(slot, OrderReason::WriteAfterWrite);
    for (unsigned slot : summary.getReads())
      visitSlot(slot, OrderReason::ReadAfterCopy);
  }

  /// Adds to `orders` the copies still reading a host buffer that `side`
  /// writes. On the device, the main stream must wait for copies it has not
  /// waited for; on the host, the host must synchronize with all.
  void collectHostConflicts(const SideAccess &side, bool onHost,
                            bool everything, OpenCopies &open,
                            Orders &orders) {
    auto visit = [&](CopyState *copy, OrderReason reason) {
      if (copy->hostCovered || (!onHost && copy->deviceCovered))
        return;
      orders.add(copy, onHost, reason);
    };
    if (everything || side.anyHostWrite) {
      OrderReason reason =
          everything ? OrderReason::UnknownEffects : OrderReason::HostBuffer;
      for (CopyState *copy : notDoneForHost(open))
        visit(copy, reason);
      return;
    }
    for (Value root : side.hostWrites) {
      if (HostBufferAliasing::getOrigin(root) == HostBufferOrigin::Unknown) {
        for (CopyState *copy : notDoneForHost(open))
          visit(copy, OrderReason::HostBuffer);
        continue;
      }
      auto it = open.byHostRoot.find(root);
      if (it != open.byHostRoot.end()) {
        llvm::erase_if(it->second,
                       [](CopyState *copy) { return copy->hostCovered; });
        for (CopyState *copy : it->second)
          visit(copy, OrderReason::HostBuffer);
      }
      llvm::erase_if(open.openHostRoots,
                     [](CopyState *copy) { return copy->hostCovered; });
      for (CopyState *copy : open.openHostRoots)
        if (hostAliasing.mayAlias(root, copy->hostRoot))
          visit(copy, OrderReason::HostBuffer);
    }
  }

  /// Inserts before `op` the waits and syncs it needs.
  void orderBefore(Operation *op, const OpFootprint &footprint,
                   OpenCopies &open, unsigned kernels) {
    Orders orders;
    collectSlotConflicts(footprint.device.slots, /*onHost=*/false, open,
                         orders);
    collectHostConflicts(footprint.device, /*onHost=*/false,
                         /*everything=*/false, open, orders);
    collectSlotConflicts(footprint.host.slots, /*onHost=*/true, open, orders);
    collectHostConflicts(footprint.host, /*onHost=*/true, footprint.unknown,
                         open, orders);
    if (footprint.unknown)
      for (CopyState *copy : notDoneForHost(open))
        orders.add(copy, /*onHost=*/true, OrderReason::UnknownEffects);
    for (CopyState *copy : orders.sync)
      orders.wait.remove(copy);

    if (!orders.sync.empty())
      synchronize(*op->getBlock(), op, orders.sync.getArrayRef(),
                  /*includeWaited=*/true);
    if (!orders.wait.empty()) {
      builder.setInsertionPoint(op);
      auto wait = WaitOp::create(builder, op->getLoc(),
                                 minimalTokens(orders.wait.getArrayRef()));
      for (CopyState *copy : orders.wait)
        markDeviceCovered(copy, wait);
    }
    for (auto &[copy, reason] : orders.reasons)
      noteFirstWait(copy, op, reason, kernels);

    // Kernels run beside the host: a host op that may touch what the main
    // stream is still working on (an op of unknown effect, or a host access
    // to a slot) first waits for the main stream to get here.
    bool touchesMainWork =
        !open.mainInFlight.isEmpty() &&
        (footprint.unknown ||
         llvm::any_of(footprint.host.slots.getReads(),
                      [&](unsigned slot) {
                        return open.mainInFlight.mayAccess(slot);
                      }) ||
         llvm::any_of(footprint.host.slots.getWrites(), [&](unsigned slot) {
           return open.mainInFlight.mayAccess(slot);
         }));
    if (touchesMainWork)
      waitForMainStream(op, open);
    noteMainStreamWork(op, footprint, open);
  }

  /// The host waits, before `op`, for all main-stream work so far: through a
  /// vyre.record synchronized once.
  void waitForMainStream(Operation *op, OpenCopies &open) {
    builder.setInsertionPoint(op);
    Value progress = RecordOp::create(builder, op->getLoc());
    SyncOp::create(builder, op->getLoc(), ValueRange{progress});
    mainStreamDone(open);
  }

  /// The host has waited for the main stream: what it waited for is done.
  void mainStreamDone(OpenCopies &open) {
    open.mainInFlight = AccessSummary();
    for (CopyState *copy : notDoneForHost(open))
      if (copy->deviceCovered)
        markHostCovered(copy);
  }

  /// Records the main-stream work of `op`.
  void noteMainStreamWork(Operation *op, const OpFootprint &footprint,
                          OpenCopies &open) {
    // A blocking copy returns to the host once the main stream is done.
    if (blocksHostOnDeviceWork(op)) {
      mainStreamDone(open);
      return;
    }
    open.mainInFlight.merge(footprint.device.slots);
  }

  /// The tokens of `copies`, less those another of them implies, in
  /// creation order.
  SmallVector<Value> minimalTokens(ArrayRef<CopyState *> copies) {
    llvm::SmallPtrSet<CopyState *, 8> implied;
    SmallVector<CopyState *> worklist;
    for (CopyState *copy : copies)
      worklist.append(copy->implies.begin(), copy->implies.end());
    while (!worklist.empty()) {
      CopyState *copy = worklist.pop_back_val();
      if (implied.insert(copy).second)
        worklist.append(copy->implies.begin(), copy->implies.end());
    }
    SmallVector<CopyState *> kept;
    for (CopyState *copy : copies)
      if (!implied.contains(copy))
        kept.push_back(copy);
    llvm::sort(kept, [](CopyState *lhs, CopyState *rhs) {
      return lhs->id < rhs->id;
    });
    return llvm::map_to_vector(kept,
                               [](CopyState *copy) { return copy->getToken(); });
  }

  void markDeviceCovered(CopyState *copy, Operation *wait) {
    if (copy->deviceCovered)
      return;
    copy->deviceCovered = true;
    copy->coveringWait = wait;
    for (CopyState *prior : copy->implies)
      markDeviceCovered(prior, wait);
  }

  void markHostCovered(CopyState *copy) {
    if (copy->hostCovered)
      return;
    copy->hostCovered = true;
    copy->deviceCovered = true;
    for (CopyState *prior : copy->implies)
      markHostCovered(prior);
  }

  /// Inserts one vyre.sync before `op` (null: the end of `block`) that
  /// orders the host after `copies`. A copy the main stream already waited
  /// for is not waited for again: the host synchronizes on a vyre.record
  /// after the latest such wait instead (only if `includeWaited`).
  void synchronize(Block &block, Operation *op, ArrayRef<CopyState *> copies,
                   bool includeWaited) {
    SmallVector<CopyState *> direct;
    Operation *latestWait = nullptr;
    for (CopyState *copy : copies) {
      if (!copy->deviceCovered) {
        direct.push_back(copy);
        continue;
      }
      if (!includeWaited)
        continue;
      if (!latestWait || latestWait->isBeforeInBlock(copy->coveringWait))
        latestWait = copy->coveringWait;
    }
    SmallVector<Value> tokens = minimalTokens(direct);
    if (latestWait) {
      Value &record = recordAfterWait[latestWait];
      if (!record) {
        builder.setInsertionPointAfter(latestWait);
        record = RecordOp::create(builder, latestWait->getLoc());
      }
      tokens.push_back(record);
    }
    if (!tokens.empty()) {
      if (op)
        builder.setInsertionPoint(op);
      else
        builder.setInsertionPointToEnd(&block);
      Location loc = op ? op->getLoc() : function.getLoc();
      SyncOp::create(builder, loc, tokens);
    }
    for (CopyState *copy : copies)
      if (includeWaited || !copy->deviceCovered)
        markHostCovered(copy);
  }

  /// Joins the copies still open at the end of `block`, before its
  /// terminator (null: none).
  void joinAtEnd(Block &block, Operation *terminator, OpenCopies &open,
                 unsigned kernels) {
    SmallVector<CopyState *> pending;
    bool needsHostOrder = false;
    bool returnsFromFunction = terminator && block.getParentOp() == function &&
                               terminator->hasTrait<OpTrait::ReturnLike>();
    for (CopyState *copy : open.all) {
      if (copy->hostCovered)
        continue;
      if (!copy->deviceCovered) {
        pending.push_back(copy);
        continue;
      }
      // The main stream waited for the copy. A return waits for the main
      // stream; elsewhere the host must order itself after the copy if the
      // function may write its host buffer later.
      if (!returnsFromFunction && mayBeWrittenInFunction(copy->hostRoot)) {
        pending.push_back(copy);
        needsHostOrder = true;
      }
    }
    for (CopyState *copy : pending)
      if (!copy->deviceCovered)
        noteFirstWait(copy, terminator, OrderReason::EndOfBlock, kernels);
    if (!pending.empty())
      synchronize(block, terminator, pending, needsHostOrder);
  }

  bool mayBeWrittenInFunction(Value hostRoot) {
    const FunctionHostWrites &writes = getFunctionHostWrites();
    return writes.anyRoot || llvm::any_of(writes.roots, [&](Value root) {
             return hostAliasing.mayAlias(root, hostRoot);
           });
  }

  //===--------------------------------------------------------------------===//
  // Remarks
  //===--------------------------------------------------------------------===//

  remark::RemarkOpts remarkOptions(StringRef name) {
    return remark::RemarkOpts::name(name)
        .category(kRemarkCategory)
        .function(function.getName());
  }

  static std::string describeOp(Operation *op) {
    if (!op)
      return "the end of its block";
    return ("'" + op->getName().getStringRef() + "'").str();
  }

  /// Whether the host buffer `root` is known to be pinned: a function
  /// argument marked `vyre.pinned`, or registered with gpu.host_register.
  static bool isPinned(Value root) {
    if (auto argument = dyn_cast<BlockArgument>(root))
      if (auto function = dyn_cast<FunctionOpInterface>(
              argument.getOwner()->getParentOp()))
        if (argument.getOwner()->isEntryBlock() &&
            function.getArgAttr(argument.getArgNumber(),
                                VyreDialect::getPinnedAttrName()))
          return true;
    SmallVector<Value> worklist{root};
    while (!worklist.empty()) {
      Value buffer = worklist.pop_back_val();
      for (Operation *user : buffer.getUsers()) {
        if (isa<gpu::HostRegisterOp>(user))
          return true;
        if (auto view = dyn_cast<ViewLikeOpInterface>(user);
            view && view.getViewSource() == buffer)
          worklist.append(user->result_begin(), user->result_end());
      }
    }
    return false;
  }

  /// Emits the copy's remarks. The text is built only for remarks that are
  /// enabled (`--remarks-filter`).
  void emitRemarks(CopyState &copy) {
    Location loc = copy.op.getLoc();
    std::string slot = std::to_string(copy.slot);
    auto limit = [&]() -> std::string {
      if (!copy.hoistLimit)
        return "";
      if (copy.hoistReason == OrderReason::StreamOrder)
        return "; it stays behind the copy before it on side stream " +
               std::to_string(copy.op.getStream());
      return "; it cannot move above " + describeOp(copy.hoistLimit) + " (" +
             describe(copy.hoistReason).str() + " on slot " + slot + ")";
    };
    auto wait = [&] {
      return describeOp(copy.firstWaiter) + " (" +
             describe(copy.waitReason).str() + ")";
    };
    if (copy.kernelsOverlapped > 0) {
      if (auto remark = remark::passed(loc, remarkOptions("CopyOverlapped")))
        remark << "copy into slot " + slot + " may overlap " +
                      std::to_string(copy.kernelsOverlapped) +
                      " kernel(s); first wait at " + wait() + limit();
    } else if (auto remark =
                   remark::missed(loc, remarkOptions("CopyNotOverlapped"))) {
      remark << "copy into slot " + slot + " overlaps no kernel: " + wait() +
                    " waits for it right away" + limit();
    }
    if (isPinned(copy.hostRoot))
      return;
    if (auto remark =
            remark::analysis(loc, remarkOptions("PageableHostBuffer")))
      remark << "host buffer of the copy into slot " + slot +
                    " is not known to be pinned (gpu.host_register, or a "
                    "'vyre.pinned' argument): a copy from pageable memory is "
                    "staged synchronously and defeats overlap";
  }

  FunctionOpInterface function;
  SlotAccessAnalysis &slots;
  HostBufferAliasing hostAliasing;
  OpBuilder builder;
  bool hoist;
  unsigned sideStreams;
  unsigned nextStream = 0;

  /// Stable addresses: states are referred to by pointer.
  std::deque<CopyState> copies;
  DenseMap<Operation *, CopyState *> stateOf;
  DenseMap<Operation *, Value> recordAfterWait;

  /// Which host buffers the function may write anywhere, computed on first
  /// use (only copies in nested or non-entry blocks need it).
  struct FunctionHostWrites {
    bool anyRoot = false;
    SetVector<Value> roots;
    bool anyRootByDevice = false;
    SetVector<Value> rootsByDevice;
  };
  std::optional<FunctionHostWrites> functionHostWrites;

  const FunctionHostWrites &getFunctionHostWrites() {
    if (functionHostWrites)
      return *functionHostWrites;
    OpFootprint everything;
    for (Block &block : function.getFunctionBody())
      for (Operation &op : block)
        everything.merge(computeOpFootprint(&op, slots));
    FunctionHostWrites &writes = functionHostWrites.emplace();
    writes.anyRoot = everything.unknown || everything.device.anyHostWrite ||
                     everything.host.anyHostWrite;
    writes.roots.insert(everything.device.hostWrites.begin(),
                        everything.device.hostWrites.end());
    writes.roots.insert(everything.host.hostWrites.begin(),
                        everything.host.hostWrites.end());
    writes.anyRootByDevice =
        everything.unknown || everything.device.anyHostWrite;
    writes.rootsByDevice.insert(everything.device.hostWrites.begin(),
                                everything.device.hostWrites.end());
    return writes;
  }
};

struct OverlapCopiesPass
    : public vyre::impl::OverlapCopiesPassBase<OverlapCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (sideStreams == 0) {
      function.emitOpError(
          "cannot run --overlap-copies with side-streams=0: copies need at "
          "least one side stream");
      return signalPassFailure();
    }
    bool hasCopies = function
                         .walk([](CopyH2DOp) { return WalkResult::interrupt(); })
                         .wasInterrupted();
    if (!hasCopies) {
      markAllAnalysesPreserved();
      return;
    }
    SlotAccessAnalysis &slots = getAnalysis<SlotAccessAnalysis>();
    for (SymbolRefAttr kernel : slots.getUnsummarizedKernels())
      if (auto remark = remark::missed(
              function.getLoc(), remark::RemarkOpts::name("KernelNotSummarized")
                                     .category(kRemarkCategory)
                                     .function(function.getName())))
        remark << "kernel " + symbolText(kernel) +
                      " has no 'vyre.access' summary (run --vyre-kernel-access "
                      "first): it is taken to read and write every argument";
    CopyOverlapper(function, slots, hoist, sideStreams).run();
  }
};

} // namespace
