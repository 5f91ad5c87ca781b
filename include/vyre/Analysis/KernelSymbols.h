//===- KernelSymbols.h - The kernels of a module, by symbol -----*- C++ -*-===//
//
// A module-level analysis: every function of every symbol table nested one
// level in the module (a `gpu.module`'s kernels), by the nested reference a
// launch names it with (`@kernels::@k`). Built once, then read only, so that
// function passes running in parallel may share it (through
// `getCachedParentAnalysis`) instead of each building the module's symbol
// table: a module of many functions made that cost the number of functions
// per function.
//
// The passes before the function passes in vyre's pipelines compute it and
// keep it (`--vyre-kernel-access`, `--vyre-function-effects`: they change no
// symbol). Without it, a lookup goes through a symbol table of its own.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_KERNELSYMBOLS_H
#define VYRE_ANALYSIS_KERNELSYMBOLS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::vyre {

class KernelSymbols {
public:
  explicit KernelSymbols(Operation *module);

  /// The function `reference` (`@table::@function`) names, if the module
  /// holds one there; null otherwise (look it up the usual way).
  Operation *lookup(SymbolRefAttr reference) const {
    return functions.lookup(reference);
  }

private:
  DenseMap<Attribute, Operation *> functions;
};

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_KERNELSYMBOLS_H
