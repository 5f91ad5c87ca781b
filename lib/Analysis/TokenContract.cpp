//===- TokenContract.cpp - Waits that take a token for its stream ---------===//

#include "vyre/Analysis/TokenContract.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::vyre;

/// The ops that run after `token` on its stream: async ops (joins aside)
/// that take it as their dependency, and those after them, transitively.
static void collectStreamSuccessors(Value token,
                                    SmallVectorImpl<Operation *> &successors,
                                    llvm::SmallPtrSetImpl<Value> &tokens) {
  for (Operation *user : token.getUsers()) {
    auto async = dyn_cast<gpu::AsyncOpInterface>(user);
    if (!async || isa<gpu::WaitOp>(user) || !async.getAsyncToken() ||
        !llvm::is_contained(async.getAsyncDependencies(), token))
      continue;
    successors.push_back(user);
    if (tokens.insert(async.getAsyncToken()).second)
      collectStreamSuccessors(async.getAsyncToken(), successors, tokens);
  }
}

void vyre::findWaitsOnOlderTokens(
    Operation *root,
    function_ref<void(Operation *wait, Value token, Operation *later)> report) {
  root->walk([&](gpu::WaitOp wait) {
    if (wait.getAsyncToken())
      return;
    for (Value token : wait.getAsyncDependencies()) {
      SmallVector<Operation *> successors;
      llvm::SmallPtrSet<Value, 8> laterTokens;
      collectStreamSuccessors(token, successors, laterTokens);
      // The wait names the stream's later work itself: nothing relied on.
      if (llvm::any_of(wait.getAsyncDependencies(), [&](Value waited) {
            return laterTokens.contains(waited);
          }))
        continue;
      for (Operation *later : successors) {
        Operation *enqueued = wait->getBlock()->findAncestorOpInBlock(*later);
        if (enqueued && enqueued->isBeforeInBlock(wait)) {
          report(wait, token, later);
          break;
        }
      }
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
