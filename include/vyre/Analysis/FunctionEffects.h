//===- FunctionEffects.h - What a call may touch ----------------*- C++ -*-===//
//
// A function's `vyre.effects` attribute says what a call to it may touch:
// "none" (no memory the caller can see) or "arguments" (only memory reachable
// through its memref arguments, host or device, with its device work done
// before it returns). Without the attribute, a call may touch anything.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_FUNCTIONEFFECTS_H
#define VYRE_ANALYSIS_FUNCTIONEFFECTS_H

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir::vyre {

enum class FunctionEffects {
  /// Touches no memory its caller can see.
  None,
  /// Touches only memory reachable through its memref arguments.
  Arguments,
};

/// The effects `function` declares, if it carries `vyre.effects`.
std::optional<FunctionEffects> getDeclaredEffects(Operation *function);

/// The effects of the function `call` calls, if it is a symbol of the
/// enclosing module that carries `vyre.effects`.
std::optional<FunctionEffects> getCalleeEffects(CallOpInterface call);

/// The effects of `function`'s body: what its ops touch, where a call takes
/// what `calleeEffects` says of its callee. None if the body may touch
/// memory other than its arguments and its own allocations (a global, a
/// pointer, an op of unknown effect, a call of unknown effect).
std::optional<FunctionEffects> summarizeFunctionBody(
    FunctionOpInterface function,
    llvm::function_ref<std::optional<FunctionEffects>(CallOpInterface)>
        calleeEffects);

/// The attribute value that spells `effects`.
llvm::StringRef stringifyFunctionEffects(FunctionEffects effects);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_FUNCTIONEFFECTS_H
