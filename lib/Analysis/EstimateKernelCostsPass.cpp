//===- EstimateKernelCostsPass.cpp - Kernel times from bodies ----*- C++ -*-===//
//
// --vyre-estimate-kernel-costs: a roofline estimate of each dispatch's kernel
// time (KernelWork.h), written as `vyre.cost_us` where the dispatch declares
// none.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/Passes.h"

#include "vyre/Analysis/DeviceCosts.h"
#include "vyre/Analysis/KernelSymbols.h"
#include "vyre/Analysis/KernelWork.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::vyre {
#define GEN_PASS_DEF_ESTIMATEKERNELCOSTSPASS
#include "vyre/Analysis/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr StringLiteral kRemarkCategory = "estimate-kernel-costs";
constexpr StringLiteral kEstimatedAttrName = "vyre.cost_estimated";

/// A kernel's work per thread, or why there is none.
struct CountedKernel {
  std::optional<KernelWork> work;
  std::string whyNot;
};

struct EstimateKernelCostsPass
    : public vyre::impl::EstimateKernelCostsPassBase<EstimateKernelCostsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!(memoryGBps > 0) || !std::isfinite(memoryGBps) || !(tflops > 0) ||
        !std::isfinite(tflops)) {
      emitError(getOperation().getLoc())
          << "--vyre-estimate-kernel-costs: memory-gbps and tflops must be "
             "positive and finite";
      return signalPassFailure();
    }
    Roofline roofline{memoryGBps, tflops};
    KernelSymbols &kernels = getAnalysis<KernelSymbols>();
    SymbolTableCollection symbols;
    DenseMap<Operation *, CountedKernel> counted;
    bool changed = false;
    // Remarks are built only for a remark engine to take them.
    bool remarks = getContext().getRemarkEngine() != nullptr;
    getOperation()->walk([&](DispatchOp dispatch) {
      // A declared time stands, whatever it is (the passes that read it
      // judge it).
      if (dispatch->hasAttr(kKernelCostAttrName))
        return;
      auto missed = [&](const std::string &why) {
        if (remarks)
          remark::missed(dispatch.getLoc(), options("KernelTimeNotEstimated"))
              << "kernel time not estimated: " + why +
                     "; the default kernel time applies";
      };
      SymbolRefAttr reference = dispatch.getKernelAttr();
      Operation *kernel = kernels.lookup(reference);
      if (!kernel)
        kernel = symbols.lookupNearestSymbolFrom(dispatch, reference);
      if (!kernel)
        return missed("the kernel is not in the module");
      auto [found, inserted] = counted.try_emplace(kernel);
      if (inserted)
        found->second.work = computeKernelWork(kernel, &found->second.whyNot);
      const CountedKernel &count = found->second;
      if (!count.work)
        return missed(count.whyNot);
      std::optional<uint64_t> threads = getLaunchedThreads(dispatch);
      if (!threads)
        return missed("its grid and block sizes are not all constants");
      double micros = estimateKernelMicros(*count.work, *threads, roofline);
      if (!std::isfinite(micros))
        return missed("the estimate is not a finite number of microseconds");
      MLIRContext *context = dispatch.getContext();
      dispatch->setAttr(kKernelCostAttrName,
                        FloatAttr::get(Float64Type::get(context), micros));
      dispatch->setAttr(kEstimatedAttrName, UnitAttr::get(context));
      changed = true;
      if (!remarks)
        return;
      remark::analysis(dispatch.getLoc(), options("KernelTimeEstimated"))
          << llvm::formatv("kernel time estimated at {0:F3} us: {1} threads "
                           "of {2} bytes and {3} floating-point operations "
                           "each, at {4} GB/s and {5} TFLOP/s",
                           micros, *threads, count.work->bytes,
                           count.work->flops, memoryGBps.getValue(),
                           tflops.getValue())
                 .str();
    });
    // Only attributes of dispatches change: every analysis still holds.
    if (!changed)
      markAllAnalysesPreserved();
    else
      markAnalysesPreserved<KernelSymbols>();
  }

  remark::RemarkOpts options(StringRef name) {
    return remark::RemarkOpts::name(name).category(kRemarkCategory);
  }
};

} // namespace
