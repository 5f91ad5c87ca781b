//===- StreamTracker.h - The CUDA streams the lowering creates --*- C++ -*-===//
//
// Part of --convert-vyre-to-gpu: every CUDA stream the lowering creates, the
// gpu tokens on it and their positions, which allocations each token is
// ordered after, and what the host knows to be done. It creates the joins
// (`gpu.wait async`) and the blocking waits (`gpu.wait`) that keep the rules
// of VyreToGPU.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_CONVERSION_VYRETOGPU_STREAMTRACKER_H
#define VYRE_LIB_CONVERSION_VYRETOGPU_STREAMTRACKER_H

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include <deque>
#include <functional>
#include <memory>
#include <set>

namespace mlir::vyre::vyre_to_gpu {

/// The logical streams of the block being lowered: the main stream's current
/// CUDA stream and each side stream's. A null entry has nothing in flight.
struct StreamState {
  Value main;
  llvm::MapVector<int64_t, Value> side;
  /// The tokens the main stream's next op waits for (a `vyre.wait` not yet
  /// applied): that op's stream may then wait for them itself
  /// (VyreToGPULowering::joinStreams).
  SmallVector<Value> mainWaits;
};

/// The CUDA streams created so far, and the gpu tokens on them. A stream's
/// id is its index in creation order.
class StreamTracker {
  struct CoverNode;

public:
  /// Tokens that streams are ordered after by other means than a join (an
  /// event recorded after them, which the streams wait for): those of one
  /// node and of the nodes it extends. Null: none. Nodes are never changed
  /// and live as long as the tracker, so that a set extended by one more
  /// chained region op costs that op's tokens, not the tokens before it,
  /// and every stream made after it shares it.
  using Covers = const CoverNode *;
  /// Creates its gpu ops with `builder`, where it points.
  explicit StreamTracker(OpBuilder &builder);

  /// Called with the token of every stream created, right after it, and
  /// the tokens its join names.
  void setOnNewStream(std::function<void(Value, ArrayRef<Value>)> callback) {
    onNewStream = std::move(callback);
  }

  /// Makes the host wait for and destroy the stream whose tail is the
  /// first argument, by runtime calls; for the streams `markExplicit`
  /// names. The second says whether the host knows its work done already.
  void setExplicitDestroyer(std::function<void(Value, bool)> callback) {
    explicitDestroyer = std::move(callback);
  }

  /// Called for each stream made without dependencies: the `!llvm.ptr` of
  /// a CUDA stream made earlier that the new stream continues instead of
  /// creating one (a stream lent to the block, see VyreToGPULowering), or
  /// null to create one.
  void setLender(std::function<Value()> callback) {
    lender = std::move(callback);
  }

  /// Makes the stream whose first token is the first argument wait for the
  /// work up to the second, a token on a borrowed stream, through an event
  /// (runtime calls): a join cannot name such a token, since gpu-to-llvm
  /// takes a token it cannot trace to a stream creation for an event.
  void setEventJoiner(std::function<void(Value, Value)> callback) {
    eventJoiner = std::move(callback);
  }

  /// The `!llvm.ptr` of the CUDA stream that the stream of `token`
  /// continues (null: a stream of its own, made by a `gpu.wait async`).
  Value borrowedPointer(Value token) const {
    return streams[streamOf(token)].borrowedPointer;
  }
  /// Whether a join may name `token`: not where its stream is borrowed, nor
  /// where its stream's creation waited for such tokens through events (a
  /// join records its event right after the op that made the token it
  /// names: for the stream's first token, before those waits; and
  /// canonicalize drops a dependency on a `gpu.wait async` without
  /// operands from a join).
  bool mayBeNamed(Value token) const {
    return !streams[streamOf(token)].joinedByEvents;
  }
  /// The CUDA stream of `token` is lent to other streams from now on
  /// (VyreToGPULowering owns it): a host wait for it synchronizes it
  /// without destroying it.
  void markLent(Value token) {
    streams[streamOf(token)].lent = true;
    markExplicit(token);
  }
  bool isLent(Value token) const { return isLentStream(streamOf(token)); }
  bool isLentStream(unsigned id) const { return streams[id].lent; }

  /// `token`, on a stream this lowering created, is a cast of a runtime
  /// call's `!llvm.ptr` (a tile copy's, TileCopy.cpp), which gpu-to-llvm
  /// cannot trace to a stream creation: from now on joins wait for the
  /// stream's tokens through events, and the host synchronizes and destroys
  /// it by runtime calls.
  void markUntraceable(Value token) {
    Stream &stream = streams[streamOf(token)];
    stream.joinedByEvents = true;
    stream.explicit_ = true;
  }

  /// The stream of `token` has runtime calls of its own (an event wait):
  /// `canonicalize` may leave it without gpu ops, and then drops it from a
  /// blocking `gpu.wait`, so it is synchronized and destroyed by runtime
  /// calls instead.
  void markExplicit(Value token) { streams[streamOf(token)].explicit_ = true; }

  /// The stream whose tail is `tail` waits for `event` (a runtime call
  /// right after `tail`'s op): what comes after on it is ordered after the
  /// event.
  void noteEventWait(Value tail, Value event);
  /// The stream that the join `token` created is ordered after `event`
  /// from its creation on: a token it joins is (see isAfterEvent).
  void noteJoinAfterEvent(Value token, Value event);
  /// Whether the device runs the work up to `token` after `event`, whatever
  /// canonicalization erases: an op at or before `token` on its stream that
  /// canonicalization keeps comes after the stream's wait for the event, or
  /// the stream's join is after it. (An erased copy's token becomes the
  /// token before it, and upstream records a join's event right after the
  /// op that defines the token it names.)
  bool isAfterEvent(Value token, Value event) const;
  /// Whether what is enqueued on the stream of `token` from now on runs
  /// after `event`: the stream waited for it, or its join is after it.
  bool continuesAfterEvent(Value token, Value event) const {
    return event && streams[streamOf(token)].eventWaited == event;
  }

  /// The id of the stream `token` is on.
  unsigned streamOf(Value token) const { return tokenStream.lookup(token); }

  /// Whether the host knows that the work up to `token` is done.
  bool isComplete(Value token) const;
  /// Whether the stream of `token` was destroyed without the host waiting
  /// (`releaseStreams`): what is on it is ordered by an event instead.
  bool isReleased(Value token) const {
    return streams[streamOf(token)].released;
  }

  /// The single dependency of the next op on the stream whose tail is
  /// `current`, after `waits`: the same stream where nothing else is needed,
  /// otherwise a new stream joined from `current` and `waits`.
  Value continueOn(Value current, ArrayRef<Value> waits, Location loc);

  /// A new stream that waits for `current` (if any) and `waits`.
  Value join(Value current, ArrayRef<Value> waits, Location loc);

  /// Whether the stream whose tail is `current` may wait for `waits` itself
  /// (`joinInPlace`) rather than through a new stream: it was created by
  /// the block being lowered, `canonicalize` cannot leave it without gpu
  /// ops, and each wait is made by an op of `block` (where the caller
  /// records an event right after it), on a stream still alive, and is not
  /// an allocation's token (which a buffer's user must name: the token
  /// contract).
  bool canJoinInPlace(Value current, ArrayRef<Value> waits,
                      Block *block) const;
  /// The stream whose tail is `current` waits for `waits` (the caller makes
  /// it wait for an event recorded right after each): what is enqueued on it
  /// from now on is ordered after them. Where canonicalization erases ops,
  /// a token counts as after the join only if an op it keeps comes after
  /// it: upstream records a join's event right after the op that defines
  /// the token it names.
  void noteJoinInPlace(Value current, ArrayRef<Value> waits);
  /// `tokens` with one per stream: the latest on it.
  SmallVector<Value> latestPerStream(ArrayRef<Value> tokens) const;

  /// The host knows the work up to `token` (and what it waited for) to be
  /// done: it waited for an event recorded after it.
  void markCompleteUpTo(Value token);

  /// A point to return to what the host knows to be done, after a region
  /// that may not run (a loop body): what it learns there holds only there.
  /// Saves nest; each costs what was learned since, not the number of
  /// streams.
  size_t saveCompletion();
  void restoreCompletion(size_t saved);

  /// Records `token`, made by an op that depends on `dependency`, as the new
  /// tail of that dependency's stream; returns it. `erasable`: the op is one
  /// canonicalization may erase.
  Value append(Value dependency, Value token, bool erasable = false);

  /// Records `memref` as made by the `gpu.alloc async` whose token is
  /// `token`, the tail of its stream.
  void recordAlloc(Value memref, Value token);
  /// No op lowered from now on uses `memref`, made by a `gpu.alloc async`
  /// (the lowering walks in program order): no stream need be ordered after
  /// its allocation any more, and the allocation clocks drop it as they drop
  /// one the host knows done. Without this, a function of many loops, each
  /// allocating buffers on a stream no host wait completes, carried one
  /// clock entry more per loop into every join after it: quadratic. (A clock
  /// without an entry only makes `allocsToOrder` name the allocation.)
  void noteUnused(Value memref);

  /// The allocation still in flight that an op ordered after the tokens
  /// `after` must also wait for before it touches `buffer`, if any.
  SmallVector<Value> allocsToOrder(ArrayRef<Value> after, Value buffer) const;

  /// Whether the allocation token `alloc` is ordered before every stream the
  /// block makes from now on (see `setOrderedAfter`).
  bool isOrderedByBlock(Value alloc) const;

  /// The host waits for every stream in `ids` and destroys it, in one
  /// blocking `gpu.wait`. Tokens on those streams are complete from then on,
  /// and the logical streams of `state` on them have nothing in flight.
  void destroyStreams(ArrayRef<unsigned> ids, Location loc, StreamState &state);

  /// Lets the streams in `ids` go without the host waiting for them: the
  /// caller destroys each (their work continues). Returns their tails. Their
  /// tokens are not complete, and must not be used again.
  SmallVector<Value> releaseStreams(ArrayRef<unsigned> ids, StreamState &state);

  /// The tails of the streams in `ids` that are neither destroyed nor
  /// released.
  SmallVector<Value> liveTails(ArrayRef<unsigned> ids) const;
  /// Whether the host waited for one of the streams `ids` (a blocking wait
  /// destroyed it).
  bool hostWaitedForAny(ArrayRef<unsigned> ids) const;

  /// `tails` (stream tails) without those that the join creating the
  /// stream of another of them named: that stream's work comes after
  /// theirs, so a join on the rest is ordered after all of them. (Where
  /// canonicalize erases a named token, it erases it from both joins alike.)
  SmallVector<Value> withoutJoined(ArrayRef<Value> tails) const;

  /// What `enterBlock` saves of the enclosing block.
  struct EnclosingBlock {
    SmallVector<unsigned> streams;
    Covers orderedAfter = nullptr;
    unsigned block = 0;
  };

  /// Starts a block: the streams created from now on are its own, ordered
  /// after no token by other means yet (see `setOrderedAfter`). Returns what
  /// `exitBlock` restores.
  EnclosingBlock enterBlock();

  /// `covers` and `tokens`.
  Covers extendCovers(Covers covers, ArrayRef<Value> tokens);
  /// Whether `token` is one of `covers`.
  bool isCovered(Covers covers, Value token) const;
  /// The host knows the work up to each of `covers` to be done.
  void markCoversComplete(Covers covers);

  /// The caller orders every stream the block creates from now on after the
  /// tokens `covers` by other means (an event): allocations ordered before
  /// them count as ordered before those streams, and a host wait for one of
  /// those streams as one for them.
  void setOrderedAfter(Covers covers) { blockOrderedAfter = covers; }

  /// Ends a block; `enclosing` is what `enterBlock` returned.
  void exitBlock(EnclosingBlock enclosing);

  /// The streams created by the block being lowered.
  ArrayRef<unsigned> getBlockStreams() const { return blockStreams; }

private:
  /// The allocations ordered before a stream's creation, as a clock: per
  /// stream that holds allocations still in flight, the position on it up to
  /// which they are (an allocation on a stream is ordered before what comes
  /// after it there). Sorted by stream id; small: one entry per stream that
  /// allocates, and none for a stream whose allocations are done.
  using AllocClock = SmallVector<std::pair<unsigned, unsigned>, 2>;

  /// A stream's wait, in place, for tokens of other streams
  /// (`noteJoinInPlace`).
  struct JoinInPlace {
    /// The kept position from which the stream's ops come after it.
    int64_t from;
    SmallVector<Value> tokens;
  };

  /// One CUDA stream this lowering creates.
  struct Stream {
    /// Its last token so far.
    Value tail;
    /// The tokens its creating join waits for.
    SmallVector<Value> joinedFrom;
    /// The tokens its block ordered it after by other means when it was
    /// made (`setOrderedAfter`): it comes after them as after `joinedFrom`.
    Covers orderedAfter = nullptr;
    /// The block (`enterBlock`'s count) that created it.
    unsigned block = 0;
    /// Its joins in place, in order, and how many of them the host knows
    /// to be done (they come before `completeUpTo`).
    SmallVector<JoinInPlace, 0> joinsInPlace;
    unsigned joinsInPlaceComplete = 0;
    /// Whether it was destroyed: after a host wait, or `released`.
    bool destroyed = false;
    /// Whether it was destroyed without a host wait.
    bool released = false;
    /// Whether it is synchronized and destroyed by runtime calls.
    bool explicit_ = false;
    /// The CUDA stream it continues, made before (null: its own).
    Value borrowedPointer;
    /// Whether its CUDA stream is lent to later streams, which then
    /// continue it (the lowering destroys it).
    bool lent = false;
    /// Whether a join must wait for its tokens through events rather than
    /// name them (see mayBeNamed).
    bool joinedByEvents = false;
    /// The event it waits for (null: none yet known), from the first
    /// position whose kept op comes after that wait (see isAfterEvent).
    Value eventWaited;
    int64_t eventWaitedFrom = 0;
    /// The position on it up to which the host knows its work is done (the
    /// host waited for a stream that joined it there); -1: none.
    int64_t completeUpTo = -1;
    /// The allocation tokens in flight that its creating join was ordered
    /// after (null: none). Shared by the streams whose joins add nothing to
    /// it.
    std::shared_ptr<const AllocClock> allocsAtCreation;
  };

  /// A node of `Covers`: its own tokens, the node it extends, and what is
  /// known of all those tokens together.
  struct CoverNode {
    SmallVector<Value, 2> tokens;
    const CoverNode *parent = nullptr;
    unsigned depth = 0;
    /// The nodes 1, 2, 4, ... above it (while there are): finds whether a
    /// node extends another in the log of the depth.
    SmallVector<const CoverNode *, 4> above;
    /// The allocations in flight ordered before the tokens (as
    /// `allocsOrderedBefore` of all of them), found when it was made.
    std::shared_ptr<const AllocClock> allocs;
    /// Whether the host knows the work up to every token of it, and of the
    /// nodes it extends, to be done (restored as streams' completion is).
    mutable bool complete = false;
  };
  /// Whether `covers` is `node` or extends it.
  static bool extends(Covers covers, const CoverNode *node);
  /// Appends to `worklist` the tokens of `covers` not known done, and marks
  /// them known done: the caller marks them complete.
  void takeCoversToComplete(Covers covers, SmallVectorImpl<Value> &worklist);

  bool mayVanish(Value token) const;
  /// The joins in place of `stream` that the kept op at or before `token`
  /// comes after: a prefix of its joins.
  ArrayRef<JoinInPlace> joinsInPlaceBefore(const Stream &stream,
                                           Value token) const;
  /// Marks `stream`'s work up to `token` complete; appends to `worklist`
  /// the tokens of the joins that this makes complete too.
  void completeUpTo(Stream &stream, Value token,
                    SmallVectorImpl<Value> &worklist);
  /// Whether the allocation token `alloc` is ordered before `token`: earlier
  /// on its stream, or before the join that created that stream.
  bool isAllocBefore(Value alloc, Value token) const;
  /// Whether `clock` (null: empty) orders the allocation token `alloc`.
  bool clockOrders(const AllocClock *clock, Value alloc) const;
  /// Whether the clock entry (`stream`, `at`) orders no allocation still in
  /// flight: every allocation on that stream up to `at` is done or unused
  /// (`noteUnused`), or there is none.
  bool ordersNoAllocInFlight(unsigned stream, unsigned at) const;
  void setCompleteUpTo(Stream &stream, int64_t at, unsigned joinsComplete);
  void markHistoryComplete(unsigned id);
  /// Marks complete the work up to each token of `worklist`, and what it
  /// was ordered after.
  void markCompleteFrom(SmallVectorImpl<Value> &worklist);
  /// The allocations in flight ordered before a join on the tokens
  /// `dependencies`: what their streams' creations were ordered after, and
  /// the allocations on their streams up to them. Shared with a
  /// dependency's stream where the others add nothing to it.
  std::shared_ptr<const AllocClock>
  allocsOrderedBefore(ArrayRef<Value> dependencies,
                      Covers covers = nullptr) const;
  void forgetDestroyed(StreamState &state) const;

  OpBuilder &builder;
  Type tokenType;
  std::function<void(Value, ArrayRef<Value>)> onNewStream;
  std::function<void(Value, bool)> explicitDestroyer;
  std::function<Value()> lender;
  std::function<void(Value, Value)> eventJoiner;
  /// Every stream created so far; a stream's id is its index.
  SmallVector<Stream> streams;
  /// The streams created by the block being lowered, and the token they are
  /// ordered after by other means (see `enterBlock`).
  SmallVector<unsigned> blockStreams;
  Covers blockOrderedAfter = nullptr;
  /// Every cover node made; a token → the nodes that hold it.
  std::deque<CoverNode> coverNodes;
  DenseMap<Value, SmallVector<const CoverNode *, 1>> coverNodesOf;
  /// The block being lowered, and the number of blocks entered so far.
  unsigned currentBlock = 0;
  unsigned blocksEntered = 0;
  /// gpu token → the stream it is on, and its position there (0: the
  /// stream's creation).
  DenseMap<Value, unsigned> tokenStream;
  DenseMap<Value, unsigned> position;
  /// gpu token → the position of the last op at or before it on its stream
  /// that canonicalization does not erase (a join, a launch: not a copy it
  /// may erase). Where canonicalization erases ops, the token stands for
  /// that position.
  DenseMap<Value, unsigned> keptPosition;
  /// The gpu tokens that canonicalization may turn into a stream without
  /// work (see mayVanish).
  DenseSet<Value> vanishing;
  /// gpu.alloc result → its token, and the set of those tokens.
  DenseMap<Value, Value> allocToken;
  DenseSet<Value> allocTokens;
  /// stream id → the positions on it of the allocations made there that a
  /// later op may use (not `noteUnused`).
  DenseMap<unsigned, std::set<unsigned>> usedAllocsOn;
  /// What `restoreCompletion` undoes: a stream's former completion per
  /// change since the outermost open save; and, per open save, the number
  /// of streams then (it restores only those).
  struct CompletionChange {
    unsigned id;
    int64_t completeUpTo;
    unsigned joinsInPlaceComplete;
    /// Not null: the change marked this node complete instead.
    const CoverNode *covers = nullptr;
  };
  SmallVector<CompletionChange> completionLog;
  SmallVector<size_t> savedStreamCounts;
};

} // namespace mlir::vyre::vyre_to_gpu

#endif // VYRE_LIB_CONVERSION_VYRETOGPU_STREAMTRACKER_H
