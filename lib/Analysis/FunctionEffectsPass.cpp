//===- FunctionEffectsPass.cpp - What each host function touches -*- C++ -*-===//
//
// --vyre-function-effects: records on each host function with a body what a
// call to it may touch (`vyre.effects`), callees first; a call in a cycle of
// calls is of unknown effect.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/Passes.h"

#include "vyre/Analysis/KernelSymbols.h"

#include "vyre/Analysis/FunctionEffects.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_FUNCTIONEFFECTSPASS
#include "vyre/Analysis/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

class FunctionEffectsSummarizer {
public:
  FunctionEffectsSummarizer() = default;

  /// The effects of `function`, computed once; none while it is being
  /// computed (a cycle of calls).
  std::optional<FunctionEffects> effectsOf(func::FuncOp function) {
    auto [found, inserted] = memo.try_emplace(function, std::nullopt);
    if (!inserted)
      return found->second;
    std::optional<FunctionEffects> effects = summarizeFunctionBody(
        function, [&](CallOpInterface call) -> std::optional<FunctionEffects> {
          auto symbol =
              dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
          auto callee = symbol ? symbols.lookupNearestSymbolFrom<func::FuncOp>(
                                     call, symbol)
                               : func::FuncOp();
          if (!callee)
            return std::nullopt;
          return effectsOf(callee);
        });
    memo[function] = effects;
    return effects;
  }

private:
  SymbolTableCollection symbols;
  DenseMap<Operation *, std::optional<FunctionEffects>> memo;
};

struct FunctionEffectsPass
    : public vyre::impl::FunctionEffectsPassBase<FunctionEffectsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FunctionEffectsSummarizer summarizer;
    bool changed = false;
    StringAttr name = StringAttr::get(
        &getContext(), VyreDialect::getFunctionEffectsAttrName());
    module.walk([&](func::FuncOp function) {
      if (function.isExternal() ||
          function->getParentOfType<gpu::GPUModuleOp>())
        return;
      std::optional<FunctionEffects> effects = summarizer.effectsOf(function);
      Attribute value =
          effects ? StringAttr::get(&getContext(),
                                    stringifyFunctionEffects(*effects))
                  : Attribute();
      if (function->getAttr(name) == value)
        return;
      changed = true;
      if (value)
        function->setAttr(name, value);
      else
        function->removeAttr(name);
    });
    // It renames no symbol: the function passes after it may share the
    // module's kernels by symbol.
    getAnalysis<KernelSymbols>();
    if (!changed)
      return markAllAnalysesPreserved();
    markAnalysesPreserved<KernelSymbols>();
  }
};

} // namespace
