//===- SlotAccessAnalysis.h - Read/write slot summaries ---------*- C++ -*-===//
//
// For one host function: its slots (device buffer roots), which slots may
// alias, and the read/write slot summary of every kernel launch.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_SLOTACCESSANALYSIS_H
#define VYRE_ANALYSIS_SLOTACCESSANALYSIS_H

#include "vyre/Analysis/AccessSummary.h"
#include "vyre/Analysis/KernelAccess.h"
#include "vyre/Analysis/KernelSymbols.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/AnalysisManager.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>
#include <optional>

namespace mlir::vyre {

/// Read/write slot summaries for the kernel launches of one function.
///
/// Slots are numbered as in remarks and diagnostics: the function's memref
/// arguments first, in order, then `vyre.alloc` results in program order.
/// Views resolve to their root. Where `mlir::AliasAnalysis` says two roots
/// may alias (two function arguments, unless one is `llvm.noalias`), an
/// access to one is an access to the other, so summaries list both.
///
/// A launch's per-argument accesses come from the kernel's `vyre.access`
/// summary (see `--vyre-kernel-access`), widened by what the launch itself
/// declares. A kernel without a summary is taken to read and write every
/// argument, unless it is a bodiless declaration, for which the launch's
/// declaration decides. The analysis reads kernels' attributes only, never
/// their bodies, and never changes the IR.
///
/// Summaries are exact where the IR says enough and conservative where it
/// does not: a buffer whose root is not a slot may be any slot.
///
/// A pass that rewrites part of the function keeps the analysis up to date
/// with `update`, at the cost of the part rewritten, not of the function.
class SlotAccessAnalysis {
public:
  /// Analyses `op`, normally a `func.func`; every kernel launch nested in it
  /// is summarized.
  explicit SlotAccessAnalysis(Operation *op);
  /// The same, looking kernels up in the enclosing module's KernelSymbols
  /// where a module pass left it cached (function passes in parallel).
  SlotAccessAnalysis(Operation *op, AnalysisManager &analyses);

  /// The slot roots, indexed by slot number; null for a slot whose root an
  /// `update` erased.
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

  /// The summary of `launch`, a kernel launch nested in the analysed op;
  /// unknown for any other op.
  const AccessSummary &getSummary(Operation *launch) const;

  /// Brings the analysis up to date after a rewrite of part of the analysed
  /// op. `erasedRoots` are the slot roots it erased: their numbers are not
  /// reused, and they no longer count among every slot. `added` are the ops
  /// it made or moved, each nested one listed too: those of its allocations
  /// that are not slots become slots, numbered after the others (a new
  /// allocation aliases no other slot), and its launches are summarized
  /// again.
  void update(ArrayRef<Value> erasedRoots, ArrayRef<Operation *> added);

  /// The kernels launched in the analysed op that have a body but no
  /// `vyre.access` summary, in the order first launched.
  ArrayRef<SymbolRefAttr> getUnsummarizedKernels() const {
    return unsummarizedKernels;
  }

private:
  /// What the analysis knows of one launched kernel.
  struct KernelInfo {
    bool resolved = false;
    bool hasBody = false;
    std::optional<SmallVector<ArgumentAccess>> summary;
  };

  void analyze(Operation *op);
  void collectSlots(Operation *op);
  void addSlot(Value root);
  void addSummary(StreamOpInterface launch);
  void computeAliasing(Operation *op);
  const KernelInfo &lookupKernel(StreamOpInterface launch);
  AccessSummary summarize(StreamOpInterface launch);

  SmallVector<Value> slots;
  DenseMap<Value, unsigned> slotNumbers;
  /// A slot that may alias another → the slots it may alias, itself
  /// included, sorted. Only pairs with an argument can alias, so this stays
  /// small where a function has many allocations.
  DenseMap<unsigned, SmallVector<unsigned>> aliasing;
  /// Callee symbol → what is known of it, so each is looked up once.
  DenseMap<Attribute, KernelInfo> kernels;
  SmallVector<SymbolRefAttr> unsummarizedKernels;
  /// Summaries in walk order, and where each launch's is.
  std::vector<AccessSummary> summaries;
  DenseMap<Operation *, unsigned> summaryIndex;
  SymbolTableCollection symbolTables;
  /// The enclosing module's kernels, if cached; null otherwise.
  const KernelSymbols *kernelSymbols = nullptr;
};

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_SLOTACCESSANALYSIS_H
