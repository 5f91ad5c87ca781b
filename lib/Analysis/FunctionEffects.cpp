//===- FunctionEffects.cpp - What a call may touch ---------------*- C++ -*-===//

#include "vyre/Analysis/FunctionEffects.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Dialect/Vyre/IR/VyreInterfaces.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;

StringRef vyre::stringifyFunctionEffects(FunctionEffects effects) {
  return effects == FunctionEffects::None ? "none" : "arguments";
}

std::optional<FunctionEffects> vyre::getDeclaredEffects(Operation *function) {
  auto effects = function->getAttrOfType<StringAttr>(
      VyreDialect::getFunctionEffectsAttrName());
  if (!effects)
    return std::nullopt;
  if (effects.getValue() == "none")
    return FunctionEffects::None;
  if (effects.getValue() == "arguments")
    return FunctionEffects::Arguments;
  return std::nullopt;
}

std::optional<FunctionEffects> vyre::getCalleeEffects(CallOpInterface call) {
  auto symbol = dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
  if (!symbol)
    return std::nullopt;
  Operation *callee = SymbolTable::lookupNearestSymbolFrom(call, symbol);
  if (!callee)
    return std::nullopt;
  return getDeclaredEffects(callee);
}

namespace {

/// Accumulates what a body touches.
class BodySummary {
public:
  explicit BodySummary(FunctionOpInterface function) : function(function) {}

  /// Records an access through `buffer`; false if it may reach memory other
  /// than the arguments and the function's own allocations.
  bool access(Value buffer) {
    if (!isa<BaseMemRefType>(buffer.getType()))
      return false;
    Value root = SlotAccessAnalysis::resolveRoot(buffer);
    if (auto argument = dyn_cast<BlockArgument>(root)) {
      if (argument.getOwner()->getParentOp() != function.getOperation() ||
          !argument.getOwner()->isEntryBlock())
        return false;
      touchesArguments = true;
      return true;
    }
    // An allocation inside the function: memory the caller cannot see.
    auto allocator = dyn_cast_or_null<MemoryEffectOpInterface>(
        root.getDefiningOp());
    return allocator &&
           allocator.getEffectOnValue<MemoryEffects::Allocate>(root)
               .has_value();
  }

  /// Records the effects `op` declares; false if it declares none, or one
  /// on memory that is not a buffer.
  bool accessDeclared(Operation *op) {
    auto effectOp = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effectOp)
      return false;
    SmallVector<MemoryEffects::EffectInstance> effects;
    effectOp.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value) {
        if (!isa<SideEffects::AutomaticAllocationScopeResource>(
                effect.getResource()))
          return false;
        continue;
      }
      if (!access(value))
        return false;
    }
    return true;
  }

  bool touchesArguments = false;

private:
  FunctionOpInterface function;
};

} // namespace

std::optional<FunctionEffects> vyre::summarizeFunctionBody(
    FunctionOpInterface function,
    llvm::function_ref<std::optional<FunctionEffects>(CallOpInterface)>
        calleeEffects) {
  if (function.isExternal())
    return getDeclaredEffects(function);
  BodySummary summary(function);
  WalkResult result = function.getFunctionBody().walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::IsTerminator>() && op->getNumOperands() == 0)
      return WalkResult::advance();
    if (auto call = dyn_cast<CallOpInterface>(op)) {
      std::optional<FunctionEffects> effects = calleeEffects(call);
      if (!effects)
        return WalkResult::interrupt();
      if (*effects == FunctionEffects::Arguments)
        for (Value operand : call.getArgOperands())
          if (isa<BaseMemRefType>(operand.getType()) &&
              !summary.access(operand))
            return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (auto streamOp = dyn_cast<StreamOpInterface>(op)) {
      SmallVector<BufferAccess, 8> accesses;
      streamOp.getBufferAccesses(accesses);
      for (const BufferAccess &access : accesses)
        if (access.effect != BufferEffect::Allocate &&
            !summary.access(access.buffer))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    // Region ops whose effects are their bodies': the walk visits those.
    if (op->getNumRegions() != 0 &&
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    // A function's return hands values back: nothing is touched.
    if (op->hasTrait<OpTrait::ReturnLike>())
      return WalkResult::advance();
    return summary.accessDeclared(op) ? WalkResult::advance()
                                      : WalkResult::interrupt();
  });
  if (result.wasInterrupted())
    return std::nullopt;
  return summary.touchesArguments ? FunctionEffects::Arguments
                                  : FunctionEffects::None;
}
