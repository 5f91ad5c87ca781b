//===- WaitsForExplicitWork.cpp - Synchronous ops after explicit work -*- C++ -*-===//

#include "WaitsForExplicitWork.h"

#include "vyre/Analysis/ExplicitAsyncWork.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::vyre;

/// How many explicit ops in flight a synchronous op is compared with, at
/// most.
static constexpr size_t kMaxComparedInFlight = 64;

/// Whether `op` runs work the host waits for, as written: an op
/// `isSynchronous` accepts, or a call (its callee may hold such ops).
static bool runsSynchronousWork(Operation *op,
                                function_ref<bool(Operation *)> isSynchronous) {
  return isSynchronous(op) || isa<CallOpInterface>(op);
}

/// What the ops `isSynchronous` accepts and the calls in `op` (itself or
/// nested) touch (a call: a read and a write of each memref it passes);
/// none if unknown.
static std::optional<SmallVector<GPUBufferAccess>>
synchronousAccesses(Operation *op,
                    function_ref<bool(Operation *)> isSynchronous) {
  SmallVector<GPUBufferAccess> accesses;
  WalkResult walk = op->walk([&](Operation *nested) {
    if (!runsSynchronousWork(nested, isSynchronous))
      return WalkResult::advance();
    std::optional<SmallVector<GPUBufferAccess>> own =
        getGPUHostOpAccesses(nested);
    if (!own)
      return WalkResult::interrupt();
    llvm::append_range(accesses, *own);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return accesses;
}

/// Drops from `tokens` each token another one comes after (`done`: work
/// known finished, not followed).
static void dropCoveredTokens(SmallVectorImpl<Value> &tokens,
                              const SmallPtrSetImpl<Operation *> &done) {
  SmallVector<Value> dependencies;
  for (Value token : tokens)
    llvm::append_range(dependencies,
                       cast<gpu::AsyncOpInterface>(token.getDefiningOp())
                           .getAsyncDependencies());
  std::optional<SmallVector<Operation *>> covered =
      getOpsBeforeTokens(dependencies, &done);
  if (!covered)
    return;
  llvm::SmallPtrSet<Operation *, 16> coveredSet(covered->begin(),
                                                covered->end());
  llvm::erase_if(tokens, [&](Value token) {
    return coveredSet.contains(token.getDefiningOp());
  });
}

unsigned mlir::vyre::waitForExplicitWorkBeforeSynchronousOps(
    Block &top, function_ref<bool(Operation *)> isSynchronous) {
  SmallVector<Operation *> inFlight;
  // Explicit work the host has waited for: never followed again, so each
  // op is visited once over the block.
  llvm::SmallPtrSet<Operation *, 32> done;
  auto retire = [&](ValueRange tokens) {
    std::optional<SmallVector<Operation *>> finished =
        getOpsBeforeTokens(tokens, &done);
    if (!finished)
      return;
    done.insert(finished->begin(), finished->end());
    llvm::erase_if(inFlight, [&](Operation *op) { return done.contains(op); });
  };
  unsigned waits = 0;
  for (Operation &op : llvm::make_early_inc_range(top)) {
    if (auto wait = dyn_cast<gpu::WaitOp>(op); wait && !wait.getAsyncToken()) {
      retire(wait.getAsyncDependencies());
      continue;
    }
    if (auto async = dyn_cast<gpu::AsyncOpInterface>(op);
        async && async.getAsyncToken()) {
      inFlight.push_back(&op);
      continue;
    }
    if (inFlight.empty())
      continue;
    bool holdsSynchronous = false;
    op.walk([&](Operation *nested) {
      holdsSynchronous |= runsSynchronousWork(nested, isSynchronous);
    });
    if (!holdsSynchronous)
      continue;
    // Past a bound on the work in flight, wait for all of it rather than
    // compare each op with it: the cost stays linear in the function.
    std::optional<SmallVector<GPUBufferAccess>> synchronous;
    if (inFlight.size() <= kMaxComparedInFlight)
      synchronous = synchronousAccesses(&op, isSynchronous);
    SmallVector<Value> tokens;
    for (Operation *explicitOp : inFlight) {
      std::optional<SmallVector<GPUBufferAccess>> accesses;
      if (synchronous)
        accesses = getExplicitAsyncAccesses(explicitOp);
      if (!synchronous || !accesses || mayBuffersConflict(*synchronous, *accesses))
        tokens.push_back(
            cast<gpu::AsyncOpInterface>(explicitOp).getAsyncToken());
    }
    if (tokens.empty())
      continue;
    dropCoveredTokens(tokens, done);
    if (tokens.size() == 1)
      tokens.push_back(tokens.front());
    OpBuilder builder(&op);
    auto join = gpu::WaitOp::create(
        builder, op.getLoc(), builder.getType<gpu::AsyncTokenType>(), tokens);
    join->setAttr(VyreDialect::getHostWaitJoinAttrName(),
                  builder.getUnitAttr());
    gpu::WaitOp::create(builder, op.getLoc(), Type(), join.getAsyncToken());
    ++waits;
    retire(tokens);
  }
  return waits;
}
