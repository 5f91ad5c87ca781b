//===- CarriedLoops.cpp - Loops whose iterations are chained on the device ===//
//
// Part of --convert-vyre-to-gpu. Rule 1 of VyreToGPU.cpp makes the host wait
// for a region's streams at the end of each of its executions: for a loop,
// at the end of every iteration. A flat device loop (`isFlatDeviceLoop`: an
// `scf.for` whose vyre ops are all directly in its body) does without:
//
//  - Before the loop, the main stream records an event.
//  - The loop carries an event (an `!llvm.ptr` iter_arg): every stream an
//    iteration creates first waits for it (`mgpuStreamWaitEvent`), so the
//    iteration's device work starts after all of the previous iteration's.
//  - At its end, the iteration joins the streams it still has into one,
//    which records the next event; it destroys the event it waited for, and
//    every stream it created without the host waiting (`mgpuStreamDestroy`:
//    CUDA frees a stream once its work is done).
//  - After the loop, every stream the enclosing block creates waits for the
//    last event (the main stream starts anew); at its end the block waits
//    for the event on the host and destroys it.
//
// The ordering is the one the host's waits gave, moved to the device. Why an
// event and not a token: upstream's pipeline does not convert an `scf.for`
// that carries a `!gpu.async.token`, and gpu-to-llvm takes a token that is a
// block argument for an event. Why every new stream waits: `canonicalize`
// drops a stream without gpu ops from the joins that name it, so no single
// stream can stand for "after the previous iteration".
//
//===----------------------------------------------------------------------===//

#include "VyreToGPULowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::vyre_to_gpu;

bool VyreToGPULowering::carriesAcrossIterations(scf::ForOp loop) {
  return carryLoopStreams && isDeviceLoop(loop) &&
         streamsUsedInside(loop).empty();
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

LogicalResult VyreToGPULowering::lowerCarriedLoop(scf::ForOp loop,
                                                  StreamState &state) {
  Location loc = loop.getLoc();
  // The first iteration starts after the main stream's work so far, and
  // after the earlier copies of the side streams the loop enqueues on (a
  // side stream's copies run in program order). Those streams are retired,
  // not waited for: they stay alive until the block's end, so that later
  // joins may still name their tokens, but no op continues on them. A join
  // that named one would record its event right after the op that made it,
  // before the loop, whatever the stream waits for later.
  SmallVector<Value> before;
  if (state.main)
    before.push_back(state.main);
  SmallVector<int64_t> retiredSides;
  loop->walk([&](Operation *op) {
    if (!isa<CopyH2DAsyncOp, CopyD2HAsyncOp>(op))
      return;
    int64_t index = *cast<StreamOpInterface>(op).getStreamIndex();
    Value tail = state.side.lookup(index);
    if (!tail || llvm::is_contained(retiredSides, index))
      return;
    retiredSides.push_back(index);
    if (!llvm::is_contained(before, tail))
      before.push_back(tail);
  });

  // The event is recorded on the main stream if that is all there is to
  // wait for (it waits for the block's awaited event, if any, made after
  // it was set). Otherwise on a join, which waits for the awaited event as
  // every new stream does: a side stream may predate it.
  builder.setInsertionPoint(loop);
  Value first = runtime.createEvent(loc);
  if (before.size() == 1 && (before.front() == state.main || !awaitedEvent)) {
    recordEventOn(first, before.front(), loc);
  } else {
    StreamState scratch;
    Value recorder = streams.join(Value(), before, loc);
    recordEventOn(first, recorder, loc);
    for (Value tail : streams.releaseStreams({streams.streamOf(recorder)},
                                             scratch))
      runtime.releaseStream(tail, loc);
  }
  scf::ForOp carried = withEventIterArg(builder, loop, first);
  if (failed(lowerCarriedBody(carried, before)))
    return failure();

  // The rest of the block starts after the loop's work: every stream made
  // from now on waits for its last event.
  builder.setInsertionPointAfter(carried);
  Value last = carried.getResults().back();
  state.main = Value();
  for (int64_t index : retiredSides)
    state.side[index] = Value();
  if (awaitedEvent)
    runtime.destroyEvent(awaitedEvent, loc);
  awaitedEvent = last;
  awaitedEventDone = false;
  llvm::append_range(awaitedEventCovers, before);
  streams.setOrderedAfter(awaitedEventCovers);
  return success();
}

LogicalResult VyreToGPULowering::lowerCarriedBody(scf::ForOp loop,
                                                  ArrayRef<Value> orderedAfter) {
  Block &body = *loop.getBody();
  Location loc = loop.getLoc();
  Value previous = body.getArguments().back();
  Value enclosingEvent = awaitedEvent;
  bool enclosingEventDone = awaitedEventDone;
  // The event the body waits for was recorded after the streams the loop
  // starts after, and after the block's earlier chained loops.
  SmallVector<Value> enclosingCovers = awaitedEventCovers;
  llvm::append_range(awaitedEventCovers, orderedAfter);
  awaitedEvent = previous;
  awaitedEventDone = false;
  StreamState state;
  StreamTracker::EnclosingBlock enclosing = streams.enterBlock();
  streams.setOrderedAfter(awaitedEventCovers);
  SmallVector<int64_t> completion = streams.saveCompletion();
  if (failed(lowerOps(body.begin(), body, state)))
    return failure();

  // One stream for the iteration's work, which records the next event. After
  // a nested chained loop, streams retired before it do not wait for its
  // last event: a new stream, which does, joins them.
  builder.setInsertionPoint(body.getTerminator());
  SmallVector<Value> tails = streams.liveTails(streams.getBlockStreams());
  Value end = tails.size() == 1 && awaitedEvent == previous
                  ? tails.front()
                  : streams.join(Value(), tails, loc);
  Value next = runtime.createEvent(loc);
  recordEventOn(next, end, loc);
  // The event the body last waited for: the previous iteration's, or the
  // last of its last nested chained loop (which destroyed the previous).
  runtime.destroyEvent(awaitedEvent, loc);
  for (Value tail : streams.releaseStreams(streams.getBlockStreams(), state))
    runtime.releaseStream(tail, loc);
  body.getTerminator()->insertOperands(body.getTerminator()->getNumOperands(),
                                       next);
  streams.restoreCompletion(completion);
  streams.exitBlock(std::move(enclosing));
  awaitedEvent = enclosingEvent;
  awaitedEventDone = enclosingEventDone;
  awaitedEventCovers = std::move(enclosingCovers);
  return success();
}
