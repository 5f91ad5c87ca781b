//===- SlotAccessAnalysis.h - Read/write slot summaries ---------*- C++ -*-===//
//
// For one host function: its slots (device buffer roots), which slots may
// alias, and the read/write slot summary of every vyre.dispatch.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_SLOTACCESSANALYSIS_H
#define VYRE_ANALYSIS_SLOTACCESSANALYSIS_H

#include "vyre/Analysis/AccessSummary.h"
#include "vyre/Analysis/KernelAccess.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <vector>
#include <optional>

namespace mlir::vyre {

/// Read/write slot summaries for the vyre.dispatch ops of one function.
///
/// Slots are numbered as in remarks and diagnostics: the function's memref
/// arguments first, in order, then `vyre.alloc` results in program order.
/// Views resolve to their root. Where `mlir::AliasAnalysis` says two roots
/// may alias (two function arguments, unless one is `llvm.noalias`), an
/// access to one is an access to the other, so summaries list both.
///
/// Summaries are exact where the IR says enough and conservative where it
/// does not: a buffer whose root is not a slot may be any slot, and a kernel
/// use that is not modelled is a read and a write. Kernels are analysed once
/// per callee, however often they are dispatched. The analysis never changes
/// the IR.
class SlotAccessAnalysis {
public:
  /// Analyses `op`, normally a `func.func`; every dispatch nested in it is
  /// summarized.
  explicit SlotAccessAnalysis(Operation *op);

  /// The slot roots, indexed by slot number.
  ArrayRef<Value> getSlots() const { return slots; }
  unsigned getNumSlots() const { return slots.size(); }

  /// The slot number of `root`, if it is a slot root.
  std::optional<unsigned> getSlotNumber(Value root) const;

  /// The root buffer of `memref`, following views to their source.
  static Value resolveRoot(Value memref);

  /// The slots an access through `memref` may touch: its root's slot and
  /// every slot that may alias it, sorted. If the root is not a slot, every
  /// slot, and `isExact` (if given) is set to false.
  SmallVector<unsigned> getSlotsOf(Value memref, bool *isExact = nullptr) const;

  /// Whether `value` is a function argument that carries `llvm.noalias`, the
  /// promise that it aliases no other argument.
  static bool isNoAliasArgument(Value value);

  /// Whether two slots may refer to overlapping memory.
  bool mayAlias(unsigned lhs, unsigned rhs) const;

  /// The summary of `dispatch`, which must be nested in the analysed op.
  const AccessSummary &getSummary(DispatchOp dispatch) const;

  /// The per-argument accesses of a kernel, computed once per callee. Null if
  /// `kernel` was never dispatched in the analysed op.
  const KernelAccess *getKernelAccess(Operation *kernel) const;

private:
  void collectSlots(Operation *op);
  void computeAliasing(Operation *op);
  AccessSummary summarize(DispatchOp dispatch);

  SmallVector<Value> slots;
  DenseMap<Value, unsigned> slotNumbers;
  /// Row i holds the slots that may alias slot i (including i).
  SmallVector<llvm::BitVector> aliasing;
  /// Owned through pointers, which stay valid as the map grows.
  DenseMap<Operation *, std::unique_ptr<KernelAccess>> kernelAccesses;
  /// Callee symbol → its accesses (null if it does not resolve), so each
  /// symbol is looked up once.
  DenseMap<Attribute, const KernelAccess *> kernelAccessBySymbol;
  /// Summaries in walk order, and where each dispatch's is.
  std::vector<AccessSummary> summaries;
  DenseMap<Operation *, unsigned> summaryIndex;
  SymbolTableCollection symbolTables;
};

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_SLOTACCESSANALYSIS_H
