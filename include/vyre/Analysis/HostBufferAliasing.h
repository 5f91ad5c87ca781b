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

namespace mlir::vyre {

/// Where a host buffer root comes from, which bounds what it may alias.
enum class HostBufferOrigin {
  /// The result of an op that allocates it (memref.alloc, ...): it aliases
  /// no other root.
  Allocation,
  /// An argument of the function: it may alias other arguments, unless one
  /// of them is `llvm.noalias`, and no allocation made inside the function.
  Argument,
  /// Anything else (a call result, a loaded memref, a loop-carried value):
  /// it may alias anything.
  Unknown,
};

/// Answers whether two host buffer roots may alias, from their origins and,
/// for two function arguments, from `mlir::AliasAnalysis`.
class HostBufferAliasing {
public:
  explicit HostBufferAliasing(Operation *function)
      : aliasAnalysis(function) {}

  static HostBufferOrigin getOrigin(Value root);
  bool mayAlias(Value lhs, Value rhs);

private:
  AliasAnalysis aliasAnalysis;
  DenseMap<std::pair<Value, Value>, bool> argumentPairs;
};

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_HOSTBUFFERALIASING_H
