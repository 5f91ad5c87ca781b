//===- GPUAsyncRegionForSynchronousCode.cpp - Upstream's pass where needed -*- C++ -*-===//
//
// --vyre-gpu-async-region-for-synchronous-code: upstream's
// --gpu-async-region on the functions that hold synchronous gpu host ops,
// and on no function written asynchronous by hand, which it would break.
//
//===----------------------------------------------------------------------===//

#include "vyre/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_GPUASYNCREGIONFORSYNCHRONOUSCODEPASS
#include "vyre/Conversion/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// The nested pipeline: upstream's pass alone.
OpPassManager upstreamAsyncRegion() {
  OpPassManager pm(func::FuncOp::getOperationName());
  pm.addPass(createGpuAsyncRegionPass());
  return pm;
}

/// Whether `op` is a gpu host op that upstream's pass would make
/// asynchronous: it takes no token and makes none.
bool isSynchronousGPUOp(Operation *op) {
  auto async = dyn_cast<gpu::AsyncOpInterface>(op);
  return async && !async.getAsyncToken() && async.getAsyncDependencies().empty();
}

struct GPUAsyncRegionForSynchronousCodePass
    : public vyre::impl::GPUAsyncRegionForSynchronousCodePassBase<
          GPUAsyncRegionForSynchronousCodePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    upstreamAsyncRegion().getDependentDialects(registry);
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    bool synchronous = false, asynchronous = false;
    function.walk([&](Operation *op) {
      // Device code is the kernels' own.
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (isSynchronousGPUOp(op))
        synchronous = true;
      else if (isa<gpu::AsyncOpInterface>(op))
        asynchronous = true;
      return WalkResult::advance();
    });
    if (!synchronous) {
      if (asynchronous)
        if (auto remark = remark::analysis(
                function.getLoc(),
                remark::RemarkOpts::name("AsyncLeftAsWritten")
                    .category(getArgument())
                    .function(function.getName())))
          remark << "the function's gpu host ops are all asynchronous "
                    "already: it is left as written, not given to "
                    "--gpu-async-region, which would thread one token "
                    "through them";
      markAllAnalysesPreserved();
      return;
    }
    OpPassManager pm = upstreamAsyncRegion();
    if (failed(runPipeline(pm, function)))
      signalPassFailure();
  }
};

} // namespace
