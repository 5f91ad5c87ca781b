//===- HostBufferAliasing.cpp - Which host buffers may alias ----*- C++ -*-===//

#include "vyre/Analysis/HostBufferAliasing.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;

HostBufferOrigin HostBufferAliasing::getOrigin(Value root) {
  if (auto argument = dyn_cast<BlockArgument>(root)) {
    Block *owner = argument.getOwner();
    if (owner->isEntryBlock() &&
        isa_and_nonnull<FunctionOpInterface>(owner->getParentOp()))
      return HostBufferOrigin::Argument;
    return HostBufferOrigin::Unknown;
  }
  auto effects = root.getDefiningOp<MemoryEffectOpInterface>();
  if (effects && effects.getEffectOnValue<MemoryEffects::Allocate>(root))
    return HostBufferOrigin::Allocation;
  return HostBufferOrigin::Unknown;
}

bool HostBufferAliasing::mayAlias(Value lhs, Value rhs) {
  if (lhs == rhs)
    return true;
  HostBufferOrigin lhsOrigin = getOrigin(lhs), rhsOrigin = getOrigin(rhs);
  if (lhsOrigin == HostBufferOrigin::Unknown ||
      rhsOrigin == HostBufferOrigin::Unknown)
    return true;
  if (lhsOrigin == HostBufferOrigin::Allocation ||
      rhsOrigin == HostBufferOrigin::Allocation)
    return false;
  if (lhs.getAsOpaquePointer() > rhs.getAsOpaquePointer())
    std::swap(lhs, rhs);
  auto [it, inserted] = argumentPairs.try_emplace({lhs, rhs}, false);
  if (inserted)
    it->second = !SlotAccessAnalysis::isNoAliasArgument(lhs) &&
                 !SlotAccessAnalysis::isNoAliasArgument(rhs) &&
                 !aliasAnalysis.alias(lhs, rhs).isNo();
  return it->second;
}
