//===- ChainedRegions.cpp - Region ops chained on the device --------------===//
//
// Part of --convert-vyre-to-gpu. Rule 1 of VyreToGPU.cpp makes the host wait
// for the device before a region op, and for a region's streams at the end
// of each of its executions: for a loop, at the end of every iteration. A
// device region (`isDeviceRegion`: an `scf.for` or an `scf.if` whose vyre
// ops are all directly in its blocks or in device regions nested in them)
// does without, ordered on the device by events instead:
//
//  - Before the op, an event is recorded after the main stream's work, the
//    tokens its next op was to wait for, and the side streams the op
//    enqueues copies on (a side stream's copies run in program order): on
//    the main stream if that is all, otherwise on one of those streams that
//    waits for the others itself (recorderAfter), or on a join. Those streams are retired, not waited for: they stay alive
//    until the block's end, so that later joins may still name their tokens,
//    but no op continues on them.
//  - Every stream a run of a block of the op creates first waits for the
//    event before it (`mgpuStreamWaitEvent`), unless it joins a token that
//    is after that event already (StreamTracker::isAfterEvent); an op that
//    continues a stream that waited does not wait again. At its end, the
//    run records the next event after the streams it still has (those no
//    other of them joined, StreamTracker::withoutJoined): on one of them
//    that waits for the others itself, or on a join of them;
//    after a nested chained op that its streams all precede, that op's last
//    event is the next one. It destroys the event it waited for (unless it
//    hands it on), and every stream it created without the host waiting
//    (`mgpuStreamDestroy`: CUDA frees a stream once its work is done). A
//    loop carries the event from one iteration to the next (an `!llvm.ptr`
//    iter_arg); a branch yields it (an `!llvm.ptr` result), a branch without
//    device work the event before it.
//  - After the op, every stream the enclosing block creates waits for the
//    last event (the main stream starts anew); at its end the block waits
//    for the event on the host and destroys it.
//
// The ordering is the one the host's waits gave, moved to the device. Why an
// event and not a token: upstream's pipeline does not convert an `scf.for`
// that carries a `!gpu.async.token`, and gpu-to-llvm takes a token that is a
// block argument for an event. Why every new stream waits (but one joined
// from a token after the event): `canonicalize` drops a stream without gpu
// ops from the joins that name it, so no single stream can stand for "after
// the previous iteration".
//
//===----------------------------------------------------------------------===//

#include "VyreToGPULowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::vyre_to_gpu;

bool VyreToGPULowering::chainsOnDevice(Operation *op) {
  return carryLoopStreams && summaries.isDeviceRegion(op) &&
         streamsUsedInside(op).empty();
}

/// `loop` rebuilt with one more iter_arg, `event`, which its body does not
/// yield yet; the old loop is erased.
static scf::ForOp withEventIterArg(OpBuilder &builder, scf::ForOp loop,
                                   Value event) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(loop);
  SmallVector<Value> inits(loop.getInitArgs());
  inits.push_back(event);
  auto carried = scf::ForOp::create(
      builder, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
      loop.getStep(), inits, /*bodyBuilder=*/nullptr, loop.getUnsignedCmp());
  carried->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  Region &region = carried.getRegion();
  region.getBlocks().clear();
  region.takeBody(loop.getRegion());
  region.front().addArgument(event.getType(), loop.getLoc());
  loop.replaceAllUsesWith(
      carried.getResults().take_front(loop.getNumResults()));
  loop.erase();
  return carried;
}

/// `branch` rebuilt with one more result, an event, which its blocks do not
/// yield yet; a branch without an else block gets an empty one. The old
/// branch is erased.
static scf::IfOp withEventResult(OpBuilder &builder, scf::IfOp branch,
                                 Type eventType) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(branch);
  SmallVector<Type> types(branch.getResultTypes());
  types.push_back(eventType);
  auto chained = scf::IfOp::create(builder, branch.getLoc(), types,
                                   branch.getCondition(),
                                   /*withElseRegion=*/false);
  chained->setDiscardableAttrs(branch->getDiscardableAttrDictionary());
  chained.getThenRegion().takeBody(branch.getThenRegion());
  if (branch.getElseRegion().empty()) {
    builder.createBlock(&chained.getElseRegion());
    scf::YieldOp::create(builder, branch.getLoc());
  } else {
    chained.getElseRegion().takeBody(branch.getElseRegion());
  }
  branch.replaceAllUsesWith(
      chained.getResults().take_front(branch.getNumResults()));
  branch.erase();
  return chained;
}

VyreToGPULowering::ChainStart
VyreToGPULowering::startChain(Operation *op, StreamState &state) {
  ChainStart start;
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  // What is lent to the block is lent on to the op's blocks: it comes
  // before the event before the op as well.
  start.lent = std::move(lentStreams);
  lentStreams.clear();
  if (!retainsStreams) {
    // Every stream of the block is joined and released: the event stands for
    // all of them. No token lives across the op, so that lowered blocks
    // after it never differ only in a token (upstream's rewrite driver
    // would merge them into a block taking the token as an argument, which
    // gpu-to-llvm takes for an event).
    start.before = streams.liveTails(streams.getBlockStreams());
    // The main stream's pending waits name tokens on those streams.
    state.mainWaits.clear();
    if (start.before.empty() && awaitedEvent) {
      start.event = awaitedEvent;
      awaitedEvent = Value();
      return start;
    }
    start.event = runtime.createEvent(loc);
    SmallVector<Value> last = streams.withoutJoined(start.before);
    Value recorder = recorderAfter(
        last,
        [&](Value tail) { return tail == state.main || !awaitedEvent; },
        loc);
    recordEventOn(start.event, recorder, loc);
    for (Value tail : streams.releaseStreams(streams.getBlockStreams(), state))
      lendStream(tail, start, loc);
    return start;
  }
  if (state.main)
    start.before.push_back(state.main);
  // What the main stream's next op was to wait for, the op waits for.
  for (Value token : state.mainWaits)
    if (!streams.isComplete(token))
      start.before.push_back(token);
  state.mainWaits.clear();
  start.before = streams.latestPerStream(start.before);
  for (int64_t index : summaries.sideStreams(op)) {
    Value tail = state.side.lookup(index);
    if (!tail)
      continue;
    start.retiredSides.push_back(index);
    if (!llvm::is_contained(start.before, tail))
      start.before.push_back(tail);
  }

  // With nothing in flight but the block's awaited event, that event is the
  // one to start after: the op takes it over (and destroys it).
  if (start.before.empty() && awaitedEvent) {
    start.event = awaitedEvent;
    awaitedEvent = Value();
    return start;
  }
  // The main stream waits for the block's awaited event, if any: it was
  // made after that was set. A side stream may predate it: a join, which
  // waits for it as every new stream does, records the event instead; so
  // does a stream made for it where there is nothing to wait for.
  start.event = runtime.createEvent(loc);
  SmallVector<Value> last = streams.withoutJoined(start.before);
  Value recorder = recorderAfter(
      last, [&](Value tail) { return tail == state.main || !awaitedEvent; },
      loc);
  recordEventOn(start.event, recorder, loc);
  lendRetiredStreams(start, state, loc);
  if (llvm::is_contained(last, recorder))
    return start;
  StreamState scratch;
  for (Value tail :
       streams.releaseStreams({streams.streamOf(recorder)}, scratch))
    lendStream(tail, start, loc);
  return start;
}

void VyreToGPULowering::finishChain(Operation *op, Value last,
                                    const ChainStart &start,
                                    StreamState &state) {
  // The rest of the block starts after the op's work: every stream made
  // from now on waits for its last event.
  builder.setInsertionPointAfter(op);
  state.main = Value();
  for (int64_t index : start.retiredSides)
    state.side[index] = Value();
  if (awaitedEvent)
    runtime.destroyEvent(awaitedEvent, op->getLoc());
  // The streams lent to the op come before its last event too.
  lentStreams = start.lent;
  awaitedEvent = last;
  awaitedEventDone = false;
  awaitedEventCovers = streams.extendCovers(awaitedEventCovers, start.before);
  streams.setOrderedAfter(awaitedEventCovers);
}

LogicalResult VyreToGPULowering::lowerChainedLoop(scf::ForOp loop,
                                                  StreamState &state) {
  ChainStart start = startChain(loop, state);
  scf::ForOp carried = withEventIterArg(builder, loop, start.event);
  Block &body = *carried.getBody();
  if (failed(lowerChainedBlock(body, body.getArguments().back(), start,
                               carried.getLoc())))
    return failure();
  finishChain(carried, carried.getResults().back(), start, state);
  return success();
}

LogicalResult VyreToGPULowering::lowerChainedBranch(scf::IfOp branch,
                                                    StreamState &state) {
  ChainStart start = startChain(branch, state);
  scf::IfOp chained =
      withEventResult(builder, branch, start.event.getType());
  for (Region *region : {&chained.getThenRegion(), &chained.getElseRegion()}) {
    Block &block = region->front();
    bool hostWaits = llvm::any_of(
        block, [&](Operation &op) { return waitsForDevice(&op); });
    if (!summaries.holdsVyreOps(*region) && !hostWaits) {
      // Nothing runs on the device: the event before is the one after.
      Operation *yield = block.getTerminator();
      yield->insertOperands(yield->getNumOperands(), start.event);
      continue;
    }
    if (failed(
            lowerChainedBlock(block, start.event, start, chained.getLoc())))
      return failure();
  }
  finishChain(chained, chained.getResults().back(), start, state);
  return success();
}

Value VyreToGPULowering::recorderAfter(
    ArrayRef<Value> tails, llvm::function_ref<bool(Value)> mayRecord,
    Location loc) {
  for (Value host : tails) {
    if (!mayRecord(host))
      continue;
    SmallVector<Value> others =
        llvm::filter_to_vector(tails, [&](Value tail) {
          return streams.streamOf(tail) != streams.streamOf(host);
        });
    if (!others.empty() &&
        !streams.canJoinInPlace(host, others, builder.getInsertionBlock()))
      continue;
    for (Value other : others) {
      Value event = runtime.createEvent(loc);
      recordEventOn(event, other, loc);
      runtime.streamWaitEvent(host, event, loc);
      runtime.destroyEvent(event, loc);
    }
    if (!others.empty())
      streams.noteJoinInPlace(host, others);
    return host;
  }
  return streams.join(Value(), tails, loc);
}

LogicalResult VyreToGPULowering::lowerChainedBlock(Block &block,
                                                   Value previous,
                                                   ChainStart &start,
                                                   Location loc) {
  ArrayRef<Value> orderedAfter = start.before;
  SmallVector<Value> enclosingLent = std::move(lentStreams);
  SmallVector<Value> enclosingOwnedLent = std::move(ownedLentStreams);
  lentStreams = start.lent;
  ownedLentStreams.clear();
  StreamsBeforeLoop enclosingBeforeLoop = streamsBeforeLoop;
  streamsBeforeLoop = {};
  if (isa<scf::ForOp>(block.getParentOp()))
    streamsBeforeLoop = {block.getParentOp(), &enclosingOwnedLent,
                         &start.lent};
  Value enclosingEvent = awaitedEvent;
  bool enclosingEventDone = awaitedEventDone;
  // The event the block waits for was recorded after the streams the op
  // starts after, and after the block's earlier chained ops.
  StreamTracker::Covers enclosingCovers = awaitedEventCovers;
  awaitedEventCovers = streams.extendCovers(awaitedEventCovers, orderedAfter);
  awaitedEvent = previous;
  awaitedEventDone = false;
  StreamState state;
  StreamTracker::EnclosingBlock enclosing = streams.enterBlock();
  streams.setOrderedAfter(awaitedEventCovers);
  size_t completion = streams.saveCompletion();
  bool enclosingRetains = retainsStreams;
  retainsStreams = isa<scf::ForOp>(block.getParentOp());
  if (failed(lowerOps(block.begin(), block, state)))
    return failure();
  retainsStreams = enclosingRetains;

  // One stream for the run's work, which records the next event. After a
  // nested chained op, streams retired before it do not wait for its last
  // event: a new stream, which does, joins them. The stream of a tail that
  // another stream joined, or that the last nested op's event was recorded
  // after, needs no join: that stream, or that event, comes after it. Where
  // every tail is after the last nested op's event, that event is the next.
  builder.setInsertionPoint(block.getTerminator());
  SmallVector<Value> tails =
      streams.withoutJoined(streams.liveTails(streams.getBlockStreams()));
  bool afterNested = awaitedEvent != previous;
  if (afterNested)
    llvm::erase_if(tails, [&](Value tail) {
      return streams.isCovered(awaitedEventCovers, tail);
    });
  Value next;
  if (afterNested && tails.empty()) {
    next = awaitedEvent;
  } else if (tails.empty() &&
             streams.hostWaitedForAny(streams.getBlockStreams())) {
    // The host waited for a stream of the run, which waited for the event
    // before it: that event is done, and stands for the run's end as well
    // (a stream made only to record a new one would cost a stream create).
    next = previous;
  } else {
    Value end = recorderAfter(
        tails,
        [&](Value tail) {
          return !afterNested ||
                 streams.continuesAfterEvent(tail, awaitedEvent);
        },
        loc);
    next = runtime.createEvent(loc);
    recordEventOn(next, end, loc);
    // The event the block last waited for: the one before it, or the last
    // of its last nested chained op (which destroyed the one before).
    runtime.destroyEvent(awaitedEvent, loc);
  }
  for (Value tail : streams.releaseStreams(streams.getBlockStreams(), state))
    letStreamGo(tail, loc);
  destroyOwnedLentStreams(loc);
  lentStreams = std::move(enclosingLent);
  ownedLentStreams = std::move(enclosingOwnedLent);
  streamsBeforeLoop = enclosingBeforeLoop;
  Operation *terminator = block.getTerminator();
  terminator->insertOperands(terminator->getNumOperands(), next);
  streams.restoreCompletion(completion);
  streams.exitBlock(std::move(enclosing));
  awaitedEvent = enclosingEvent;
  awaitedEventDone = enclosingEventDone;
  awaitedEventCovers = enclosingCovers;
  return success();
}
