//===- HostEffects.cpp - What a host op and its regions touch ---*- C++ -*-===//

#include "vyre/Analysis/HostEffects.h"

#include "vyre/Analysis/ExplicitAsyncWork.h"
#include "vyre/Analysis/FunctionEffects.h"

#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;

bool vyre::hasEffectsOfItsBody(Operation *op) {
  return op->getNumRegions() != 0 &&
         op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
         !isa<CallOpInterface>(op);
}

/// The effects of a call, from its callee's `vyre.effects`.
static std::optional<SmallVector<MemoryEffects::EffectInstance>>
collectCallEffects(CallOpInterface call) {
  std::optional<FunctionEffects> callee = getCalleeEffects(call);
  if (!callee)
    return std::nullopt;
  SmallVector<MemoryEffects::EffectInstance> effects;
  if (*callee == FunctionEffects::Arguments)
    for (OpOperand &operand : call->getOpOperands())
      if (isa<BaseMemRefType>(operand.get().getType())) {
        effects.emplace_back(MemoryEffects::Read::get(), &operand);
        effects.emplace_back(MemoryEffects::Write::get(), &operand);
      }
  return effects;
}

std::optional<SmallVector<MemoryEffects::EffectInstance>>
vyre::collectHostEffects(Operation *op) {
  if (auto call = dyn_cast<CallOpInterface>(op))
    return collectCallEffects(call);
  if (isExplicitAsyncOp(op)) {
    std::optional<SmallVector<GPUBufferAccess>> accesses =
        getExplicitAsyncAccesses(op);
    if (!accesses)
      return std::nullopt;
    SmallVector<MemoryEffects::EffectInstance> effects;
    for (const GPUBufferAccess &access : *accesses) {
      MemoryEffects::Effect *effect =
          access.isWrite
              ? static_cast<MemoryEffects::Effect *>(MemoryEffects::Write::get())
              : MemoryEffects::Read::get();
      if (auto result = dyn_cast<OpResult>(access.buffer))
        effects.emplace_back(effect, result);
      else
        effects.emplace_back(effect, cast<BlockArgument>(access.buffer));
    }
    return effects;
  }
  if (!hasEffectsOfItsBody(op))
    return getEffectsRecursively(op);
  SmallVector<MemoryEffects::EffectInstance> effects;
  if (auto effectOp = dyn_cast<MemoryEffectOpInterface>(op))
    effectOp.getEffects(effects);
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps()) {
      std::optional<SmallVector<MemoryEffects::EffectInstance>> inner =
          collectHostEffects(&nested);
      if (!inner)
        return std::nullopt;
      llvm::append_range(effects, *inner);
    }
  return effects;
}
