//===- StreamTracker.cpp - The CUDA streams the lowering creates ----------===//

#include "StreamTracker.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
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

StreamTracker::Covers StreamTracker::extendCovers(Covers covers,
                                                  ArrayRef<Value> tokens) {
  if (tokens.empty())
    return covers;
  CoverNode &node = coverNodes.emplace_back();
  node.tokens.assign(tokens.begin(), tokens.end());
  node.parent = covers;
  if (covers) {
    // above[i] is 2^i nodes up: 2^(i-1) from the one 2^(i-1) up.
    node.depth = covers->depth + 1;
    node.above.push_back(covers);
    for (unsigned i = 1; i - 1 < node.above.back()->above.size(); ++i)
      node.above.push_back(node.above.back()->above[i - 1]);
  }
  node.allocs = allocsOrderedBefore(tokens, covers);
  for (Value token : tokens)
    coverNodesOf[token].push_back(&node);
  return &node;
}

bool StreamTracker::extends(Covers covers, const CoverNode *node) {
  if (!covers || covers->depth < node->depth)
    return false;
  // Up by the difference of the depths, a power of two at a time.
  unsigned up = covers->depth - node->depth;
  for (unsigned bit = 0; up; ++bit, up >>= 1)
    if (up & 1)
      covers = covers->above[bit];
  return covers == node;
}

bool StreamTracker::isCovered(Covers covers, Value token) const {
  if (!covers)
    return false;
  auto it = coverNodesOf.find(token);
  if (it == coverNodesOf.end())
    return false;
  return llvm::any_of(
      it->second, [&](const CoverNode *node) { return extends(covers, node); });
}

void StreamTracker::takeCoversToComplete(Covers covers,
                                         SmallVectorImpl<Value> &worklist) {
  // A node known complete is so with the nodes it extends.
  for (; covers && !covers->complete; covers = covers->parent) {
    worklist.append(covers->tokens.begin(), covers->tokens.end());
    covers->complete = true;
    if (!savedStreamCounts.empty())
      completionLog.push_back({0, 0, 0, covers});
  }
}

void StreamTracker::markCoversComplete(Covers covers) {
  SmallVector<Value> worklist;
  takeCoversToComplete(covers, worklist);
  markCompleteFrom(worklist);
}

ArrayRef<StreamTracker::JoinInPlace>
StreamTracker::joinsInPlaceBefore(const Stream &stream, Value token) const {
  int64_t kept = keptPosition.lookup(token);
  ArrayRef<JoinInPlace> joins = stream.joinsInPlace;
  return joins.take_front(llvm::partition_point(joins, [&](
                              const JoinInPlace &join) {
                            return join.from <= kept;
                          }) -
                          joins.begin());
}

bool StreamTracker::clockOrders(const AllocClock *clock, Value alloc) const {
  if (!clock)
    return false;
  unsigned allocStream = streamOf(alloc);
  const auto *entry = llvm::lower_bound(
      *clock, allocStream,
      [](const std::pair<unsigned, unsigned> &entry, unsigned stream) {
        return entry.first < stream;
      });
  return entry != clock->end() && entry->first == allocStream &&
         position.lookup(alloc) <= entry->second;
}

bool StreamTracker::isAllocBefore(Value alloc, Value token) const {
  auto it = tokenStream.find(token);
  if (it == tokenStream.end())
    return false;
  if (streamOf(alloc) == it->second)
    return position.lookup(alloc) <= position.lookup(token);
  // Only gpu tokens order an allocation before an op on another stream (the
  // token contract): the join that created the stream, not a join in place.
  return clockOrders(streams[it->second].allocsAtCreation.get(), alloc);
}

bool StreamTracker::ordersNoAllocInFlight(unsigned stream, unsigned at) const {
  auto it = usedAllocsOn.find(stream);
  if (it == usedAllocsOn.end())
    return true;
  const Stream &holder = streams[stream];
  if (holder.destroyed && !holder.released)
    return true;
  // Those up to `completeUpTo` are done (isComplete): the first allocation
  // neither done nor unused must come after `at`.
  const std::set<unsigned> &used = it->second;
  auto first =
      holder.completeUpTo < 0
          ? used.begin()
          : used.upper_bound(static_cast<unsigned>(holder.completeUpTo));
  return first == used.end() || *first > at;
}

SmallVector<Value> StreamTracker::allocsToOrder(ArrayRef<Value> after,
                                                Value buffer) const {
  Value alloc = allocToken.lookup(resolveRoot(buffer));
  if (!alloc || isComplete(alloc))
    return {};
  for (Value token : after)
    if (token && isAllocBefore(alloc, token))
      return {};
  return {alloc};
}

Value StreamTracker::continueOn(Value current, ArrayRef<Value> waits,
                                Location loc) {
  if (current && waits.empty())
    return current;
  return join(current, waits, loc);
}

std::shared_ptr<const StreamTracker::AllocClock>
StreamTracker::allocsOrderedBefore(ArrayRef<Value> dependencies,
                                   Covers covers) const {
  AllocClock merged;
  auto add = [&](unsigned stream, unsigned at) {
    auto *entry = llvm::lower_bound(
        merged, stream,
        [](const std::pair<unsigned, unsigned> &entry, unsigned id) {
          return entry.first < id;
        });
    if (entry != merged.end() && entry->first == stream)
      entry->second = std::max(entry->second, at);
    else
      merged.insert(entry, {stream, at});
  };
  const std::shared_ptr<const AllocClock> *base = nullptr;
  for (Value dependency : dependencies) {
    auto it = tokenStream.find(dependency);
    if (it == tokenStream.end())
      continue;
    const auto &created = streams[it->second].allocsAtCreation;
    if (created) {
      if (!base)
        base = &created;
      for (auto [stream, at] : *created)
        add(stream, at);
    }
    add(it->second, position.lookup(dependency));
  }
  if (covers && covers->allocs)
    for (auto [stream, at] : *covers->allocs)
      add(stream, at);
  // Allocations the host knows to be done need no ordering any more.
  llvm::erase_if(merged, [&](const std::pair<unsigned, unsigned> &entry) {
    return ordersNoAllocInFlight(entry.first, entry.second);
  });
  if (merged.empty())
    return nullptr;
  if (base && **base == merged)
    return *base;
  return std::make_shared<const AllocClock>(std::move(merged));
}

/// The join keeps two operands whatever canonicalization erases, so that it
/// is never folded into the stream of one of them: with one dependency that
/// must stay, it names that one twice; with none, it names each twice. A
/// token that a join may not name (mayBeNamed: one on a borrowed stream) is
/// waited for through an event (`eventJoiner`). A stream without dependencies
/// continues a lent CUDA stream where the lender has one.
Value StreamTracker::join(Value current, ArrayRef<Value> waits, Location loc) {
  SmallVector<Value> dependencies;
  if (current)
    dependencies.push_back(current);
  for (Value wait : waits)
    if (!llvm::is_contained(dependencies, wait))
      dependencies.push_back(wait);
  SmallVector<Value> named, byEvent;
  for (Value dependency : dependencies)
    (mayBeNamed(dependency) ? named : byEvent).push_back(dependency);
  SmallVector<Value> staying = llvm::filter_to_vector(
      named, [&](Value dependency) { return !mayVanish(dependency); });
  SmallVector<Value> operands;
  for (Value dependency : named) {
    operands.push_back(dependency);
    if (staying.size() == 0 ||
        (staying.size() == 1 && staying.front() == dependency))
      operands.push_back(dependency);
  }
  // A stream of a block ordered after tokens by other means: ordered after
  // what those tokens are, and a host wait for it is one for them too.
  std::shared_ptr<const AllocClock> allocsAtCreation =
      allocsOrderedBefore(dependencies, blockOrderedAfter);
  Value pointer = operands.empty() && lender ? lender() : Value();
  Value token = pointer ? UnrealizedConversionCastOp::create(builder, loc,
                                                             tokenType, pointer)
                              .getResult(0)
                        : gpu::WaitOp::create(builder, loc, tokenType, operands)
                              .getAsyncToken();
  unsigned id = streams.size();
  streams.push_back({token, std::move(dependencies)});
  streams.back().orderedAfter = blockOrderedAfter;
  streams.back().allocsAtCreation = std::move(allocsAtCreation);
  streams.back().block = currentBlock;
  streams.back().borrowedPointer = pointer;
  streams.back().explicit_ = pointer || !byEvent.empty();
  // A join names a token by an event recorded right after its op: for this
  // stream's first token, before the waits by events below.
  streams.back().joinedByEvents = pointer || !byEvent.empty();
  tokenStream[token] = id;
  position[token] = 0;
  keptPosition[token] = 0;
  if (staying.empty() && !pointer)
    vanishing.insert(token);
  blockStreams.push_back(id);
  if (onNewStream) {
    SmallVector<Value> joined(operands);
    llvm::append_range(joined, byEvent);
    onNewStream(token, joined);
  }
  for (Value dependency : byEvent)
    eventJoiner(token, dependency);
  return token;
}

bool StreamTracker::canJoinInPlace(Value current, ArrayRef<Value> waits,
                                   Block *block) const {
  auto it = tokenStream.find(current);
  if (it == tokenStream.end() || mayVanish(current))
    return false;
  const Stream &stream = streams[it->second];

  if (stream.destroyed || stream.tail != current ||
      stream.block != currentBlock)
    return false;
  return llvm::all_of(waits, [&](Value wait) {
    Operation *op = wait.getDefiningOp();
    auto waited = tokenStream.find(wait);
    return op && op->getBlock() == block && waited != tokenStream.end() &&
           !streams[waited->second].released && !allocTokens.contains(wait);
  });
}

/// The allocations ordered before the stream stay those of its tokens: an
/// allocation made on another stream is ordered before an op by gpu tokens
/// only (the token contract, rule 3 of VyreToGPU.cpp), which an event does
/// not give.
void StreamTracker::noteJoinInPlace(Value current, ArrayRef<Value> waits) {
  Stream &stream = streams[streamOf(current)];
  stream.joinsInPlace.push_back(
      {static_cast<int64_t>(position.lookup(current)) + 1,
       SmallVector<Value>(waits)});
}

SmallVector<Value>
StreamTracker::latestPerStream(ArrayRef<Value> tokens) const {
  llvm::MapVector<unsigned, Value> latest;
  for (Value token : tokens) {
    Value &entry = latest[streamOf(token)];
    if (!entry || position.lookup(token) > position.lookup(entry))
      entry = token;
  }
  return llvm::to_vector(llvm::make_second_range(latest));
}

void StreamTracker::noteEventWait(Value tail, Value event) {
  Stream &stream = streams[streamOf(tail)];
  int64_t from = position.lookup(tail) + 1;
  if (stream.eventWaited == event && stream.eventWaitedFrom <= from)
    return;
  stream.eventWaited = event;
  stream.eventWaitedFrom = from;
}

void StreamTracker::noteJoinAfterEvent(Value token, Value event) {
  Stream &stream = streams[streamOf(token)];
  stream.eventWaited = event;
  stream.eventWaitedFrom = 0;
}

bool StreamTracker::isAfterEvent(Value token, Value event) const {
  auto it = tokenStream.find(token);
  if (!event || it == tokenStream.end())
    return false;
  const Stream &stream = streams[it->second];
  return stream.eventWaited == event &&
         static_cast<int64_t>(keptPosition.lookup(token)) >=
             stream.eventWaitedFrom;
}


size_t StreamTracker::saveCompletion() {
  savedStreamCounts.push_back(streams.size());
  return completionLog.size();
}

void StreamTracker::restoreCompletion(size_t saved) {
  while (completionLog.size() > saved) {
    CompletionChange change = completionLog.pop_back_val();
    if (change.covers) {
      change.covers->complete = false;
      continue;
    }
    streams[change.id].completeUpTo = change.completeUpTo;
    streams[change.id].joinsInPlaceComplete = change.joinsInPlaceComplete;
  }
  savedStreamCounts.pop_back();
}

/// Logged for the innermost open save if the stream existed then: what
/// streams made since learn outlives it, as it did when every stream's
/// completion was copied and restored.
void StreamTracker::setCompleteUpTo(Stream &stream, int64_t at,
                                    unsigned joinsComplete) {
  unsigned id = &stream - streams.data();
  if (!savedStreamCounts.empty() && id < savedStreamCounts.back())
    completionLog.push_back(
        {id, stream.completeUpTo, stream.joinsInPlaceComplete});
  stream.completeUpTo = at;
  stream.joinsInPlaceComplete = joinsComplete;
}

/// Its creation, and the joins in place before the kept op at or before
/// `token`, came before `token`: their tokens are done too.
void StreamTracker::completeUpTo(Stream &stream, Value token,
                                 SmallVectorImpl<Value> &worklist) {
  int64_t at = position.lookup(token);
  if (stream.completeUpTo < 0) {
    worklist.append(stream.joinedFrom);
    takeCoversToComplete(stream.orderedAfter, worklist);
  }
  unsigned joins = std::max<unsigned>(
      stream.joinsInPlaceComplete, joinsInPlaceBefore(stream, token).size());
  for (const JoinInPlace &join : ArrayRef<JoinInPlace>(stream.joinsInPlace)
                                     .slice(stream.joinsInPlaceComplete,
                                            joins - stream.joinsInPlaceComplete))
    worklist.append(join.tokens);
  setCompleteUpTo(stream, at, joins);
}

/// Whether canonicalization may erase every op up to `token` on its
/// stream, so that joins drop it as a dependency: a stream created without
/// dependencies whose ops so far are copies it may erase (canonicalize
/// erases a copy into an allocation nothing else but frees uses).
bool StreamTracker::mayVanish(Value token) const {
  return vanishing.contains(token);
}

Value StreamTracker::append(Value dependency, Value token, bool erasable) {
  if (erasable && mayVanish(dependency))
    vanishing.insert(token);
  unsigned id = streamOf(dependency);
  // Positions order a stream's tokens, and its allocations by them
  // (isAllocBefore): a stream never forks.
  assert(streams[id].tail == dependency &&
         "an op continues a stream from its tail only");
  tokenStream[token] = id;
  position[token] = position.lookup(dependency) + 1;
  keptPosition[token] =
      erasable ? keptPosition.lookup(dependency) : position[token];
  streams[id].tail = token;
  return token;
}

bool StreamTracker::isOrderedByBlock(Value alloc) const {
  if (!allocTokens.contains(alloc))
    return false;
  // The clock of the covers holds, per stream, the last of them there.
  return blockOrderedAfter &&
         clockOrders(blockOrderedAfter->allocs.get(), alloc);
}

void StreamTracker::recordAlloc(Value memref, Value token) {
  allocToken[memref] = token;
  allocTokens.insert(token);
  usedAllocsOn[streamOf(token)].insert(position.lookup(token));
}

void StreamTracker::noteUnused(Value memref) {
  Value token = allocToken.lookup(memref);
  if (!token)
    return;
  auto it = usedAllocsOn.find(streamOf(token));
  if (it != usedAllocsOn.end())
    it->second.erase(position.lookup(token));
}

/// The host has waited for all work on stream `id`: so it has for the work
/// of every stream that the stream's creation joined, up to the join.
void StreamTracker::markHistoryComplete(unsigned id) {
  SmallVector<Value> worklist(streams[id].joinedFrom);
  takeCoversToComplete(streams[id].orderedAfter, worklist);
  for (const JoinInPlace &join : streams[id].joinsInPlace)
    worklist.append(join.tokens);
  markCompleteFrom(worklist);
}

void StreamTracker::markCompleteFrom(SmallVectorImpl<Value> &worklist) {
  while (!worklist.empty()) {
    Value token = worklist.pop_back_val();
    Stream &stream = streams[streamOf(token)];
    // A stream the host waited for is done; one released without a wait (a
    // chained op's retired stream) is done up to what the host waits for
    // since, as allocations on it that later streams use.
    if ((stream.destroyed && !stream.released) ||
        position.lookup(token) <= stream.completeUpTo)
      continue;
    completeUpTo(stream, token, worklist);
  }
}

void StreamTracker::markCompleteUpTo(Value token) {
  SmallVector<Value> worklist{token};
  markCompleteFrom(worklist);
}

void StreamTracker::destroyStreams(ArrayRef<unsigned> ids, Location loc,
                                   StreamState &state) {
  SmallVector<Value> tails;
  SmallVector<std::pair<Value, bool>> explicitTails;
  for (unsigned id : ids) {
    Stream &stream = streams[id];
    if (stream.destroyed)
      continue;
    if (stream.explicit_)
      explicitTails.push_back({stream.tail, isComplete(stream.tail)});
    else
      tails.push_back(stream.tail);
    stream.destroyed = true;
    markHistoryComplete(id);
  }
  if (!tails.empty())
    gpu::WaitOp::create(builder, loc, Type(), tails);
  for (auto [tail, done] : explicitTails)
    explicitDestroyer(tail, done);
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

bool StreamTracker::hostWaitedForAny(ArrayRef<unsigned> ids) const {
  return llvm::any_of(ids, [&](unsigned id) {
    return streams[id].destroyed && !streams[id].released;
  });
}

SmallVector<Value> StreamTracker::liveTails(ArrayRef<unsigned> ids) const {
  SmallVector<Value> tails;
  for (unsigned id : ids)
    if (!streams[id].destroyed)
      tails.push_back(streams[id].tail);
  return tails;
}

SmallVector<Value> StreamTracker::withoutJoined(ArrayRef<Value> tails) const {
  DenseSet<Value> joined;
  for (Value tail : tails) {
    const Stream &stream = streams[streamOf(tail)];
    joined.insert(stream.joinedFrom.begin(), stream.joinedFrom.end());
    for (const JoinInPlace &join : joinsInPlaceBefore(stream, tail))
      joined.insert(join.tokens.begin(), join.tokens.end());
  }
  return llvm::filter_to_vector(tails, [&](Value tail) {
    return !joined.contains(tail) && llvm::none_of(tails, [&](Value other) {
      return isCovered(streams[streamOf(other)].orderedAfter, tail);
    });
  });
}

StreamTracker::EnclosingBlock StreamTracker::enterBlock() {
  EnclosingBlock enclosing;
  std::swap(enclosing.streams, blockStreams);
  enclosing.orderedAfter = blockOrderedAfter;
  blockOrderedAfter = nullptr;
  enclosing.block = currentBlock;
  currentBlock = ++blocksEntered;
  return enclosing;
}

void StreamTracker::exitBlock(EnclosingBlock enclosing) {
  blockStreams = std::move(enclosing.streams);
  blockOrderedAfter = enclosing.orderedAfter;
  currentBlock = enclosing.block;
}
