//===- CallArgumentAliasing.h - Distinct buffers at calls -------*- C++ -*-===//
//
// The facts behind marking a function's memref arguments `llvm.noalias`
// without annotations, as LLVM's Attributor deduces `noalias` for the
// arguments of internal functions: at a call, an argument is a buffer of its
// own when nothing else the callee may reach during the call can be the same
// memory.
//
// - What the caller passes: each memref operand is traced through views to
//   its origin (an allocation, a global, an argument of the caller, or
//   something else). Two operands are distinct buffers when their origins
//   differ and neither may be the other (a fresh allocation is none of the
//   caller's arguments; an argument marked `llvm.noalias` is no other
//   buffer), or when both are static subviews of one buffer whose index
//   ranges are disjoint in some dimension.
// - What the callee reaches: a function is closed when every memref it uses
//   comes from its arguments, its own allocations (views of them included)
//   and globals, and it calls only closed functions of the module. A closed
//   function reaches no memory but through its arguments, its allocations
//   and the globals it and its callees name; a global passed to it is
//   distinct only if none of them names that global.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_CALLARGUMENTALIASING_H
#define VYRE_ANALYSIS_CALLARGUMENTALIASING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::vyre {

/// Where a buffer passed to a call comes from.
struct CallBufferOrigin {
  enum class Kind {
    /// The result of an op that allocates it: no other buffer.
    Allocation,
    /// `memref.get_global`: the global, and no other buffer.
    Global,
    /// An argument of the caller marked `llvm.noalias`: no other buffer.
    NoAliasArgument,
    /// Another argument of the caller: it may be any buffer but the
    /// caller's allocations and its `noalias` arguments.
    Argument,
    /// Anything else (a call result, a loop-carried value): any buffer.
    Unknown,
  };
  Kind kind = Kind::Unknown;
  /// The allocation's result or the caller's argument.
  Value root;
  /// The global's name.
  StringAttr global;
  /// The op that made an unknown buffer (null for a block argument).
  Operation *unknownSource = nullptr;

  /// Traces `memref` through views to where it comes from.
  static CallBufferOrigin of(Value memref);
};

/// Which memory each function of a module may reach during a call: whether
/// it is closed, and the globals it and its callees name.
class CalleeReach {
public:
  explicit CalleeReach(ModuleOp module);

  /// Null when `function` is closed; otherwise an op that makes it open (a
  /// memref of unknown origin, a call outside the module, a recursive call).
  Operation *getOpenReason(func::FuncOp function) const;
  bool isClosed(func::FuncOp function) const {
    return !getOpenReason(function);
  }
  /// Whether `function` or a function it calls names `global`.
  bool reachesGlobal(func::FuncOp function, StringAttr global) const;
  /// A global `function` or a function it calls names, or null.
  StringAttr getAnyReachedGlobal(func::FuncOp function) const;

  /// Records that `copy` is a copy of `original` (same body, same reach).
  void addCopy(func::FuncOp copy, func::FuncOp original);

  /// An op of the module (host or device code) that views memory from its
  /// allocation's base rather than from the view it is given
  /// (`memref.reinterpret_cast`, `memref.extract_strided_metadata`,
  /// `memref.extract_aligned_pointer_as_index`), or null. Through one, a
  /// function given a slice may reach the rest of its buffer: disjoint
  /// slices are then not distinct buffers.
  Operation *getBaseViewer() const { return baseViewer; }

private:
  struct Reach {
    Operation *openReason = nullptr;
    SmallVector<StringAttr, 2> globals;
  };
  const Reach *lookup(func::FuncOp function) const;

  DenseMap<Operation *, Reach> reach;
  Operation *baseViewer = nullptr;
};

/// Which memref operands of a call pass a buffer distinct from every other
/// buffer the callee may reach during the call.
struct DistinctCallArguments {
  /// One bit per operand of the call.
  llvm::BitVector distinct;
  /// Why the first memref operand that is not distinct is not, for remarks.
  std::string whyNot;
};

/// Decides, for each memref operand of `call` (a call to `callee`), whether
/// it is a distinct buffer. An operand of another type that may carry a
/// buffer (a pointer, an async value; anything but integers, floats, index,
/// and vectors and complex numbers of them) makes every operand of the call
/// not distinct: the callee may reach memory through it.
DistinctCallArguments getDistinctCallArguments(func::CallOp call,
                                               func::FuncOp callee,
                                               const CalleeReach &reach);

/// Whether two static subviews of one buffer select disjoint elements (their
/// index ranges do not meet in some dimension).
bool areDisjointStaticSubviews(Value lhs, Value rhs);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_CALLARGUMENTALIASING_H
