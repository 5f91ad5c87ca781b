//===- ExplicitAsyncWork.cpp - Host ops that run gpu work on tokens -*- C++ -*-===//

#include "vyre/Analysis/ExplicitAsyncWork.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::vyre;

bool vyre::isExplicitAsyncOp(Operation *op) {
  auto async = dyn_cast<gpu::AsyncOpInterface>(op);
  if (!async || op->getParentOfType<gpu::GPUModuleOp>())
    return false;
  if (async.getAsyncToken())
    return true;
  return isa<gpu::WaitOp>(op) && !async.getAsyncDependencies().empty();
}

bool vyre::isUsedByExplicitAsyncOp(Value buffer) {
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (isExplicitAsyncOp(user))
        return true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value)
        llvm::append_range(worklist, user->getResults());
    }
  }
  return false;
}

std::optional<SmallVector<Operation *>>
vyre::getOpsBeforeTokens(ValueRange tokens,
                         const SmallPtrSetImpl<Operation *> *done,
                         size_t limit) {
  SmallVector<Operation *> ops;
  SmallPtrSet<Operation *, 16> seen;
  SmallVector<Value> worklist(tokens.begin(), tokens.end());
  while (!worklist.empty()) {
    Value token = worklist.pop_back_val();
    auto async = token.getDefiningOp<gpu::AsyncOpInterface>();
    if (!async || async.getAsyncToken() != token)
      return std::nullopt;
    if ((done && done->contains(async)) || !seen.insert(async).second)
      continue;
    if (ops.size() == limit)
      return std::nullopt;
    ops.push_back(async);
    llvm::append_range(worklist, async.getAsyncDependencies());
  }
  return ops;
}

std::optional<SmallVector<GPUBufferAccess>>
vyre::getGPUHostOpAccesses(Operation *op) {
  if (op->getNumRegions() != 0)
    return std::nullopt;
  // A buffer reached some other way than as a memref: a sparse handle of
  // the gpu dialect, a pointer, an address taken from a memref.
  for (Value operand : op->getOperands()) {
    Type type = operand.getType();
    if ((isa<gpu::GPUDialect>(type.getDialect()) &&
         !isa<gpu::AsyncTokenType>(type)) ||
        isa<LLVM::LLVMPointerType>(type) ||
        operand.getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>() ||
        operand.getDefiningOp<LLVM::PtrToIntOp>())
      return std::nullopt;
  }
  SmallVector<GPUBufferAccess> accesses;
  auto effectOp = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effectOp) {
    auto append = [&](Value value) {
      if (!isa<BaseMemRefType>(value.getType()))
        return;
      accesses.push_back({value, /*isWrite=*/false});
      accesses.push_back({value, /*isWrite=*/true});
    };
    llvm::for_each(op->getOperands(), append);
    llvm::for_each(op->getResults(), append);
    return accesses;
  }
  SmallVector<MemoryEffects::EffectInstance> effects;
  effectOp.getEffects(effects);
  for (const MemoryEffects::EffectInstance &effect : effects) {
    Value value = effect.getValue();
    if (!value || !isa<BaseMemRefType>(value.getType()))
      return std::nullopt;
    accesses.push_back(
        {value, !isa<MemoryEffects::Read>(effect.getEffect())});
  }
  return accesses;
}

std::optional<SmallVector<GPUBufferAccess>>
vyre::getExplicitAsyncAccesses(Operation *op) {
  auto async = cast<gpu::AsyncOpInterface>(op);
  if (async.getAsyncToken())
    return getGPUHostOpAccesses(op);
  std::optional<SmallVector<Operation *>> before = getOpsBeforeTokens(
      async.getAsyncDependencies(), /*done=*/nullptr, kMaxFollowedExplicitOps);
  if (!before)
    return std::nullopt;
  SmallVector<GPUBufferAccess> accesses;
  for (Operation *each : *before) {
    std::optional<SmallVector<GPUBufferAccess>> own =
        getGPUHostOpAccesses(each);
    if (!own)
      return std::nullopt;
    llvm::append_range(accesses, *own);
  }
  return accesses;
}

/// Whether `root` is a buffer of its own: an allocation no other root can
/// name, or an argument marked `llvm.noalias`.
static bool isDistinctAllocation(Value root) {
  return root.getDefiningOp<gpu::AllocOp>() ||
         root.getDefiningOp<memref::AllocOp>() ||
         root.getDefiningOp<memref::AllocaOp>() ||
         root.getDefiningOp<AllocOp>() ||
         SlotAccessAnalysis::isNoAliasArgument(root);
}

/// Whether `root` names one buffer the analysis can tell apart: an
/// allocation, a global, or an argument of the function. A value chosen
/// among buffers (a select, a branch's or region's result, a block argument
/// of a later block, a call's result, a cast) may be any of them.
static bool isKnownRoot(Value root) {
  if (auto argument = dyn_cast<BlockArgument>(root))
    return argument.getOwner()->isEntryBlock() &&
           isa<FunctionOpInterface>(argument.getOwner()->getParentOp());
  return isDistinctAllocation(root) || root.getDefiningOp<memref::GetGlobalOp>();
}

/// Whether buffers with roots `lhs` and `rhs` may overlap.
static bool mayOverlap(Value lhs, Value rhs) {
  if (lhs == rhs || !isKnownRoot(lhs) || !isKnownRoot(rhs))
    return true;
  return !isDistinctAllocation(lhs) && !isDistinctAllocation(rhs);
}

bool vyre::mayBuffersConflict(ArrayRef<GPUBufferAccess> lhs,
                              ArrayRef<GPUBufferAccess> rhs) {
  for (const GPUBufferAccess &l : lhs)
    for (const GPUBufferAccess &r : rhs)
      if ((l.isWrite || r.isWrite) &&
          mayOverlap(SlotAccessAnalysis::resolveRoot(l.buffer),
                     SlotAccessAnalysis::resolveRoot(r.buffer)))
        return true;
  return false;
}
