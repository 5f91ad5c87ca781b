//===- DeviceCode.cpp - Where host code ends and device code starts -------===//

#include "vyre/Analysis/DeviceCode.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;

bool vyre::hasDeviceCodeRegions(Operation *op) {
  return isa<gpu::LaunchOp>(op);
}

SmallVector<Block *> vyre::getHostBlocks(Operation *function) {
  SmallVector<Block *> blocks;
  function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != function && hasDeviceCodeRegions(op))
      return WalkResult::skip();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        blocks.push_back(&block);
    return WalkResult::advance();
  });
  return blocks;
}

bool vyre::isDeviceOnlyMemory(Value value) {
  Value root = SlotAccessAnalysis::resolveRoot(value);
  if (root.getDefiningOp<AllocOp>())
    return true;
  if (auto alloc = root.getDefiningOp<gpu::AllocOp>())
    return !alloc.getHostShared();
  return false;
}

/// What an effect does, in words.
static StringRef describeEffect(MemoryEffects::Effect *effect) {
  if (isa<MemoryEffects::Read>(effect))
    return "reads";
  if (isa<MemoryEffects::Free>(effect))
    return "frees";
  return "writes";
}

LogicalResult vyre::diagnoseHostAccessToDeviceMemory(Operation *root) {
  bool found = false;
  root->walk<WalkOrder::PreOrder>(
      [&](Operation *op) {
        if (hasDeviceCodeRegions(op))
          return WalkResult::skip();
        if (isa<VyreDialect, gpu::GPUDialect>(op->getDialect()))
          return WalkResult::advance();
        auto effectOp = dyn_cast<MemoryEffectOpInterface>(op);
        if (!effectOp)
          return WalkResult::advance();
        SmallVector<MemoryEffects::EffectInstance> effects;
        effectOp.getEffects(effects);
        for (const MemoryEffects::EffectInstance &effect : effects) {
          Value value = effect.getValue();
          if (!value || !isa<BaseMemRefType>(value.getType()) ||
              isa<MemoryEffects::Allocate>(effect.getEffect()) ||
              !isDeviceOnlyMemory(value))
            continue;
          bool isVyre = static_cast<bool>(
              SlotAccessAnalysis::resolveRoot(value).getDefiningOp<AllocOp>());
          op->emitOpError()
              << describeEffect(effect.getEffect())
              << " device memory on the host: the buffer is "
              << (isVyre ? "a vyre.alloc buffer"
                         : "a gpu.alloc buffer, not host_shared,")
              << " which only kernels and copies may touch (copy it to a host "
                 "buffer first)";
          found = true;
          break;
        }
        return WalkResult::advance();
      });
  return failure(found);
}

LogicalResult vyre::diagnoseVyreOpsInDeviceCode(Operation *root) {
  bool found = false;
  root->walk([&](Operation *launch) {
    if (!hasDeviceCodeRegions(launch))
      return;
    launch->walk([&](Operation *op) {
      if (!isa<VyreDialect>(op->getDialect()))
        return;
      op->emitOpError("is in device code (the body of a '")
          << launch->getName()
          << "'): vyre ops are host code that drives the device";
      found = true;
    });
  });
  return failure(found);
}
