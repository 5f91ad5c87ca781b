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
  return carryLoopStreams && isFlatDeviceLoop(loop) &&
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
  // As for any region: the side streams the loop enqueues on finish their
  // earlier copies first, and inside a region no token lives across it.
  SmallVector<unsigned> quiesce;
  addStreamsToQuiesce(loop, state, quiesce);
  streams.destroyStreams(quiesce, loc, state);

  // The first iteration waits for the main stream's work so far. Without a
  // main stream, for a stream made only to record the event (and, after an
  // earlier chained loop, waiting for its event).
  builder.setInsertionPoint(loop);
  Value before = state.main;
  Value first = runtime.createEvent(loc);
  if (before) {
    recordEventOn(first, before, loc);
  } else {
    StreamState scratch;
    Value recorder = streams.continueOn(Value(), {}, loc);
    recordEventOn(first, recorder, loc);
    for (Value tail : streams.releaseStreams({streams.streamOf(recorder)},
                                             scratch))
      runtime.releaseStream(tail, loc);
  }
  scf::ForOp carried = withEventIterArg(builder, loop, first);
  if (failed(lowerCarriedBody(carried, before)))
    return failure();

  // The rest of the block starts after the loop's work: every stream made
  // from now on waits for its last event. The main stream so far stays
  // alive until the block's end, but no longer is the main stream: a join
  // that names its token would record its event right after the op that
  // made the token, before the loop, whatever the stream waits for later.
  builder.setInsertionPointAfter(carried);
  Value last = carried.getResults().back();
  state.main = Value();
  if (awaitedEvent)
    runtime.destroyEvent(awaitedEvent, loc);
  awaitedEvent = last;
  awaitedEventDone = false;
  if (before)
    awaitedEventCovers.push_back(before);
  streams.setOrderedAfter(awaitedEventCovers);
  return success();
}

LogicalResult VyreToGPULowering::lowerCarriedBody(scf::ForOp loop,
                                                  Value orderedAfter) {
  Block &body = *loop.getBody();
  Location loc = loop.getLoc();
  Value previous = body.getArguments().back();
  Value enclosingEvent = awaitedEvent;
  bool enclosingEventDone = awaitedEventDone;
  // The event the body waits for was recorded after the main stream's
  // tail, and after the block's earlier chained loops.
  SmallVector<Value> enclosingCovers = awaitedEventCovers;
  if (orderedAfter)
    awaitedEventCovers.push_back(orderedAfter);
  awaitedEvent = previous;
  awaitedEventDone = false;
  StreamState state;
  StreamTracker::EnclosingBlock enclosing = streams.enterBlock();
  streams.setOrderedAfter(awaitedEventCovers);
  SmallVector<int64_t> completion = streams.saveCompletion();
  if (failed(lowerOps(body.begin(), body, state)))
    return failure();

  // One stream for the iteration's work, which records the next event.
  builder.setInsertionPoint(body.getTerminator());
  SmallVector<Value> tails = streams.liveTails(streams.getBlockStreams());
  Value end = tails.size() == 1 ? tails.front()
                                : streams.join(Value(), tails, loc);
  Value next = runtime.createEvent(loc);
  recordEventOn(next, end, loc);
  runtime.destroyEvent(previous, loc);
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
