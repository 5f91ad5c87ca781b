//===- VyreToGPULowering.h - Lowers the vyre ops of functions ---*- C++ -*-===//
//
// Part of --convert-vyre-to-gpu: walks each block in program order (blocks,
// regions and host ops in VyreToGPU.cpp) and lowers each vyre op onto the
// streams the StreamTracker keeps (LowerVyreOps.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_CONVERSION_VYRETOGPU_VYRETOGPULOWERING_H
#define VYRE_LIB_CONVERSION_VYRETOGPU_VYRETOGPULOWERING_H

#include "RegionSummaries.h"
#include "RuntimeCalls.h"
#include "StreamTracker.h"

#include "vyre/Analysis/AllocationGroups.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::vyre::vyre_to_gpu {

/// The `!llvm.ptr` to the first element of `view`, a memref in the default
/// memory space: its aligned pointer plus its offset times `elementBytes`
/// (ContiguousView.cpp).
Value firstElementPointer(OpBuilder &builder, Location loc, Value view,
                          int64_t elementBytes);

/// One side of a tile copy: `rows` runs of contiguous elements, the rows of
/// dimension `rowDim` of `view`, each `pitch` elements after the last
/// (ShapedType::kDynamic: read from the view's strides at run time).
struct TileSide {
  Value view;
  int64_t rowDim = -1;
  int64_t pitch = 0;
};

/// What a copy hands to the device (TileCopy.cpp).
struct CopyOperands {
  /// For gpu.memcpy: each side itself, or an identity-layout alias of it.
  Value target, source;
  /// For a copy of a strided view: `rows` rows of `rowElements` elements of
  /// `elementBytes` bytes, which `vyreMemcpy2DAsync` copies.
  bool isTile = false;
  TileSide targetRows, sourceRows;
  int64_t rows = 0, rowElements = 0, elementBytes = 0;
};

class VyreToGPULowering {
public:
  /// `carryLoopStreams`: loops carry their streams' work into the next
  /// iteration on the device (ChainedRegions.cpp); `lendStreams`: their
  /// blocks continue streams made before them (LentStreams.cpp).
  VyreToGPULowering(MLIRContext *context, bool carryLoopStreams,
                    bool lendStreams)
      : builder(context), tokenType(gpu::AsyncTokenType::get(context)),
        streams(builder), runtime(builder),
        carryLoopStreams(carryLoopStreams), lendStreams(lendStreams) {
    // Every new stream is ordered after the awaited event: by a join on a
    // token that is, or by a wait of its own.
    streams.setOnNewStream([this](Value token, ArrayRef<Value> joined) {
      // A borrowed stream's token is a cast of its pointer: calls on it take
      // the pointer (a second cast would repeat one `cse` folds).
      if (Value pointer = streams.borrowedPointer(token))
        runtime.setStreamOf(token, pointer);
      if (!awaitedEvent)
        return;
      if (llvm::any_of(joined, [&](Value dependency) {
            return streams.isAfterEvent(dependency, awaitedEvent);
          })) {
        streams.noteJoinAfterEvent(token, awaitedEvent);
        return;
      }
      waitForEventOn(token, awaitedEvent, token.getLoc());
    });
    streams.setExplicitDestroyer([this](Value tail, bool done) {
      destroyExplicitStream(tail, done);
    });
    streams.setLender([this] { return borrowLentStream(); });
    streams.setEventJoiner([this](Value token, Value dependency) {
      waitByEvent(token, dependency, token.getLoc());
    });
  }

  /// Lowers the vyre ops of `function`.
  LogicalResult lowerFunction(FunctionOpInterface function);

  /// Erases the lowered vyre ops, users before the ops they use.
  void eraseLoweredOps();

private:
  //===--------------------------------------------------------------------===//
  // Blocks, regions and host ops (VyreToGPU.cpp)
  //===--------------------------------------------------------------------===//

  /// Lowers a region that starts with no stream in flight.
  LogicalResult lowerRegion(Region &region);
  LogicalResult lowerBlock(Block &block);
  /// Lowers the ops of `block` from `from` on, its terminator aside.
  LogicalResult lowerOps(Block::iterator from, Block &block,
                         StreamState &state);
  LogicalResult lowerHostOp(Operation *op, StreamState &state);
  /// Whether the host op `op` waits for the device first: in a function
  /// with sequential meaning, an op that may touch memory.
  bool waitsForDevice(Operation *op) const;
  SmallVector<unsigned> streamsUsedInside(Operation *op);
  void addStreamsToQuiesce(Operation *op, StreamState &state,
                           SmallVectorImpl<unsigned> &quiesce);

  //===--------------------------------------------------------------------===//
  // Region ops chained on the device with events (ChainedRegions.cpp)
  //===--------------------------------------------------------------------===//

  /// Where a chained region op starts: the event recorded before it, the
  /// stream tails it was recorded after, and the side streams retired.
  struct ChainStart {
    Value event;
    SmallVector<Value> before;
    SmallVector<int64_t> retiredSides;
    /// The streams lent to the op's blocks (LentStreams.cpp).
    SmallVector<Value> lent;
  };
  /// Whether the device region `op` is chained on the device.
  bool chainsOnDevice(Operation *op);
  ChainStart startChain(Operation *op, StreamState &state);
  /// After the chained `op`, whose work ends with the event `last`.
  void finishChain(Operation *op, Value last, const ChainStart &start,
                   StreamState &state);
  LogicalResult lowerChainedLoop(scf::ForOp loop, StreamState &state);
  LogicalResult lowerChainedBranch(scf::IfOp branch, StreamState &state);
  /// Lowers a run of `block` that waits for `previous`, and appends the
  /// event after its work to its terminator's operands.
  /// Streams it makes before a loop to lend to the body are added to
  /// `start.lent`.
  LogicalResult lowerChainedBlock(Block &block, Value previous,
                                  ChainStart &start, Location loc);
  /// A stream tail on which an event recorded now comes after the work of
  /// every tail of `tails`: one of them that `mayRecord` accepts, whose
  /// stream waits in place for the others (events recorded now), where one
  /// can (StreamTracker::canJoinInPlace); otherwise a new stream joined from
  /// them. No op may continue on it afterwards.
  Value recorderAfter(ArrayRef<Value> tails,
                      llvm::function_ref<bool(Value)> mayRecord,
                      Location loc);

  //===--------------------------------------------------------------------===//
  // CUDA streams lent across chained region ops (LentStreams.cpp)
  //===--------------------------------------------------------------------===//

  /// Lends the stream whose tail is `tail` to the chained op `start` is
  /// for: a stream of the block being lowered that no op continues, whose
  /// work the event before the op comes after. The block destroys it at its
  /// end, unless it is borrowed itself. Without `lendStreams`, the caller
  /// released it: it is destroyed now.
  void lendStream(Value tail, ChainStart &start, Location loc);
  /// Lends the streams of `state` that the op retires: the main stream and
  /// `start.retiredSides`.
  void lendRetiredStreams(ChainStart &start, StreamState &state,
                          Location loc);
  /// The `!llvm.ptr` of a lent stream for a new stream of the block being
  /// lowered to continue, or null.
  Value borrowLentStream();
  /// Whether a stream made at the builder's insertion point may continue a
  /// lent stream: no vyre.alloc follows in the block (an allocation on a
  /// borrowed stream would be waited for by an event, not by its token,
  /// which the gpu dialect's token contract asks).
  bool mayBorrowHere();
  /// The host waits for the explicit stream whose tail is `tail` (unless
  /// `done`) and destroys it; a borrowed stream returns to the lent ones,
  /// and a lent one is destroyed by the block that lent it.
  void destroyExplicitStream(Value tail, bool done);
  /// Lets the stream whose tail is `tail` go without the host waiting: it is
  /// destroyed unless it is borrowed or lent.
  void letStreamGo(Value tail, Location loc);
  /// Destroys the lent streams the block being lowered owns.
  void destroyOwnedLentStreams(Location loc);

  //===--------------------------------------------------------------------===//
  // vyre ops (LowerVyreOps.cpp)
  //===--------------------------------------------------------------------===//

  LogicalResult lowerOp(Operation *op, StreamState &state);
  void lowerAlloc(AllocOp alloc, StreamState &state);
  void lowerDealloc(DeallocOp dealloc, StreamState &state);
  LogicalResult lowerDispatch(DispatchOp dispatch, StreamState &state);
  /// An async copy, either direction, on its stream: a side stream, or the
  /// main stream (0) without a host wait.
  LogicalResult lowerAsyncCopy(StreamOpInterface copy, Value target,
                               Value source, StreamState &state);
  LogicalResult lowerBlockingCopy(Operation *copy, Value target, Value source,
                                  StreamState &state);
  LogicalResult lowerWait(WaitOp wait, StreamState &state);
  /// The buffer a copy hands to gpu.memcpy for `buffer` (its `role`: source
  /// or target): `buffer` itself if its layout is the identity, an
  /// identity-layout alias of it if it is a contiguous view with an offset
  /// (ContiguousView.cpp); an error otherwise.
  FailureOr<Value> contiguousBuffer(Operation *copy, StringRef role,
                                    Value buffer);
  /// How `copy` moves its bytes (TileCopy.cpp): through gpu.memcpy of two
  /// contiguous buffers, or, where a side is a strided view, as the rows of
  /// a 2-D tile; an error where neither is possible.
  FailureOr<CopyOperands> copyOperands(Operation *copy, Value target,
                                       Value source);
  /// Enqueues the copy `operands` describe after `dependency`, on its
  /// stream; returns its token. A tile copy is a runtime call, and its token
  /// a cast of the stream the call returns (StreamTracker::markUntraceable).
  Value emitCopy(const CopyOperands &operands, Value dependency, Location loc);
  LogicalResult lowerSync(SyncOp sync, StreamState &state);
  /// `streams.continueOn(current, waits)`, except that the allocations the
  /// block's awaited event covers are not joined: a new stream waits for the
  /// event as it is made, and `current`, if the op continues on it, is made
  /// to wait for it here.
  /// `nextOpKept`: the op that continues on the result is one
  /// `canonicalize` never erases (see joinStreams).
  Value continueAfter(Value current, ArrayRef<Value> waits, Location loc,
                      bool nextOpKept);
  /// `continueAfter` for an op on the main stream, which also waits for the
  /// main stream's pending waits (`StreamState::mainWaits`).
  Value continueMain(StreamState &state, ArrayRef<Value> waits, Location loc,
                     bool nextOpKept);
  /// Applies the main stream's pending waits, if any, by a new stream (the
  /// main stream's token must stand for them: it is named, waited for, or
  /// the block ends).
  void settleMainWaits(StreamState &state, Location loc);
  /// The dependency of the next op on the stream whose tail is `current`
  /// (if any) after `waits`: `current` where nothing else is needed, or
  /// where its stream waits for `waits` itself, for an event recorded
  /// right after each, as upstream's gpu-to-llvm lowers a join
  /// (`StreamTracker::canJoinInPlace`); otherwise a new stream joined from
  /// `current` and `waits`, which costs a stream create. Only an op that
  /// `canonicalize` keeps (`nextOpKept`) may continue a stream that waited
  /// in place: its token then stands for the waits, as every token a
  /// `vyre` token maps to must for what came before it. (A join's token
  /// does so by itself; an erased copy's token becomes the one before.)
  Value joinStreams(Value current, ArrayRef<Value> waits, Location loc,
                    bool nextOpKept);
  /// Sets the insertion point right after the op that made `token`, past
  /// the runtime calls that follow it: an event recorded there comes after
  /// the waits its stream makes by events right after that op (a new
  /// stream's wait for the block's awaited event, its waits for tokens on
  /// borrowed streams), as the tracker has it.
  void setInsertionPointAfterToken(Value token, Location loc);
  /// The stream of `token` waits for the work up to `dependency` through an
  /// event recorded right after the op that made it.
  void waitByEvent(Value token, Value dependency, Location loc);

  /// The gpu tokens `vyreTokens` stand for that are still to wait for;
  /// those the host already waited for go to `done`, if given.
  FailureOr<SmallVector<Value>>
  lookupTokens(Operation *user, ValueRange vyreTokens, bool *afterEvent,
               SmallVectorImpl<Value> *done = nullptr);

  OpBuilder builder;
  Type tokenType;
  StreamTracker streams;
  RuntimeCalls runtime;
  /// What each region op of the function being lowered holds.
  RegionSummaries summaries;
  /// The kernels' symbol tables, built once (a lookup scans them otherwise).
  SymbolTableCollection symbolTables;
  /// The symbol table kernels are looked up from: the nearest around the
  /// function being lowered (found once, not from each dispatch up).
  Operation *kernelScope = nullptr;
  bool carryLoopStreams;
  bool lendStreams;
  /// The event every stream the block being lowered creates waits for: in
  /// a chained block, the event before it; after a chained region op,
  /// its last. Null: none.
  Value awaitedEvent;
  /// Whether the host has waited for `awaitedEvent` already.
  bool awaitedEventDone = false;
  /// Whether the block being lowered keeps streams alive across a chained
  /// region op in it (a function's block, a chained loop's body), or
  /// releases them all before it (ChainedRegions.cpp).
  bool retainsStreams = false;
  /// The tokens `awaitedEvent` was recorded after, transitively: the main
  /// stream tails before each chained region op of the block.
  StreamTracker::Covers awaitedEventCovers = nullptr;
  /// The `!llvm.ptr`s of the CUDA streams lent to the block being lowered,
  /// not borrowed now: streams retired before a chained region op, which a
  /// stream made without dependencies continues instead of creating one
  /// (LentStreams.cpp).
  SmallVector<Value> lentStreams;
  /// The lent streams the block being lowered destroys at its end.
  SmallVector<Value> ownedLentStreams;
  /// An op of a block → the buffers allocated there that no op after it
  /// uses (StreamTracker::noteUnused once it is lowered).
  DenseMap<Operation *, SmallVector<Value, 1>> unusedAfter;
  /// Per block, its last vyre.alloc (null: none), found once.
  DenseMap<Block *, Operation *> lastAllocs;
  /// Where the body of the chained loop being lowered gets a stream when
  /// nothing lent is left: one made before the loop, once (null `loop`: in
  /// no such body). The block around the loop owns it (`owner`), and
  /// `lent` gets it after the loop.
  struct StreamsBeforeLoop {
    Operation *loop = nullptr;
    SmallVector<Value> *owner = nullptr;
    SmallVector<Value> *lent = nullptr;
  };
  StreamsBeforeLoop streamsBeforeLoop;

  /// The host waits for `awaitedEvent`, unless it has.
  void synchronizeAwaitedEvent(Location loc);
  /// The host knows `awaitedEvent` done: it waited for a stream after it.
  void noteAwaitedEventDone();

  /// `mgpuEventRecord(event, stream of token)` and `mgpuStreamWaitEvent(
  /// stream of token, event)`. The stream then holds runtime calls that
  /// `canonicalize` does not see: it is synchronized and destroyed by
  /// runtime calls too (StreamTracker::markExplicit).
  void recordEventOn(Value event, Value token, Location loc) {
    streams.markExplicit(token);
    runtime.recordEvent(event, token, loc);
  }
  void waitForEventOn(Value token, Value event, Location loc) {
    streams.markExplicit(token);
    runtime.streamWaitEvent(token, event, loc);
    streams.noteEventWait(token, event);
  }
  /// `waitForEventOn(tail, awaitedEvent)`, unless what the stream whose
  /// tail is `tail` runs next is ordered after that event already.
  void orderAfterAwaitedEvent(Value tail, Location loc) {
    if (!streams.continuesAfterEvent(tail, awaitedEvent))
      waitForEventOn(tail, awaitedEvent, loc);
  }
  /// Whether the function being lowered has sequential semantics.
  bool sequential = false;
  /// vyre token → the gpu token that stands for it (null: nothing to wait).
  DenseMap<Value, Value> tokens;
  /// Lowered vyre ops, in program order. They are erased at the end: until
  /// then their tokens stay valid keys of `tokens`.
  SmallVector<Operation *> toErase;
  /// The function's buffers allocated and freed as one (lowerAlloc).
  std::optional<AllocationGroups> allocationGroups;
};

} // namespace mlir::vyre::vyre_to_gpu

#endif // VYRE_LIB_CONVERSION_VYRETOGPU_VYRETOGPULOWERING_H
