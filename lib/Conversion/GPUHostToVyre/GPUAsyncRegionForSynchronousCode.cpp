//===- GPUAsyncRegionForSynchronousCode.cpp - Upstream's pass where needed -*- C++ -*-===//
//
// --vyre-gpu-async-region-for-synchronous-code: upstream's
// --gpu-async-region on the functions that hold only synchronous gpu host
// ops, and on no function written asynchronous by hand, which it would
// break. In a function that mixes the two, each synchronous op runs on a
// stream of its own that the host waits for at once, after the explicit
// work before it on its buffers: what it meant, in a form upstream lowers,
// with the explicit tokens left as written.
//
//===----------------------------------------------------------------------===//

#include "vyre/Conversion/Passes.h"

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

/// Makes the synchronous gpu op `op` run on a new stream of its own, which
/// the host then waits for and destroys: `%s = gpu.wait async`, the op with
/// `async [%s]`, `gpu.wait [%t]`. The host still goes on only once the op is
/// done, as written, and no other token is touched. The op is rebuilt with a
/// token result, as upstream's pass rebuilds it.
void runOnStreamOfItsOwn(Operation *op) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto tokenType = builder.getType<gpu::AsyncTokenType>();
  Value stream =
      gpu::WaitOp::create(builder, loc, tokenType, ValueRange()).getAsyncToken();
  cast<gpu::AsyncOpInterface>(op).addAsyncDependency(stream);
  OperationState state(loc, op->getName());
  state.addOperands(op->getOperands());
  state.addAttributes(op->getAttrs());
  state.addTypes(op->getResultTypes());
  state.addTypes(tokenType);
  Operation *async = builder.create(state);
  op->replaceAllUsesWith(async->getResults().drop_back());
  gpu::WaitOp::create(builder, loc, Type(), async->getResults().back());
  op->erase();
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
    SmallVector<Operation *> synchronousOps;
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
        // A wait on nothing does nothing.
        if (!isa<gpu::WaitOp>(op))
          synchronousOps.push_back(op);
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
      unsigned waits = 0;
      for (Block *block : blocks)
        if (!block->getParentOp()->getParentOfType<gpu::LaunchOp>() &&
            !isa<gpu::LaunchOp>(block->getParentOp()))
          waits += waitForExplicitWorkBeforeSynchronousOps(
              *block, [](Operation *op) {
                return isSynchronousGPUOp(op) && !isa<gpu::WaitOp>(op);
              });
      for (Operation *op : synchronousOps)
        runOnStreamOfItsOwn(op);
      if (auto remark = remark::analysis(
              function.getLoc(),
              remark::RemarkOpts::name("SynchronousOpsOnOwnStreams")
                  .category(getArgument())
                  .function(function.getName())))
        remark << std::string(asynchronous
                                  ? "the function mixes explicit gpu tokens "
                                    "with "
                                  : "the function allocates host_shared "
                                    "memory beside ") +
                      std::to_string(synchronousOps.size()) +
                      " synchronous gpu host op(s): each runs on a stream of "
                      "its own that the host waits for at once, after " +
                      std::to_string(waits) +
                      " wait(s) for explicit work on its buffers; explicit "
                      "tokens and host_shared allocations are left as "
                      "written (--gpu-async-region would add its chain to "
                      "the tokens and make the allocation asynchronous)";
      return;
    }
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
