//===- KernelAccessPass.cpp - Record each kernel's accesses -----*- C++ -*-===//
//
// --vyre-kernel-access: the one place that looks into kernel bodies. It writes
// each kernel's per-argument accesses on the kernel as `vyre.access`, where
// the function-level analyses read them.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/Passes.h"

#include "vyre/Analysis/KernelSymbols.h"

#include "vyre/Analysis/KernelAccess.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_KERNELACCESSPASS
#include "vyre/Analysis/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// Whether `function`, in a gpu.module, can be dispatched.
bool isKernel(FunctionOpInterface function) {
  if (auto gpuFunction = dyn_cast<gpu::GPUFuncOp>(*function))
    return gpuFunction.isKernel();
  return function->hasAttr(gpu::GPUDialect::getKernelFuncAttrName());
}

/// Writes the summary of `kernel`'s body, widened by any it already carries.
/// Returns whether the summary changed.
bool summarize(FunctionOpInterface kernel) {
  KernelAccess fromBody = computeKernelAccess(kernel);
  SmallVector<ArgumentAccess> accesses = fromBody.arguments;
  std::optional<SmallVector<ArgumentAccess>> existing =
      getKernelAccessSummary(kernel);
  if (existing && existing->size() == accesses.size())
    for (auto [access, declared] : llvm::zip(accesses, *existing))
      access |= declared;
  if (existing && *existing == accesses)
    return false;
  setKernelAccessSummary(kernel, accesses);
  return true;
}

struct KernelAccessPass
    : public vyre::impl::KernelAccessPassBase<KernelAccessPass> {
  using Base::Base;

  void runOnOperation() override {
    // Kernels live in gpu.modules among the module's symbols; the walk does
    // not enter host functions, which may be most of the IR.
    bool changed = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto module = dyn_cast<gpu::GPUModuleOp>(op)) {
        for (auto function : module.getOps<FunctionOpInterface>())
          if (isKernel(function) && !function.isExternal())
            changed |= summarize(function);
        return WalkResult::skip();
      }
      return isa<FunctionOpInterface>(op) ? WalkResult::skip()
                                          : WalkResult::advance();
    });
    // Nothing changed: the pass manager need not verify the module again.
    // It renames no symbol: the function passes after it may share the
    // module's kernels by symbol.
    getAnalysis<KernelSymbols>();
    if (!changed)
      return markAllAnalysesPreserved();
    markAnalysesPreserved<KernelSymbols>();
  }
};

} // namespace
