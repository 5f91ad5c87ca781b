//===- HostWaitJoins.cpp - Host waits for one explicit stream -------------===//

#include "HostWaitJoins.h"

#include "RuntimeCalls.h"

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::vyre_to_gpu;

/// Whether a blocking `gpu.wait` on `token` (which destroys its stream) may
/// run before `join`: one that is not after it in its block, or in a
/// region of an op after it. The join's events are recorded right after
/// the token's op, so it stays right; a synchronize of the stream would not.
static bool mayBeDestroyedBefore(Value token, gpu::WaitOp join) {
  Block *block = join->getBlock();
  return llvm::any_of(token.getUsers(), [&](Operation *user) {
    auto wait = dyn_cast<gpu::WaitOp>(user);
    if (!wait || wait.getAsyncToken())
      return false;
    Operation *inBlock = block->findAncestorOpInBlock(*wait);
    return !inBlock || !join->isBeforeInBlock(inBlock);
  });
}

bool vyre_to_gpu::lowerHostWaitJoins(ModuleOp module) {
  StringLiteral mark = VyreDialect::getHostWaitJoinAttrName();
  SmallVector<gpu::WaitOp> joins;
  module.walk([&](gpu::WaitOp join) {
    if (join->hasAttr(mark))
      joins.push_back(join);
  });
  if (joins.empty())
    return false;
  OpBuilder builder(module.getContext());
  RuntimeCalls calls(builder);
  calls.setModule(module);
  for (gpu::WaitOp join : joins) {
    join->removeAttr(mark);
    Value joined = join.getAsyncToken();
    llvm::SmallSetVector<Value, 2> tokens(join.getAsyncDependencies().begin(),
                                          join.getAsyncDependencies().end());
    if (tokens.size() != 1 || !joined || !joined.hasOneUse())
      continue;
    auto wait = dyn_cast<gpu::WaitOp>(*joined.getUsers().begin());
    if (!wait || wait.getAsyncToken() ||
        wait.getAsyncDependencies().size() != 1)
      continue;
    if (mayBeDestroyedBefore(tokens.front(), join))
      continue;
    builder.setInsertionPoint(wait);
    calls.synchronizeStream(tokens.front(), wait.getLoc());
    wait.erase();
    join.erase();
  }
  return true;
}
