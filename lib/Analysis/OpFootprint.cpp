//===- OpFootprint.cpp - What an op may touch -------------------*- C++ -*-===//

#include "vyre/Analysis/OpFootprint.h"

#include "vyre/Analysis/ExplicitAsyncWork.h"
#include "vyre/Analysis/FunctionEffects.h"
#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/HostEffects.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;

void SideAccess::merge(const SideAccess &other) {
  slots.merge(other.slots);
  hostWrites.insert(other.hostWrites.begin(), other.hostWrites.end());
  anyHostWrite |= other.anyHostWrite;
  hostReads.insert(other.hostReads.begin(), other.hostReads.end());
  anyHostRead |= other.anyHostRead;
}

void OpFootprint::merge(const OpFootprint &other) {
  device.merge(other.device);
  host.merge(other.host);
  unknown |= other.unknown;
  numKernels += other.numKernels;
}

/// Adds a host-side access through `buffer` to `side`: a host access, and an
/// access to each slot the root may be (device work that reads an argument
/// records no host read of it).
static void addBufferAccess(SideAccess &side, Value buffer, bool isWrite,
                            const SlotAccessAnalysis &slots) {
  Value root = SlotAccessAnalysis::resolveRoot(buffer);
  if (isWrite)
    side.hostWrites.insert(root);
  else
    side.hostReads.insert(root);
  for (unsigned slot : HostBufferAliasing::getSlotsOf(root, slots)) {
    if (isWrite)
      side.slots.addWrite(slot);
    else
      side.slots.addRead(slot);
  }
}

/// Adds a device-side access through `buffer`. A function argument may be a
/// slot and host memory at once, so an access to an argument is a slot access
/// and, if a write, a host write too. A root that is not a slot is host memory
/// where the op says the buffer is host memory (and the slots it may be, as
/// for a host access), and may be any slot where it says device memory.
static void addDeviceAccess(SideAccess &device, const BufferAccess &access,
                            const SlotAccessAnalysis &slots) {
  Value root = SlotAccessAnalysis::resolveRoot(access.buffer);
  bool isWrite = access.isWrite();
  if (!slots.getSlotNumber(root)) {
    if (access.space == BufferSpace::Device)
      device.slots.merge(AccessSummary::unknown());
    else
      addBufferAccess(device, root, isWrite, slots);
    return;
  }
  for (unsigned slot : slots.getSlotsOf(root)) {
    if (isWrite)
      device.slots.addWrite(slot);
    else
      device.slots.addRead(slot);
  }
  if (isWrite && isa<BlockArgument>(root))
    device.hostWrites.insert(root);
}

/// The footprint of a kernel launch, from its summary. A function argument
/// may be host memory too (unified memory, or an argument that aliases a host
/// buffer): a kernel writing it writes that host buffer.
static OpFootprint computeLaunchFootprint(Operation *launch,
                                          const SlotAccessAnalysis &slots) {
  OpFootprint footprint;
  const AccessSummary &summary = slots.getSummary(launch);
  footprint.device.slots.merge(summary);
  footprint.numKernels = 1;
  if (summary.isUnknown()) {
    footprint.device.anyHostWrite = true;
    return footprint;
  }
  for (unsigned slot : summary.getWrites())
    if (Value root = slots.getSlots()[slot]; root && isa<BlockArgument>(root))
      footprint.device.hostWrites.insert(root);
  return footprint;
}

/// The footprint of a stream op, from what it says it accesses.
static OpFootprint computeStreamOpFootprint(StreamOpInterface op,
                                            const SlotAccessAnalysis &slots) {
  if (op.getLaunchedKernel())
    return computeLaunchFootprint(op, slots);
  OpFootprint footprint;
  SmallVector<BufferAccess, 8> accesses;
  op.getBufferAccesses(accesses);
  for (const BufferAccess &access : accesses) {
    if (access.effect != BufferEffect::Allocate) {
      addDeviceAccess(footprint.device, access, slots);
      continue;
    }
    // An allocation on the stream comes before any op that names the buffer;
    // an explicit async op, issued by the host, must wait for it as it would
    // for a write.
    if (isUsedByExplicitAsyncOp(access.buffer)) {
      BufferAccess write = access;
      write.effect = BufferEffect::Write;
      addDeviceAccess(footprint.device, write, slots);
    }
  }
  return footprint;
}

/// The footprint of a call, from its callee's `vyre.effects`: nothing, its
/// memref operands read and written, or anything.
static OpFootprint computeCallFootprint(CallOpInterface call,
                                        const SlotAccessAnalysis &slots) {
  OpFootprint footprint;
  std::optional<FunctionEffects> effects = getCalleeEffects(call);
  if (!effects) {
    footprint.unknown = true;
    return footprint;
  }
  if (*effects == FunctionEffects::Arguments)
    for (Value operand : call.getArgOperands())
      if (isa<BaseMemRefType>(operand.getType())) {
        addBufferAccess(footprint.host, operand, /*isWrite=*/false, slots);
        addBufferAccess(footprint.host, operand, /*isWrite=*/true, slots);
      }
  return footprint;
}

/// The footprint of a non-vyre op without regions, from its declared memory
/// effects.
static OpFootprint computeHostOpFootprint(Operation *op,
                                         const SlotAccessAnalysis &slots) {
  if (auto call = dyn_cast<CallOpInterface>(op))
    return computeCallFootprint(call, slots);
  OpFootprint footprint;
  auto effectOp = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effectOp || isa<CallOpInterface>(op)) {
    footprint.unknown = true;
    return footprint;
  }
  SmallVector<MemoryEffects::EffectInstance> effects;
  effectOp.getEffects(effects);
  for (const MemoryEffects::EffectInstance &effect : effects) {
    bool isRead = isa<MemoryEffects::Read>(effect.getEffect());
    bool isAllocate = isa<MemoryEffects::Allocate>(effect.getEffect());
    Value value = effect.getValue();
    if (isAllocate)
      continue;
    if (!value) {
      // Stack allocation scopes are private to the op; any other write to an
      // unnamed location may be a write to anything, and a read of one may
      // read any host buffer.
      bool scope = isa<SideEffects::AutomaticAllocationScopeResource>(
          effect.getResource());
      if (!isRead && !scope)
        footprint.unknown = true;
      else if (isRead && !scope)
        footprint.host.anyHostRead = true;
      continue;
    }
    // An access through a pointer or another non-memref value (an address
    // taken with memref.extract_aligned_pointer_as_index, say) may reach any
    // buffer.
    if (!isa<BaseMemRefType>(value.getType())) {
      footprint.unknown = true;
      continue;
    }
    addBufferAccess(footprint.host, value, /*isWrite=*/!isRead, slots);
  }
  return footprint;
}

/// The footprint of `op` itself, not counting ops nested in its regions.
static OpFootprint computeOwnFootprint(Operation *op,
                                       const SlotAccessAnalysis &slots) {
  if (auto streamOp = dyn_cast<StreamOpInterface>(op))
    return computeStreamOpFootprint(streamOp, slots);
  // Pinning a host buffer declares no effects; keep it ordered against the
  // buffer's other uses as if it wrote it.
  // (An argument may be a slot too: the write is to that slot as well.)
  if (isa<gpu::HostRegisterOp, gpu::HostUnregisterOp>(op)) {
    OpFootprint footprint;
    addBufferAccess(footprint.host, op->getOperand(0), /*isWrite=*/true,
                    slots);
    return footprint;
  }
  // A gpu op written with tokens, left as written in an imported function:
  // the host reaches the buffers its work names when it issues it, and when
  // it waits for it.
  if (isExplicitAsyncOp(op)) {
    OpFootprint footprint;
    std::optional<SmallVector<GPUBufferAccess>> accesses =
        getExplicitAsyncAccesses(op);
    if (!accesses) {
      footprint.unknown = true;
      return footprint;
    }
    for (const GPUBufferAccess &access : *accesses)
      addBufferAccess(footprint.host, access.buffer, access.isWrite, slots);
    return footprint;
  }
  // Ops with regions are judged by what is inside them, as long as their own
  // effects are those of their bodies.
  if (hasEffectsOfItsBody(op))
    return OpFootprint();
  return computeHostOpFootprint(op, slots);
}

OpFootprint mlir::vyre::computeOpFootprint(Operation *op,
                                           const SlotAccessAnalysis &slots) {
  OpFootprint footprint = computeOwnFootprint(op, slots);
  if (op->getNumRegions() == 0)
    return footprint;
  op->walk([&](Operation *nested) {
    if (nested != op)
      footprint.merge(computeOwnFootprint(nested, slots));
  });
  return footprint;
}

OpFootprint OpFootprintCache::get(Operation *op) {
  ++steps;
  if (op->getNumRegions() == 0)
    return computeOwnFootprint(op, slots);
  return getWithRegions(op);
}

const OpFootprint &OpFootprintCache::getWithRegions(Operation *op) {
  if (auto known = withRegions.find(op); known != withRegions.end())
    return *known->second;
  auto footprint = std::make_unique<OpFootprint>(computeOwnFootprint(op, slots));
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block) {
        ++steps;
        if (nested.getNumRegions() == 0)
          footprint->merge(computeOwnFootprint(&nested, slots));
        else
          footprint->merge(getWithRegions(&nested));
      }
  return *(withRegions[op] = std::move(footprint));
}

/// Whether a root of `lhs` and one of `rhs` may be the same host buffer.
static bool rootsMayOverlap(const llvm::SetVector<Value> &lhs,
                            const llvm::SetVector<Value> &rhs,
                            HostBufferAliasing &aliasing) {
  for (Value a : lhs)
    for (Value b : rhs)
      if (a == b || aliasing.mayAlias(a, b))
        return true;
  return false;
}

/// Whether a slot one of `small` and `large` writes, the other may access:
/// looked up slot by slot from the smaller one, so that checking an op
/// against what many ops touch (all the loops left running, say) costs the
/// op's slots, not theirs.
static bool slotsMayConflict(const AccessSummary &small,
                             const AccessSummary &large) {
  for (unsigned slot : small.getWrites())
    if (large.mayAccess(slot))
      return true;
  for (unsigned slot : small.getReads())
    if (large.mayWrite(slot))
      return true;
  return false;
}

static size_t numSlots(const AccessSummary &summary) {
  return summary.getReads().size() + summary.getWrites().size();
}

bool vyre::sidesMayConflict(const SideAccess &lhs, const SideAccess &rhs,
                            HostBufferAliasing &aliasing) {
  if (lhs.slots.isUnknown() || rhs.slots.isUnknown()) {
    if (!lhs.slots.isEmpty() && !rhs.slots.isEmpty())
      return true;
  } else if (numSlots(lhs.slots) <= numSlots(rhs.slots)
                 ? slotsMayConflict(lhs.slots, rhs.slots)
                 : slotsMayConflict(rhs.slots, lhs.slots)) {
    return true;
  }
  if ((lhs.anyHostWrite && (rhs.mayReadHost() || rhs.mayWriteHost())) ||
      (rhs.anyHostWrite && (lhs.mayReadHost() || lhs.mayWriteHost())) ||
      (lhs.anyHostRead && rhs.mayWriteHost()) ||
      (rhs.anyHostRead && lhs.mayWriteHost()))
    return true;
  return rootsMayOverlap(lhs.hostWrites, rhs.hostWrites, aliasing) ||
         rootsMayOverlap(lhs.hostWrites, rhs.hostReads, aliasing) ||
         rootsMayOverlap(lhs.hostReads, rhs.hostWrites, aliasing);
}
