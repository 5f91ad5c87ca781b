//===- StreamTracker.cpp - The CUDA streams the lowering creates ----------===//

#include "StreamTracker.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::vyre::vyre_to_gpu;

/// The buffer a view is taken of, through every view.
static Value resolveRoot(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

StreamTracker::StreamTracker(OpBuilder &builder)
    : builder(builder),
      tokenType(gpu::AsyncTokenType::get(builder.getContext())) {}

bool StreamTracker::isComplete(Value token) const {
  const Stream &stream = streams[streamOf(token)];
  return (stream.destroyed && !stream.released) ||
         static_cast<int64_t>(position.lookup(token)) <= stream.completeUpTo;
}

SmallVector<Value> StreamTracker::allocsToOrder(ArrayRef<Value> after,
                                                Value buffer) const {
  Value alloc = allocToken.lookup(resolveRoot(buffer));
  if (!alloc || isComplete(alloc))
    return {};
  for (Value token : after)
    if (token && llvm::is_contained(allocsBefore.lookup(token), alloc))
      return {};
  return {alloc};
}

Value StreamTracker::continueOn(Value current, ArrayRef<Value> waits,
                                Location loc) {
  if (current && waits.empty())
    return current;
  return join(current, waits, loc);
}

/// The join keeps two operands whatever canonicalization erases, so that it
/// is never folded into the stream of one of them: with one dependency that
/// must stay, it names that one twice; with none, it names each twice.
Value StreamTracker::join(Value current, ArrayRef<Value> waits, Location loc) {
  SmallVector<Value> dependencies;
  if (current)
    dependencies.push_back(current);
  for (Value wait : waits)
    if (!llvm::is_contained(dependencies, wait))
      dependencies.push_back(wait);
  SmallVector<Value> staying = llvm::filter_to_vector(
      dependencies, [&](Value dependency) { return !mayVanish(dependency); });
  SmallVector<Value> operands;
  SmallVector<Value> orderedAllocs;
  for (Value dependency : dependencies) {
    operands.push_back(dependency);
    if (staying.size() == 0 ||
        (staying.size() == 1 && staying.front() == dependency))
      operands.push_back(dependency);
    for (Value alloc : allocsBefore.lookup(dependency))
      if (!llvm::is_contained(orderedAllocs, alloc))
        orderedAllocs.push_back(alloc);
  }
  // A stream of a block ordered after a token by other means: ordered after
  // what that token is, and a host wait for it is one for that token too.
  for (Value token : blockOrderedAfter) {
    for (Value alloc : allocsBefore.lookup(token))
      if (!llvm::is_contained(orderedAllocs, alloc))
        orderedAllocs.push_back(alloc);
    dependencies.push_back(token);
  }
  Value token =
      gpu::WaitOp::create(builder, loc, tokenType, operands).getAsyncToken();
  // (`dependencies` now also names the block's `orderedAfter`, which the
  // join op does not: it becomes the stream's `joinedFrom`.)
  allocsBefore[token] = std::move(orderedAllocs);
  unsigned id = streams.size();
  streams.push_back({token, std::move(dependencies)});
  tokenStream[token] = id;
  position[token] = 0;
  if (staying.empty())
    vanishing.insert(token);
  blockStreams.push_back(id);
  if (onNewStream)
    onNewStream(token);
  return token;
}


SmallVector<int64_t> StreamTracker::saveCompletion() const {
  return llvm::map_to_vector(streams,
                             [](const Stream &stream) { return stream.completeUpTo; });
}

void StreamTracker::restoreCompletion(ArrayRef<int64_t> saved) {
  for (auto [stream, completeUpTo] : llvm::zip(streams, saved))
    stream.completeUpTo = completeUpTo;
}

/// Whether canonicalization may erase every op up to `token` on its
/// stream, so that joins drop it as a dependency: a stream created without
/// dependencies whose ops so far are copies (canonicalize erases a copy into
/// a buffer nothing reads).
bool StreamTracker::mayVanish(Value token) const {
  return vanishing.contains(token);
}

Value StreamTracker::append(Value dependency, Value token, bool erasable) {
  if (erasable && mayVanish(dependency))
    vanishing.insert(token);
  if (auto it = allocsBefore.find(dependency); it != allocsBefore.end()) {
    SmallVector<Value> inherited = it->second;
    allocsBefore[token] = std::move(inherited);
  }
  unsigned id = streamOf(dependency);
  tokenStream[token] = id;
  position[token] = position.lookup(dependency) + 1;
  streams[id].tail = token;
  return token;
}

bool StreamTracker::isOrderedByBlock(Value alloc) const {
  return llvm::any_of(blockOrderedAfter, [&](Value token) {
    return llvm::is_contained(allocsBefore.lookup(token), alloc);
  });
}

void StreamTracker::recordAlloc(Value memref, Value token) {
  allocToken[memref] = token;
  allocsBefore[token].push_back(token);
}

/// The host has waited for all work on stream `id`: so it has for the work
/// of every stream that the stream's creation joined, up to the join.
void StreamTracker::markHistoryComplete(unsigned id) {
  SmallVector<Value> worklist(streams[id].joinedFrom);
  while (!worklist.empty()) {
    Value token = worklist.pop_back_val();
    Stream &stream = streams[streamOf(token)];
    int64_t at = position.lookup(token);
    if (stream.destroyed || at <= stream.completeUpTo)
      continue;
    // Its creation came before everything on it: visit it once.
    if (stream.completeUpTo < 0)
      worklist.append(stream.joinedFrom);
    stream.completeUpTo = at;
  }
}

void StreamTracker::markCompleteUpTo(Value token) {
  Stream &stream = streams[streamOf(token)];
  int64_t at = position.lookup(token);
  if (stream.destroyed || at <= stream.completeUpTo)
    return;
  bool first = stream.completeUpTo < 0;
  stream.completeUpTo = at;
  // Its creation came before everything on it.
  if (first)
    for (Value joined : SmallVector<Value>(stream.joinedFrom))
      markCompleteUpTo(joined);
}

void StreamTracker::destroyStreams(ArrayRef<unsigned> ids, Location loc,
                                   StreamState &state) {
  SmallVector<Value> tails, explicitTails;
  for (unsigned id : ids) {
    Stream &stream = streams[id];
    if (stream.destroyed)
      continue;
    stream.destroyed = true;
    (stream.explicit_ ? explicitTails : tails).push_back(stream.tail);
    markHistoryComplete(id);
  }
  if (!tails.empty())
    gpu::WaitOp::create(builder, loc, Type(), tails);
  for (Value tail : explicitTails)
    explicitDestroyer(tail);
  forgetDestroyed(state);
}

/// The logical streams of `state` that were on destroyed streams have
/// nothing in flight any more.
void StreamTracker::forgetDestroyed(StreamState &state) const {
  auto isDestroyed = [&](Value token) {
    return token && streams[streamOf(token)].destroyed;
  };
  if (isDestroyed(state.main))
    state.main = Value();
  for (auto &entry : state.side)
    if (isDestroyed(entry.second))
      entry.second = Value();
}

SmallVector<Value> StreamTracker::releaseStreams(ArrayRef<unsigned> ids,
                                                 StreamState &state) {
  SmallVector<Value> tails = liveTails(ids);
  for (unsigned id : ids)
    if (!streams[id].destroyed)
      streams[id].destroyed = streams[id].released = true;
  forgetDestroyed(state);
  return tails;
}

SmallVector<Value> StreamTracker::liveTails(ArrayRef<unsigned> ids) const {
  SmallVector<Value> tails;
  for (unsigned id : ids)
    if (!streams[id].destroyed)
      tails.push_back(streams[id].tail);
  return tails;
}

StreamTracker::EnclosingBlock StreamTracker::enterBlock() {
  EnclosingBlock enclosing;
  std::swap(enclosing.streams, blockStreams);
  std::swap(enclosing.orderedAfter, blockOrderedAfter);
  return enclosing;
}

void StreamTracker::exitBlock(EnclosingBlock enclosing) {
  blockStreams = std::move(enclosing.streams);
  blockOrderedAfter = enclosing.orderedAfter;
}
