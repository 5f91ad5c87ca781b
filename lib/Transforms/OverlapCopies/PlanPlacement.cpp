//===- PlanPlacement.cpp - Where each async copy goes ------------*- C++ -*-===//
//
// Step 1 of planning --overlap-copies, block by block in program order: each
// copy moves up to just after the last op it must follow (an access to its
// slot, a write of its host buffer or of its source slot, a definition of its
// operands, the copy before it on its stream), and depends on the last work in
// flight that touched its slot or its host buffer. Nested blocks are planned
// on their own first; the op holding them counts as everything inside it.
//
//===----------------------------------------------------------------------===//

#include "PlacementPlanner.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/ViewDisjointness.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;


void PlacementPlanner::planBlock(Block &block, BlockState *enclosing) {
  BlockState state;
  state.block = &block;
  state.enclosing = enclosing;
  Stamp previous;
  for (Operation &op : block) {
    ++context.steps;
    Stamp stamp{{&op, 0}, &op, std::nullopt};
    context.hasInputAsyncCopies |= isa<CopyH2DAsyncOp, CopyD2HAsyncOp>(op);
    // Device code holds no copies to place, and gets no host ops.
    if (!hasDeviceCodeRegions(&op))
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          planBlock(nested, isa<scf::IfOp>(op) ? &state : nullptr);
    bool declined = options.leaveInPlace.contains(&op);
    if (auto copy = dyn_cast<CopyH2DOp>(op); copy && !declined)
      if (planCopy(copy, previous, state))
        continue;
    if (auto copy = dyn_cast<CopyD2HOp>(op);
        copy && options.asyncD2H && !declined)
      if (planCopyToHost(copy, previous, state))
        continue;
    // A copy the cost model leaves in place still runs on a copy engine:
    // the later copies in its direction stay behind it, as on a stream, so
    // that moving them does not put them ahead of it on the engine.
    if (declined && isa<CopyH2DOp>(op))
      for (int64_t stream = 1; stream <= int64_t(options.sideStreams); ++stream)
        state.lastCopyOnStream[stream] = stamp;
    if (declined && isa<CopyD2HOp>(op))
      for (unsigned i = 1; i <= options.d2hStreams; ++i)
        state.lastCopyOnStream[int64_t(options.sideStreams + i)] = stamp;
    state.last.note(stamp, context.footprints.get(&op));
    previous = stamp;
  }
  context.steps += state.last.steps;
}

PlanPoint PlacementPlanner::insertAfter(BlockState &state, const Stamp &after) {
  Operation *anchor = after.point.anchor;
  return {anchor, ++state.insertedAfter[anchor]};
}

PlannedDependency PlacementPlanner::recordAfter(BlockState &state,
                                                const Stamp &op, Location loc) {
  Operation *anchor = op.point.anchor;
  PlannedDependency record{PlannedDependency::Kind::Record, 0, Value(), anchor};
  if (state.recordAfter[anchor])
    return record;
  state.recordAfter[anchor] = true;
  insertAfter(state, op);
  plan.insertions.push_back({PlannedInsertion::Kind::Record, state.block,
                             anchor, nullptr, 0, {}, std::nullopt, loc});
  return record;
}

std::optional<AsyncCopy> PlacementPlanner::asyncCopyAt(const Stamp &stamp) const {
  if (stamp.copy)
    return AsyncCopy{{PlannedDependency::Kind::Copy, *stamp.copy, Value(),
                      nullptr},
                     plan.copies[*stamp.copy].stream,
                     plan.copies[*stamp.copy].toHost};
  // Work the input already put on a side stream, with a token.
  auto input = dyn_cast_or_null<StreamOpInterface>(stamp.op);
  if (!input || input.getStreamIndex().value_or(0) <= 0 ||
      !input.getCompletionToken())
    return std::nullopt;
  return AsyncCopy{{PlannedDependency::Kind::Token, 0,
                    input.getCompletionToken(), nullptr},
                   *input.getStreamIndex(),
                   input.getDeviceWork() == DeviceWork::CopyToHost};
}

void PlacementPlanner::follow(WorkToFollow &work, const Stamp &stamp) const {
  std::optional<AsyncCopy> async = asyncCopyAt(stamp);
  if (!async) {
    if (mayHaveDeviceWork(stamp))
      work.mainStream.keepLatest(stamp);
    return;
  }
  for (auto &[copy, at] : work.copies) {
    if (copy.stream != async->stream)
      continue;
    if (at.point.isBefore(stamp.point))
      std::tie(copy, at) = std::make_pair(*async, stamp);
    return;
  }
  work.copies.push_back({*async, stamp});
}

void PlacementPlanner::addDependencies(
    const WorkToFollow &work, BlockState &state, Location loc,
    SmallVectorImpl<PlannedDependency> &dependencies) {
  for (auto &entry : work.copies)
    dependencies.push_back(entry.first.token);
  if (work.mainStream)
    dependencies.push_back(recordAfter(state, work.mainStream, loc));
}

bool PlacementPlanner::mayHaveDeviceWork(const Stamp &stamp) const {
  if (!stamp || stamp.copy)
    return static_cast<bool>(stamp);
  OpFootprint footprint = context.footprints.get(stamp.op);
  return footprint.unknown || footprint.numKernels != 0 ||
         !footprint.device.slots.isEmpty() || footprint.device.mayWriteHost();
}

std::function<Operation *(const Stamp &)>
PlacementPlanner::writesOtherBytes(const CopyNeeds &needs) {
  return [this, source = needs.source,
          root = needs.hostRoot](const Stamp &writer) -> Operation * {
    Operation *op =
        writer.op ? writer.op
                  : (writer.copy ? plan.copies[*writer.copy].original : nullptr);
    if (op && touchesOnlyOtherBytes(op, context.footprints.get(op), source,
                                    root, context.hostAliasing))
      return op;
    return nullptr;
  };
}

bool PlacementPlanner::slotMayBeBusyAtStart(Block &block, Value target,
                                            ArrayRef<unsigned> copySlots) {
  // A buffer allocated in this block is new in it.
  Value root = SlotAccessAnalysis::resolveRoot(target);
  if (auto allocation = root.getDefiningOp<StreamOpInterface>();
      allocation && allocation->getBlock() == &block) {
    SmallVector<BufferAccess, 8> accesses;
    allocation.getBufferAccesses(accesses);
    if (llvm::any_of(accesses, [&](const BufferAccess &access) {
          return access.effect == BufferEffect::Allocate &&
                 access.buffer == root;
        }))
      return false;
  }
  // Outside the entry block, earlier ops and earlier iterations may.
  if (!context.isFunctionEntry(block))
    return true;
  // In the entry block only the caller's work on an argument may.
  return llvm::any_of(copySlots, [&](unsigned slot) {
    return isa<BlockArgument>(slots.getSlots()[slot]);
  });
}

bool PlacementPlanner::hostBufferMayBeBusyAtStart(Block &block,
                                                  Value hostRoot) {
  if (context.isFunctionEntry(block))
    return false;
  const FunctionHostWrites &writes = context.getFunctionHostWrites();
  return writes.anyRootByDevice ||
         llvm::any_of(writes.rootsByDevice, [&](Value root) {
           return context.hostAliasing.mayAlias(root, hostRoot);
         });
}

OrderReason PlacementPlanner::reasonToStayBelow(const Stamp &stamp,
                                                ArrayRef<unsigned> copySlots) {
  // A planned copy before this one writes the same slots.
  if (stamp.copy)
    return OrderReason::of(HazardKind::WriteWrite);
  OpFootprint footprint = context.footprints.get(stamp.op);
  AccessSummary earlier = footprint.device.slots;
  earlier.merge(footprint.host.slots);
  if (footprint.unknown)
    earlier = AccessSummary::unknown();
  Concurrency verdict =
      canRunConcurrently(earlier, AccessSummary({}, copySlots));
  return OrderReason::of(
      verdict.reason.value_or(HazardKind::WriteAfterRead));
}

CopyNeeds PlacementPlanner::findNeeds(CopyH2DOp copy,
                                      ArrayRef<unsigned> copySlots,
                                      BlockState &state) {
  LastAccesses &last = state.last;
  CopyNeeds needs;
  needs.slots.assign(copySlots.begin(), copySlots.end());
  needs.source = copy.getSource();
  needs.hostRoot = SlotAccessAnalysis::resolveRoot(needs.source);
  auto otherBytes = writesOtherBytes(needs);
  // The copy waits for the last op that touched its slot.
  auto keep = [](Stamp &latest, SmallVectorImpl<Stamp> &each,
                 const Stamp &access) {
    if (!access)
      return;
    latest.keepLatest(access);
    each.push_back(access);
  };
  keep(needs.lastSlotAccess, needs.slotAccesses, last.anySlot);
  for (unsigned slot : copySlots)
    keep(needs.lastSlotAccess, needs.slotAccesses, last.slot.lookup(slot));
  // A source that may be a slot too (an argument, a buffer of unknown origin,
  // a device buffer copied as if it were host memory) must not be read
  // before earlier writes of it are done.
  needs.sourceSlots = HostBufferAliasing::getSlotsOf(needs.hostRoot, slots);
  if (!needs.sourceSlots.empty()) {
    keep(needs.lastSourceWrite, needs.sourceWrites, last.anySlotWrite);
    for (unsigned slot : needs.sourceSlots)
      keep(needs.lastSourceWrite, needs.sourceWrites,
           last.lastWriteNotSkipped(last.slotWrite, last.priorSlotWrite, slot,
                                    otherBytes));
  }
  for (unsigned slot : copySlots)
    if (isa<BlockArgument>(slots.getSlots()[slot]))
      needs.targetArguments.push_back(slots.getSlots()[slot]);
  // Earlier copies whose source may be this copy's destination, or whose
  // destination may be this copy's source, through aliasing arguments; the
  // latest on each side stream, since stream order covers the others.
  SmallVector<std::pair<int64_t, Stamp>, 4> aliasing;
  context.steps += last.copyReadingRoot.size() +
                   last.copyWritingArgument.size();
  auto keepOnStream = [&](int64_t stream, const Stamp &copy) {
    for (auto &[each, latest] : aliasing)
      if (each == stream)
        return latest.keepLatest(copy);
    aliasing.push_back({stream, copy});
  };
  for (auto &[key, reader] : last.copyReadingRoot)
    if (llvm::any_of(needs.targetArguments, [&, root = key.first](Value arg) {
          return context.hostAliasing.mayAlias(root, arg);
        }))
      keepOnStream(key.second, reader);
  for (auto &[key, writer] : last.copyWritingArgument)
    if (context.hostAliasing.mayAlias(key.first, needs.hostRoot))
      keepOnStream(key.second, writer);
  // Earlier copies that still read this copy's destination.
  for (unsigned slot : copySlots)
    for (auto &[stream, reader] : last.copyReadingSlot.lookup(slot))
      keepOnStream(stream, reader);
  for (auto &entry : aliasing)
    needs.aliasingCopies.push_back(entry.second);
  llvm::sort(needs.aliasingCopies, [](const Stamp &lhs, const Stamp &rhs) {
    return lhs.point.isBefore(rhs.point);
  });
  // A copy that depends on an earlier copy into its slot runs on that copy's
  // stream; others take the side streams in turn.
  needs.prior = asyncCopyAt(needs.lastSlotAccess);
  // A copy into the host on its own stream is waited for, not followed.
  if (needs.prior && needs.prior->toHost) {
    needs.aliasingCopies.push_back(needs.lastSlotAccess);
    needs.prior.reset();
  }
  needs.stream = needs.prior ? needs.prior->stream
                             : 1 + int64_t(nextStream++ % options.sideStreams);
  return needs;
}

std::pair<Stamp, OrderReason>
PlacementPlanner::findLimit(CopyH2DOp copy, const CopyNeeds &needs,
                            const Stamp &previous, BlockState &state) {
  if (!options.hoist)
    return {previous, OrderReason::of(OrderReason::Kind::OperandDefinition)};
  Stamp limit;
  OrderReason reason = OrderReason::of(OrderReason::Kind::OperandDefinition);
  auto consider = [&](const Stamp &candidate, OrderReason why) {
    Stamp before = limit;
    limit.keepLatest(candidate);
    if (limit.point.anchor != before.point.anchor ||
        limit.point.rank != before.point.rank)
      reason = why;
  };
  if (needs.lastSlotAccess)
    consider(needs.lastSlotAccess,
             reasonToStayBelow(needs.lastSlotAccess, needs.slots));
  consider(state.last.lastWriterOf(
               needs.hostRoot, state.last.hostWrite, state.last.anyHostWrite,
               context.hostAliasing, &state.last.priorHostWrite,
               writesOtherBytes(needs)),
           OrderReason::of(HazardKind::HostBuffer));
  consider(needs.lastSourceWrite, OrderReason::of(HazardKind::ReadAfterWrite));
  for (const Stamp &aliasing : needs.aliasingCopies)
    consider(aliasing, OrderReason::of(HazardKind::HostBuffer));
  for (Value operand : {copy.getSource(), copy.getTarget()})
    if (Operation *definition = operand.getDefiningOp();
        definition && definition->getBlock() == state.block)
      consider({{definition, 0}, definition, std::nullopt},
               OrderReason::of(OrderReason::Kind::OperandDefinition));
  // On its stream, the copy stays behind the copies before it, so that a
  // copy needed later never delays one needed sooner.
  consider(state.lastCopyOnStream.lookup(needs.stream),
           OrderReason::of(OrderReason::Kind::StreamOrder));
  return {limit, reason};
}

SmallVector<PlannedDependency>
PlacementPlanner::findDependencies(CopyH2DOp copy, const CopyNeeds &needs,
                                   BlockState &state) {
  // The last copy into the slot, and the main stream's progress past the
  // last op that touched the slot or may still be writing the host buffer;
  // a copy into the host on its own stream, writing the host buffer, through
  // its token, which no main-stream record covers.
  SmallVector<PlannedDependency> dependencies;
  WorkToFollow work;
  state.last.forEachWriterOf(
      needs.hostRoot, state.last.deviceHostWrite, state.last.anyDeviceHostWrite,
      context.hostAliasing, [&](const Stamp &writer) { follow(work, writer); },
      &state.last.priorDeviceHostWrite, writesOtherBytes(needs));
  // A host op is done when the copy is enqueued (program order), and the
  // host waited for the main-stream work it conflicts with before it ran:
  // only device work needs a record.
  if (needs.prior)
    dependencies.push_back(needs.prior->token);
  else
    for (const Stamp &access : needs.slotAccesses)
      follow(work, access);
  for (const Stamp &write : needs.sourceWrites)
    follow(work, write);
  for (const Stamp &aliasing : needs.aliasingCopies)
    if (std::optional<AsyncCopy> other = asyncCopyAt(aliasing))
      dependencies.push_back(other->token);
  bool busyAtStart =
      (!needs.lastSlotAccess &&
       slotMayBeBusyAtStart(*state.block, copy.getTarget(), needs.slots)) ||
      hostBufferMayBeBusyAtStart(*state.block, needs.hostRoot);
  addDependencies(work, state, copy.getLoc(), dependencies);
  if (!work.mainStream && busyAtStart) {
    // In a branch, the work before the branch that touched the slot, rather
    // than all of it, where that can be told.
    FailureOr<std::optional<PlannedDependency>> enclosing =
        findEnclosingDependency(copy.getTarget(), needs, state, copy.getLoc());
    if (failed(enclosing))
      dependencies.push_back(recordAfter(state, Stamp(), copy.getLoc()));
    else if (*enclosing)
      dependencies.push_back(**enclosing);
  }
  // Several reasons may name the same token: each once.
  return unique(dependencies);
}

/// For a copy in a block of an scf.if that nothing in the block before it
/// touches its slot or writes its host buffer (`needs`, worked out in
/// `inner`): the main-stream progress it must follow, as a record in the
/// block around the scf.if after the last op there that touched the slot,
/// wrote the host buffer on the device, or wrote the source's slot (in the
/// block around that, if none did, and so on); none where no work before
/// may touch them. Fails where this cannot be told so simply (a copy in
/// flight there reads or writes them, the destination is an argument): the
/// copy then follows all the work before the branch.
FailureOr<std::optional<PlannedDependency>>
PlacementPlanner::findEnclosingDependency(Value target, const CopyNeeds &needs,
                                          BlockState &inner, Location loc) {
  BlockState *outer = inner.enclosing;
  if (!outer || !needs.targetArguments.empty() || !needs.aliasingCopies.empty())
    return failure();
  LastAccesses &last = outer->last;
  WorkToFollow work;
  Stamp slotAccess = last.anySlot;
  follow(work, last.anySlot);
  for (unsigned slot : needs.slots) {
    slotAccess.keepLatest(last.slot.lookup(slot));
    follow(work, last.slot.lookup(slot));
    if (!last.copyReadingSlot.lookup(slot).empty())
      return failure();
  }
  last.forEachWriterOf(needs.hostRoot, last.deviceHostWrite,
                       last.anyDeviceHostWrite, context.hostAliasing,
                       [&](const Stamp &writer) { follow(work, writer); });
  // A source that is a slot too (an argument): the writes of it.
  if (!needs.sourceSlots.empty()) {
    follow(work, last.anySlotWrite);
    for (unsigned slot : needs.sourceSlots)
      follow(work, last.slotWrite.lookup(slot));
  }
  if (!work.copies.empty())
    return failure();
  Stamp mainStreamWork = work.mainStream;
  auto inOuterBlock = [&](PlannedDependency record) {
    record.recordBlock = outer->block;
    return std::optional<PlannedDependency>(record);
  };
  if (mainStreamWork)
    return inOuterBlock(recordAfter(*outer, mainStreamWork, loc));
  bool busyAtStart =
      (!slotAccess &&
       slotMayBeBusyAtStart(*outer->block, target, needs.slots)) ||
      hostBufferMayBeBusyAtStart(*outer->block, needs.hostRoot);
  if (!busyAtStart)
    return std::optional<PlannedDependency>();
  FailureOr<std::optional<PlannedDependency>> further =
      findEnclosingDependency(target, needs, *outer, loc);
  if (succeeded(further))
    return further;
  return inOuterBlock(recordAfter(*outer, Stamp(), loc));
}

void PlacementPlanner::notePlacedCopy(const CopyNeeds &needs,
                                      const Stamp &placed, BlockState &state) {
  LastAccesses &last = state.last;
  for (unsigned slot : needs.slots) {
    last.slot[slot] = placed;
    last.slotWrite[slot] = placed;
  }
  // A later copy into the source slot must follow this one.
  last.noteCopyReadingSlots(needs.sourceSlots, needs.stream, placed);
  state.lastCopyOnStream[needs.stream] = placed;
  if (HostBufferAliasing::getOrigin(needs.hostRoot) !=
      HostBufferOrigin::Allocation)
    last.copyReadingRoot[{needs.hostRoot, needs.stream}] = placed;
  last.copyReadingHost[{needs.hostRoot, needs.stream}] = placed;
  for (Value target : needs.targetArguments)
    last.copyWritingArgument[{target, needs.stream}] = placed;
}

bool PlacementPlanner::planCopy(CopyH2DOp copy, const Stamp &previous,
                                BlockState &state) {
  bool exact = true;
  SmallVector<unsigned> copySlots = slots.getSlotsOf(copy.getTarget(), &exact);
  if (!exact) {
    plan.keptInPlace.push_back(copy);
    return false;
  }
  CopyNeeds needs = findNeeds(copy, copySlots, state);
  auto [limit, reason] = findLimit(copy, needs, previous, state);
  SmallVector<PlannedDependency> dependencies =
      findDependencies(copy, needs, state);

  unsigned index = plan.copies.size();
  PlannedCopy &planned = plan.copies.emplace_back();
  planned.id = index;
  planned.original = copy;
  planned.block = state.block;
  planned.at = insertAfter(state, limit);
  planned.stream = needs.stream;
  planned.dependencies = std::move(dependencies);
  planned.slot = *slots.getSlotNumber(
      SlotAccessAnalysis::resolveRoot(copy.getTarget()));
  planned.slots.assign(needs.slots.begin(), needs.slots.end());
  planned.hostRoot = needs.hostRoot;
  planned.sourceSlots.assign(needs.sourceSlots.begin(), needs.sourceSlots.end());
  if (options.hoist && limit &&
      reason.kind != OrderReason::Kind::OperandDefinition) {
    planned.hoistLimit = {limit.op, limit.copy};
    planned.hoistReason = reason;
  }
  addToPlan(planned, state);
  notePlacedCopy(needs, {planned.at, nullptr, index}, state);
  return true;
}

void PlacementPlanner::addToPlan(PlannedCopy &planned, BlockState &state) {
  plan.insertions.push_back({PlannedInsertion::Kind::Copy, state.block,
                             planned.at.anchor, nullptr, planned.id, {},
                             std::nullopt, planned.original->getLoc()});
  context.copiesAfter[{state.block, planned.at.anchor}].push_back(planned.id);
  context.replaced.insert(planned.original);
}

SmallVector<PlannedDependency>
PlacementPlanner::unique(ArrayRef<PlannedDependency> dependencies) {
  SmallVector<PlannedDependency> result;
  for (const PlannedDependency &dependency : dependencies)
    if (!llvm::is_contained(result, dependency))
      result.push_back(dependency);
  return result;
}

void overlap::planPlacement(PlanContext &context, const PlanOptions &options) {
  PlacementPlanner planner(context, options);
  for (Block &block : context.plan.function.getFunctionBody())
    planner.planBlock(block);
}
