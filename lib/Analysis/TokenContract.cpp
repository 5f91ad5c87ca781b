//===- TokenContract.cpp - Waits that take a token for its stream ---------===//
//
// Linear in the ops of the function: each token gets its place on its
// stream (a stream number and a depth) in one walk, and each (token, block)
// pair the first op of that block that runs after the token on its stream.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/TokenContract.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// Where a token stands: its stream, and how many ops came before it there.
struct StreamPlace {
  unsigned stream = 0;
  unsigned depth = 0;
};

/// Whether `user` is work enqueued after `token` on its stream: an async op
/// other than a wait that takes it as its dependency.
bool runsAfterOnStream(Operation *user, Value token) {
  auto async = dyn_cast<gpu::AsyncOpInterface>(user);
  return async && !isa<gpu::WaitOp>(user) && async.getAsyncToken() &&
         llvm::is_contained(async.getAsyncDependencies(), token);
}

class OlderTokenFinder {
public:
  explicit OlderTokenFinder(Operation *root) {
    root->walk([&](Operation *op) {
      auto async = dyn_cast<gpu::AsyncOpInterface>(op);
      if (!async || !async.getAsyncToken())
        return;
      ValueRange dependencies = async.getAsyncDependencies();
      auto place = dependencies.size() == 1 && !isa<gpu::WaitOp>(op)
                       ? places.find(dependencies.front())
                       : places.end();
      StreamPlace next =
          place == places.end()
              ? StreamPlace{numStreams++, 0}
              : StreamPlace{place->second.stream, place->second.depth + 1};
      places[async.getAsyncToken()] = next;
    });
  }

  /// The first op of `block` that holds work enqueued after `token` on its
  /// stream, or null.
  Operation *firstLaterWork(Value token, Block *block) {
    auto known = laterWork.find({token, block});
    if (known != laterWork.end())
      return known->second;
    Operation *first = nullptr;
    for (Operation *user : token.getUsers()) {
      if (!runsAfterOnStream(user, token))
        continue;
      Operation *holder = block->findAncestorOpInBlock(*user);
      if (holder && (!first || holder->isBeforeInBlock(first)))
        first = holder;
    }
    laterWork[{token, block}] = first;
    return first;
  }

  /// For each stream that `waited` names, the deepest place it names.
  DenseMap<unsigned, unsigned> deepestNamed(ValueRange waited) {
    DenseMap<unsigned, unsigned> deepest;
    for (Value other : waited) {
      auto place = places.find(other);
      if (place == places.end())
        continue;
      auto [it, inserted] =
          deepest.try_emplace(place->second.stream, place->second.depth);
      if (!inserted)
        it->second = std::max(it->second, place->second.depth);
    }
    return deepest;
  }

  /// Whether a later token of `token`'s stream is named (`deepest`, from
  /// deepestNamed: one pass over a wait's tokens, not one per token).
  bool namesLaterToken(Value token,
                       const DenseMap<unsigned, unsigned> &deepest) {
    auto place = places.find(token);
    if (place == places.end())
      return false;
    auto named = deepest.find(place->second.stream);
    return named != deepest.end() && named->second > place->second.depth;
  }

private:
  DenseMap<Value, StreamPlace> places;
  unsigned numStreams = 0;
  DenseMap<std::pair<Value, Block *>, Operation *> laterWork;
};

} // namespace

void vyre::findWaitsOnOlderTokens(
    Operation *root,
    function_ref<void(Operation *wait, Value token, Operation *later)> report) {
  OlderTokenFinder finder(root);
  root->walk([&](gpu::WaitOp wait) {
    if (wait.getAsyncToken())
      return;
    ValueRange waited = wait.getAsyncDependencies();
    DenseMap<unsigned, unsigned> deepest = finder.deepestNamed(waited);
    for (Value token : waited) {
      if (finder.namesLaterToken(token, deepest))
        continue;
      // Work enqueued before the wait: before it in its block, or before
      // the region op that holds it in an enclosing block.
      Operation *later = nullptr;
      for (Operation *at = wait;
           at && at->getBlock() && !isa<FunctionOpInterface>(at) && !later;
           at = at->getParentOp()) {
        Operation *first = finder.firstLaterWork(token, at->getBlock());
        if (first && first->isBeforeInBlock(at))
          later = first;
      }
      if (!later)
        continue;
      // Name the work itself, not the region op that holds it.
      Operation *work = later;
      for (Operation *user : token.getUsers())
        if (runsAfterOnStream(user, token) && later->isAncestor(user)) {
          work = user;
          break;
        }
      report(wait, token, work);
    }
  });
}

std::string vyre::describeWaitOnOlderToken(Operation *later) {
  return ("waits on a token and expects the work enqueued after it on its "
          "stream ('" +
          later->getName().getStringRef() +
          "') to be done: it relies on the token being its stream, which "
          "upstream's canonicalize does not keep (a token stands for the op "
          "that made it); wait on the token of the last op instead")
      .str();
}
