//===- HostBufferAliasing.cpp - Which host buffers may alias ----*- C++ -*-===//

#include "vyre/Analysis/HostBufferAliasing.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;

/// Whether `value` is an argument of the function it is in.
static bool isFunctionArgument(Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument)
    return false;
  Block *owner = argument.getOwner();
  return owner->isEntryBlock() &&
         isa_and_nonnull<FunctionOpInterface>(owner->getParentOp());
}

HostBufferOrigin HostBufferAliasing::getOrigin(Value root) {
  if (isa<BlockArgument>(root))
    return isFunctionArgument(root) ? HostBufferOrigin::Argument
                                    : HostBufferOrigin::Unknown;
  auto effects = root.getDefiningOp<MemoryEffectOpInterface>();
  if (effects && effects.getEffectOnValue<MemoryEffects::Allocate>(root))
    return HostBufferOrigin::Allocation;
  if (root.getDefiningOp<arith::SelectOp>() && getArgumentsBehind(root))
    return HostBufferOrigin::ArgumentChoice;
  return HostBufferOrigin::Unknown;
}

std::optional<SmallVector<Value, 2>>
HostBufferAliasing::getArgumentsBehind(Value root,
                                       function_ref<Value(Value)> rootOf) {
  // A select of selects is read through; a long chain is taken as anything.
  constexpr unsigned kMostValues = 16;
  SmallVector<Value, 2> arguments;
  SmallVector<Value> work{root};
  for (unsigned visited = 0; !work.empty(); ++visited) {
    if (visited == kMostValues)
      return std::nullopt;
    Value value = rootOf ? rootOf(work.pop_back_val())
                         : SlotAccessAnalysis::resolveRoot(work.pop_back_val());
    if (isFunctionArgument(value)) {
      if (!llvm::is_contained(arguments, value))
        arguments.push_back(value);
      continue;
    }
    auto select = value.getDefiningOp<arith::SelectOp>();
    if (!select)
      return std::nullopt;
    work.push_back(select.getTrueValue());
    work.push_back(select.getFalseValue());
  }
  return arguments;
}

SmallVector<unsigned>
HostBufferAliasing::getSlotsOf(Value root, const SlotAccessAnalysis &slots) {
  if (slots.getSlotNumber(root))
    return slots.getSlotsOf(root);
  switch (getOrigin(root)) {
  case HostBufferOrigin::Allocation:
  case HostBufferOrigin::Argument:
    return {};
  case HostBufferOrigin::ArgumentChoice: {
    SmallVector<unsigned> result;
    SmallVector<Value, 2> arguments = *getArgumentsBehind(root);
    for (Value argument : arguments)
      if (slots.getSlotNumber(argument))
        llvm::append_range(result, slots.getSlotsOf(argument));
    llvm::sort(result);
    result.erase(llvm::unique(result), result.end());
    return result;
  }
  case HostBufferOrigin::Unknown:
    break;
  }
  return slots.getSlotsOf(root);
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
  if (lhsOrigin == HostBufferOrigin::Argument &&
      rhsOrigin == HostBufferOrigin::Argument)
    return mayAliasArguments(lhs, rhs);
  // Any argument one may be against any the other may be.
  if (lhs.getAsOpaquePointer() > rhs.getAsOpaquePointer())
    std::swap(lhs, rhs);
  auto [it, inserted] = choicePairs.try_emplace({lhs, rhs}, false);
  if (!inserted)
    return it->second;
  SmallVector<Value, 2> lhsArguments = *getArgumentsBehind(lhs),
                        rhsArguments = *getArgumentsBehind(rhs);
  bool result = llvm::any_of(lhsArguments, [&](Value lhsArgument) {
    return llvm::any_of(rhsArguments, [&](Value rhsArgument) {
      return mayAliasArguments(lhsArgument, rhsArgument);
    });
  });
  it->second = result;
  return result;
}

bool HostBufferAliasing::mayAliasArguments(Value lhs, Value rhs) {
  if (lhs == rhs)
    return true;
  if (lhs.getAsOpaquePointer() > rhs.getAsOpaquePointer())
    std::swap(lhs, rhs);
  auto [it, inserted] = argumentPairs.try_emplace({lhs, rhs}, false);
  if (inserted)
    it->second = !SlotAccessAnalysis::isNoAliasArgument(lhs) &&
                 !SlotAccessAnalysis::isNoAliasArgument(rhs) &&
                 !aliasAnalysis.alias(lhs, rhs).isNo();
  return it->second;
}
