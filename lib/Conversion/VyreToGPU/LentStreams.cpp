//===- LentStreams.cpp - CUDA streams continued across chained ops -------===//
//
// Part of --convert-vyre-to-gpu. A chained region op (ChainedRegions.cpp)
// retires the streams it starts after: the main stream and the side streams
// it enqueues copies on. Their work comes before the event the op's blocks
// wait for, and no op continues them. So instead of creating a stream, a
// stream that a block of the op makes without dependencies continues one of
// them: an `unrealized_conversion_cast` of the retired stream's `!llvm.ptr`
// to a token, which gpu-to-llvm folds into the stream itself. An iteration
// of a chained loop then creates no stream, where it created one per stream
// it uses; after the op, the block that holds it borrows them again.
//
//  - What a borrowed stream runs comes after the retired stream's work, which
//    the event it waits for as every new stream does comes after already:
//    borrowing adds no ordering that was not there.
//  - A join never names a token on a borrowed stream (gpu-to-llvm takes a
//    token it cannot trace to a stream creation for an event): the stream
//    that would join it waits for an event recorded right after the token's
//    op instead, as gpu-to-llvm lowers a join (`waitByEvent`). The token is
//    made in the block, so the event is recorded in every run of it.
//  - A borrowed stream is never destroyed by its borrower. The host waits for
//    it by `mgpuStreamSynchronize`, after which it may be borrowed again.
//    The block that retired and lent a stream of its own destroys it at its
//    end, once (`ownedLentStreams`); at a function's end, the host waits for
//    the last event, which retired streams come before (or for a stream
//    that waited for it), not for them.
//  - No stream that allocates is borrowed: a block with a vyre.alloc after
//    the point borrows nothing there (`mayBorrowHere`).
//  - Where a chained loop's body needs a stream and nothing lent is left, the
//    stream is made once before the loop (a `gpu.wait async` there), owned
//    by the block around the loop and lent to the body: no iteration makes
//    a stream.
//
//===----------------------------------------------------------------------===//

#include "VyreToGPULowering.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::vyre_to_gpu;

void VyreToGPULowering::lendStream(Value tail, ChainStart &start,
                                   Location loc) {
  if (!lendStreams) {
    letStreamGo(tail, loc);
    return;
  }
  // The pointer cast of the tail, made in this block, even for a borrowed
  // stream: uses of a value from far up a deep nest cost the verifier and
  // cse a walk up the nest each.
  Value pointer = runtime.streamOf(tail, loc);
  if (!streams.isLent(tail)) {
    if (!streams.borrowedPointer(tail))
      ownedLentStreams.push_back(pointer);
    streams.markLent(tail);
  }
  if (!llvm::is_contained(start.lent, pointer))
    start.lent.push_back(pointer);
}

void VyreToGPULowering::lendRetiredStreams(ChainStart &start,
                                           StreamState &state, Location loc) {
  if (!lendStreams)
    return;
  if (state.main)
    lendStream(state.main, start, loc);
  for (int64_t index : start.retiredSides)
    if (Value tail = state.side.lookup(index))
      lendStream(tail, start, loc);
}

bool VyreToGPULowering::mayBorrowHere() {
  Block *block = builder.getInsertionBlock();
  auto [entry, inserted] = lastAllocs.try_emplace(block, nullptr);
  if (inserted)
    for (Operation &op : llvm::reverse(*block))
      if (isa<AllocOp>(op)) {
        entry->second = &op;
        break;
      }
  Operation *lastAlloc = entry->second;
  if (!lastAlloc)
    return true;
  Block::iterator point = builder.getInsertionPoint();
  return point == block->end() || lastAlloc->isBeforeInBlock(&*point);
}

Value VyreToGPULowering::borrowLentStream() {
  if (!lendStreams || !mayBorrowHere())
    return Value();
  if (!lentStreams.empty())
    return lentStreams.pop_back_val();
  if (!streamsBeforeLoop.loop)
    return Value();
  // A stream made once before the loop, where an iteration would make one.
  OpBuilder::InsertionGuard guard(builder);
  Location loc = streamsBeforeLoop.loop->getLoc();
  builder.setInsertionPoint(streamsBeforeLoop.loop);
  Value token = gpu::WaitOp::create(builder, loc, tokenType, ValueRange{})
                    .getAsyncToken();
  Value pointer = runtime.streamOf(token, loc);
  streamsBeforeLoop.owner->push_back(pointer);
  streamsBeforeLoop.lent->push_back(pointer);
  return pointer;
}

void VyreToGPULowering::destroyExplicitStream(Value tail, bool done) {
  Location loc = tail.getLoc();
  Value borrowed = streams.borrowedPointer(tail);
  if (!borrowed && !streams.isLent(tail)) {
    runtime.synchronizeStream(tail, loc);
    runtime.releaseStream(tail, loc);
    return;
  }
  if (!done)
    runtime.synchronizeStream(tail, loc);
  // A borrowed stream not lent on may be borrowed again here.
  if (borrowed && !streams.isLent(tail) &&
      !llvm::is_contained(lentStreams, borrowed))
    lentStreams.push_back(borrowed);
}

void VyreToGPULowering::letStreamGo(Value tail, Location loc) {
  if (!streams.borrowedPointer(tail) && !streams.isLent(tail))
    runtime.releaseStream(tail, loc);
}

void VyreToGPULowering::destroyOwnedLentStreams(Location loc) {
  for (Value pointer : ownedLentStreams)
    runtime.releaseStreamPointer(pointer, loc);
  ownedLentStreams.clear();
}
