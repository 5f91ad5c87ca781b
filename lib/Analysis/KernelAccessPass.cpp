//===- KernelAccessPass.cpp - Record each kernel's accesses -----*- C++ -*-===//
//
// --vyre-kernel-access: the one place that looks into kernel bodies. It writes
// each kernel's per-argument accesses on the kernel as `vyre.access`, where
// the function-level analyses read them.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/Passes.h"

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
void summarize(FunctionOpInterface kernel) {
  KernelAccess fromBody = computeKernelAccess(kernel);
  SmallVector<ArgumentAccess> accesses = fromBody.arguments;
  if (std::optional<SmallVector<ArgumentAccess>> existing =
          getKernelAccessSummary(kernel);
      existing && existing->size() == accesses.size())
    for (auto [access, declared] : llvm::zip(accesses, *existing))
      access |= declared;
  setKernelAccessSummary(kernel, accesses);
}

struct KernelAccessPass
    : public vyre::impl::KernelAccessPassBase<KernelAccessPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](gpu::GPUModuleOp module) {
      for (auto function : module.getOps<FunctionOpInterface>())
        if (isKernel(function) && !function.isExternal())
          summarize(function);
    });
  }
};

} // namespace
