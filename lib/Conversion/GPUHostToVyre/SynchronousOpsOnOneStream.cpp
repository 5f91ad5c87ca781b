//===- SynchronousOpsOnOneStream.cpp - Synchronous ops beside explicit ones -*- C++ -*-===//

#include "SynchronousOpsOnOneStream.h"

#include "vyre/Analysis/ExplicitAsyncWork.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;

/// How many accesses of a chain later ops are compared with, at most: past
/// that, what the chain touches is taken as unknown (the next op with
/// effects waits for it), which keeps the cost linear in the block.
static constexpr size_t kMaxComparedChainAccesses = 128;

/// Rebuilds the synchronous gpu op `op` with `async [dependency]` and a token
/// result, as upstream's pass rebuilds it; returns the new op.
static Operation *makeAsynchronous(Operation *op, Value dependency) {
  OpBuilder builder(op);
  cast<gpu::AsyncOpInterface>(op).addAsyncDependency(dependency);
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(op->getOperands());
  state.addAttributes(op->getAttrs());
  state.addTypes(op->getResultTypes());
  state.addTypes(builder.getType<gpu::AsyncTokenType>());
  Operation *async = builder.create(state);
  op->replaceAllUsesWith(async->getResults().drop_back());
  op->erase();
  return async;
}

/// Whether `op` may need the work of a chain that touches `chainAccesses`
/// (none: unknown) done before it runs.
static bool
mayNeedChain(Operation &op,
             const std::optional<SmallVector<GPUBufferAccess>> &chainAccesses) {
  if (op.hasTrait<OpTrait::IsTerminator>())
    return true;
  // A wait on explicit tokens, or a join of them, touches no buffer itself.
  if (isa<gpu::WaitOp>(op))
    return false;
  bool gpuOp = isa<gpu::AsyncOpInterface>(op);
  if (!gpuOp && isMemoryEffectFree(&op))
    return false;
  // Only an op that says what it touches is compared with the chain: a gpu
  // op, or a host op without regions that declares its effects (not a
  // call, whose callee may touch anything).
  bool declared = op.getNumRegions() == 0 && !isa<CallOpInterface>(op) &&
                  (gpuOp || isa<MemoryEffectOpInterface>(op));
  if (!declared || !chainAccesses)
    return true;
  std::optional<SmallVector<GPUBufferAccess>> accesses =
      getGPUHostOpAccesses(&op);
  return !accesses || mayBuffersConflict(*accesses, *chainAccesses);
}

unsigned mlir::vyre::runSynchronousOpsOnOneStream(
    Block &block, function_ref<bool(Operation *)> isSynchronous) {
  unsigned madeAsynchronous = 0;
  Value chain;
  std::optional<SmallVector<GPUBufferAccess>> chainAccesses;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isSynchronous(&op)) {
      if (!chain) {
        OpBuilder builder(&op);
        chain = gpu::WaitOp::create(builder, op.getLoc(),
                                    builder.getType<gpu::AsyncTokenType>(),
                                    ValueRange())
                    .getAsyncToken();
        chainAccesses.emplace();
      }
      Operation *async = makeAsynchronous(&op, chain);
      chain = async->getResults().back();
      std::optional<SmallVector<GPUBufferAccess>> own =
          getGPUHostOpAccesses(async);
      if (!own || (chainAccesses && chainAccesses->size() + own->size() >
                                        kMaxComparedChainAccesses))
        chainAccesses.reset();
      else if (chainAccesses)
        llvm::append_range(*chainAccesses, *own);
      ++madeAsynchronous;
      continue;
    }
    if (!chain || !mayNeedChain(op, chainAccesses))
      continue;
    OpBuilder builder(&op);
    gpu::WaitOp::create(builder, op.getLoc(), Type(), chain);
    chain = Value();
  }
  return madeAsynchronous;
}
