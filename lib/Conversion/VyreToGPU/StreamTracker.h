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

namespace mlir::vyre::vyre_to_gpu {

/// The logical streams of the block being lowered: the main stream's current
/// CUDA stream and each side stream's. A null entry has nothing in flight.
struct StreamState {
  Value main;
  llvm::MapVector<int64_t, Value> side;
};

/// The CUDA streams created so far, and the gpu tokens on them. A stream's
/// id is its index in creation order.
class StreamTracker {
public:
  /// Creates its gpu ops with `builder`, where it points.
  explicit StreamTracker(OpBuilder &builder);

  /// The id of the stream `token` is on.
  unsigned streamOf(Value token) const { return tokenStream.lookup(token); }

  /// Whether the host knows that the work up to `token` is done.
  bool isComplete(Value token) const;

  /// The single dependency of the next op on the stream whose tail is
  /// `current`, after `waits`: the same stream where nothing else is needed,
  /// otherwise a new stream joined from `current` and `waits`.
  Value continueOn(Value current, ArrayRef<Value> waits, Location loc);

  /// A new stream that waits for `current` (if any) and `waits`.
  Value join(Value current, ArrayRef<Value> waits, Location loc);

  /// Records `token`, made by an op that depends on `dependency`, as the new
  /// tail of that dependency's stream; returns it. `erasable`: the op is one
  /// canonicalization may erase.
  Value append(Value dependency, Value token, bool erasable = false);

  /// Records `memref` as made by the `gpu.alloc async` whose token is
  /// `token`, the tail of its stream.
  void recordAlloc(Value memref, Value token);

  /// The allocation still in flight that an op ordered after the tokens
  /// `after` must also wait for before it touches `buffer`, if any.
  SmallVector<Value> allocsToOrder(ArrayRef<Value> after, Value buffer) const;

  /// The host waits for every stream in `ids` and destroys it, in one
  /// blocking `gpu.wait`. Tokens on those streams are complete from then on,
  /// and the logical streams of `state` on them have nothing in flight.
  void destroyStreams(ArrayRef<unsigned> ids, Location loc, StreamState &state);

  /// Starts a block: the streams created from now on are its own. Returns
  /// the enclosing block's, for `exitBlock`.
  SmallVector<unsigned> enterBlock();

  /// Ends a block; `enclosing` is what `enterBlock` returned.
  void exitBlock(SmallVector<unsigned> enclosing);

  /// The streams created by the block being lowered.
  ArrayRef<unsigned> getBlockStreams() const { return blockStreams; }

private:
  /// One CUDA stream this lowering creates.
  struct Stream {
    /// Its last token so far.
    Value tail;
    /// The tokens its creating join waits for.
    SmallVector<Value> joinedFrom;
    /// Whether the host waited for it and destroyed it.
    bool destroyed = false;
    /// The position on it up to which the host knows its work is done (the
    /// host waited for a stream that joined it there); -1: none.
    int64_t completeUpTo = -1;
  };

  bool mayVanish(Value token) const;
  void markHistoryComplete(unsigned id);

  OpBuilder &builder;
  Type tokenType;
  /// Every stream created so far; a stream's id is its index.
  SmallVector<Stream> streams;
  /// The streams created by the block being lowered.
  SmallVector<unsigned> blockStreams;
  /// gpu token → the stream it is on, and its position there (0: the
  /// stream's creation).
  DenseMap<Value, unsigned> tokenStream;
  DenseMap<Value, unsigned> position;
  /// The gpu tokens that canonicalization may turn into a stream without
  /// work (see mayVanish).
  DenseSet<Value> vanishing;
  /// gpu.alloc result → its token.
  DenseMap<Value, Value> allocToken;
  /// gpu token → the allocation tokens ordered before it (on any stream).
  DenseMap<Value, SmallVector<Value>> allocsBefore;
};

} // namespace mlir::vyre::vyre_to_gpu

#endif // VYRE_LIB_CONVERSION_VYRETOGPU_STREAMTRACKER_H
