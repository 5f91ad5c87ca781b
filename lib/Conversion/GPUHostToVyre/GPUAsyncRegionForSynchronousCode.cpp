//===- GPUAsyncRegionForSynchronousCode.cpp - Upstream's pass where needed -*- C++ -*-===//
//
// --vyre-gpu-async-region-for-synchronous-code: upstream's
// --gpu-async-region on the functions that hold only synchronous gpu host
// ops, and on no function written asynchronous by hand, which it would
// break. In a function that mixes the two, the synchronous ops of each
// block run in order on one stream, after the explicit work before them on
// their buffers, and the host waits for that stream only before what may
// need its work: what they meant, in a form upstream lowers, with the
// explicit tokens left as written.
//
//===----------------------------------------------------------------------===//

#include "vyre/Conversion/Passes.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"

#include "SynchronousOpsOnOneStream.h"
#include "WaitsForExplicitWork.h"

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

/// Whether `op` is a synchronous host_shared allocation, which `gpu-to-llvm`
/// lowers as it is (and no asynchronous one).
bool isSynchronousHostSharedAlloc(Operation *op) {
  auto alloc = dyn_cast<gpu::AllocOp>(op);
  return alloc && alloc.getHostShared() && isSynchronousGPUOp(op);
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
    bool synchronous = false, asynchronous = false, hostShared = false;
    function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Device code is the kernels' own.
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (isSynchronousHostSharedAlloc(op)) {
        hostShared = true;
        return WalkResult::advance();
      }
      if (isSynchronousGPUOp(op)) {
        synchronous = true;
      } else if (isa<gpu::AsyncOpInterface>(op)) {
        asynchronous = true;
      }
      return WalkResult::advance();
    });
    // Upstream's pass would thread its chain through explicit tokens, and
    // would make a host_shared allocation asynchronous, which gpu-to-llvm
    // does not lower.
    if (synchronous && (asynchronous || hostShared)) {
      // Each block on its own: explicit work in flight in a block is
      // waited for before the op of that block that holds a synchronous op
      // on its buffers.
      SmallVector<Block *> blocks;
      function.walk([&](Block *block) { blocks.push_back(block); });
      llvm::erase_if(blocks, [](Block *block) {
        return block->getParentOp()->getParentOfType<gpu::LaunchOp>() ||
               isa<gpu::LaunchOp>(block->getParentOp());
      });
      // A wait on nothing does nothing; a synchronous host_shared
      // allocation stays as it is.
      auto onChain = [](Operation *op) {
        return isSynchronousGPUOp(op) && !isa<gpu::WaitOp>(op) &&
               !isSynchronousHostSharedAlloc(op);
      };
      unsigned waits = 0, chained = 0;
      for (Block *block : blocks)
        waits += waitForExplicitWorkBeforeSynchronousOps(*block, onChain);
      for (Block *block : blocks)
        chained += runSynchronousOpsOnOneStream(*block, onChain);
      if (auto remark = remark::analysis(
              vyre::getSourceLocation(function.getLoc()),
              remark::RemarkOpts::name("SynchronousOpsOnOneStream")
                  .category(getArgument())
                  .function(function.getName())))
        remark << std::string(asynchronous
                                  ? "the function mixes explicit gpu tokens "
                                    "with "
                                  : "the function allocates host_shared "
                                    "memory beside ") +
                      std::to_string(chained) +
                      " synchronous gpu host op(s): they run in order on one "
                      "stream per block, which the host waits for only "
                      "before an op that may need their work, after " +
                      std::to_string(waits) +
                      " wait(s) for explicit work on its buffers; explicit "
                      "tokens and host_shared allocations are left as "
                      "written (--gpu-async-region would add its chain to "
                      "the tokens and make the allocation asynchronous)";
      return;
    }
    if (!synchronous) {
      if (asynchronous)
        if (auto remark =
                remark::analysis(vyre::getSourceLocation(function.getLoc()),
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
