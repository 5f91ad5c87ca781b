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
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
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

/// A kernel and the six values of its grid and block sizes.
using LaunchKey =
    std::tuple<Operation *, Value, Value, Value, Value, Value, Value>;

/// The estimate of one launch, and the attributes that carry it.
struct Estimate {
  std::optional<uint64_t> threads;
  double micros = 0;
  DictionaryAttr attributes;
};

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
    MLIRContext *context = &getContext();
    StringAttr costName = StringAttr::get(context, kKernelCostAttrName);
    StringAttr estimatedName = StringAttr::get(context, kKernelCostEstimatedAttrName);
    UnitAttr unit = UnitAttr::get(context);
    Type f64 = Float64Type::get(context);
    DenseMap<Operation *, CountedKernel> counted;
    DenseMap<LaunchKey, Estimate> estimates;
    // Remark texts are built only for remarks the engine takes.
    getOperation()->walk([&](DispatchOp dispatch) {
      // A declared time stands, whatever it is (the passes that read it
      // judge it).
      if (dispatch->hasAttr(kKernelCostAttrName))
        return;
      auto missed = [&](StringRef why) {
        if (auto remark =
                remark::missed(vyre::getSourceLocation(dispatch.getLoc()),
                               options("KernelTimeNotEstimated")))
          remark << "kernel time not estimated: " + why.str() +
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
      // Dispatches of one kernel on the same grid values (constants are
      // shared) share their estimate and their attributes.
      LaunchKey key{kernel,
                    dispatch.getGridSizeX(),
                    dispatch.getGridSizeY(),
                    dispatch.getGridSizeZ(),
                    dispatch.getBlockSizeX(),
                    dispatch.getBlockSizeY(),
                    dispatch.getBlockSizeZ()};
      auto [known, isNew] = estimates.try_emplace(key);
      Estimate &estimate = known->second;
      if (isNew) {
        estimate.threads = getLaunchedThreads(dispatch);
        if (estimate.threads) {
          estimate.micros =
              estimateKernelMicros(*count.work, *estimate.threads, roofline);
          estimate.attributes = DictionaryAttr::get(
              context, {NamedAttribute(costName,
                                       FloatAttr::get(f64, estimate.micros)),
                        NamedAttribute(estimatedName, unit)});
        }
      }
      if (!estimate.threads)
        return missed("its grid and block sizes are not all constants");
      double micros = estimate.micros;
      std::optional<uint64_t> threads = estimate.threads;
      if (!std::isfinite(micros))
        return missed("the estimate is not a finite number of microseconds");
      DictionaryAttr existing = dispatch->getDiscardableAttrDictionary();
      if (existing.empty()) {
        dispatch->setDiscardableAttrs(estimate.attributes);
      } else {
        NamedAttrList attributes(existing);
        for (NamedAttribute attribute : estimate.attributes)
          attributes.append(attribute);
        dispatch->setDiscardableAttrs(attributes.getDictionary(context));
      }
      if (auto remark =
              remark::analysis(vyre::getSourceLocation(dispatch.getLoc()),
                               options("KernelTimeEstimated")))
        remark << llvm::formatv("kernel time estimated at {0:F3} us: {1} threads "
                           "of {2} bytes and {3} floating-point operations "
                           "each, at {4} GB/s and {5} TFLOP/s",
                           micros, *threads, count.work->bytes,
                           count.work->flops, memoryGBps.getValue(),
                           tflops.getValue())
                 .str();
    });
    // Only discardable attributes of dispatches change, which no analysis
    // reads and which are well formed by construction: every analysis
    // still holds, and the pass manager need not verify the module again.
    markAllAnalysesPreserved();
  }

  remark::RemarkOpts options(StringRef name) {
    return remark::RemarkOpts::name(name).category(kRemarkCategory);
  }
};

} // namespace
