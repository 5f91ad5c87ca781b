//===- HostBufferAliasing.h - Which host buffers may alias ------*- C++ -*-===//
//
// Classifies host buffer roots and answers, with a cache, whether two of them
// may refer to overlapping memory.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_HOSTBUFFERALIASING_H
#define VYRE_ANALYSIS_HOSTBUFFERALIASING_H

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::vyre {

class SlotAccessAnalysis;

/// Where a host buffer root comes from, which bounds what it may alias.
enum class HostBufferOrigin {
  /// The result of an op that allocates it (memref.alloc, ...): it aliases
  /// no other root.
  Allocation,
  /// An argument of the function: it may alias other arguments, unless one
  /// of them is `llvm.noalias`, and no allocation made inside the function.
  Argument,
  /// An `arith.select` among arguments (through views and further selects):
  /// it is one of them, and may alias what any of them may
  /// (getArgumentsBehind).
  ArgumentChoice,
  /// Anything else (a call result, a loaded memref, a loop-carried value,
  /// a select that may take an allocation): it may alias anything.
  Unknown,
};

/// Answers whether two host buffer roots may alias, from their origins and,
/// for two function arguments, from `mlir::AliasAnalysis`.
class HostBufferAliasing {
public:
  explicit HostBufferAliasing(Operation *function)
      : aliasAnalysis(function) {}

  static HostBufferOrigin getOrigin(Value root);

  /// The function arguments `root` is one of: itself for an argument, the
  /// arguments an `arith.select` (of selects, through views) chooses among;
  /// none where it may be anything else. `rootOf` finds the
  /// buffer behind a view (by default SlotAccessAnalysis::resolveRoot; the
  /// gpu-level referee follows the lowering's aliases too).
  static std::optional<SmallVector<Value, 2>>
  getArgumentsBehind(Value root, function_ref<Value(Value)> rootOf = nullptr);

  /// The slots host buffer `root` may be (a memref function argument may be
  /// a host buffer and a device buffer at once): a slot root, its slots
  /// (those of the arguments that may alias it too); a host allocation,
  /// none; a select among arguments, those of the arguments that are slots;
  /// a root that may be anything (a loaded memref, a call's result), every
  /// slot.
  static SmallVector<unsigned> getSlotsOf(Value root,
                                          const SlotAccessAnalysis &slots);

  bool mayAlias(Value lhs, Value rhs);

private:
  bool mayAliasArguments(Value lhs, Value rhs);

  AliasAnalysis aliasAnalysis;
  DenseMap<std::pair<Value, Value>, bool> argumentPairs;
  /// Pairs of which at least one is a select among arguments.
  DenseMap<std::pair<Value, Value>, bool> choicePairs;
};

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_HOSTBUFFERALIASING_H
