//===- GPUWork.cpp - Which ops hold gpu work, as gpu-to-llvm sees them ----===//

#include "GPUWork.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

bool mlir::vyre::gpu_streams::isModelledRuntimeCall(Operation *op) {
  auto call = dyn_cast<LLVM::CallOp>(op);
  if (!call || !call.getCallee())
    return false;
  static constexpr StringLiteral followed[] = {
      "mgpuEventCreate",      "mgpuEventRecord",  "mgpuStreamWaitEvent",
      "mgpuEventSynchronize", "mgpuEventDestroy", "mgpuStreamSynchronize",
      "mgpuStreamDestroy",    "vyreMemcpy2DAsync"};
  return llvm::is_contained(followed, *call.getCallee());
}

bool mlir::vyre::gpu_streams::isTileCopyCall(Operation *op) {
  auto call = dyn_cast<LLVM::CallOp>(op);
  return call && call.getCallee() && *call.getCallee() == "vyreMemcpy2DAsync";
}

bool mlir::vyre::gpu_streams::holdsGPUWork(Operation *op) {
  auto isToken = [](Type type) { return isa<gpu::AsyncTokenType>(type); };
  // A loop of runtime calls alone (events destroyed in a loop, say) is
  // followed as well: taken for a host op, its calls would go unseen. In
  // pre-order, the walk stops at the first gpu op at the outermost level
  // rather than after descending the deepest nest first; the interpreter
  // asks this of every region op it meets, at every level of a nest.
  WalkResult result = op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (isa_and_nonnull<gpu::GPUDialect>(nested->getDialect()) ||
        isModelledRuntimeCall(nested) ||
        llvm::any_of(nested->getOperandTypes(), isToken) ||
        llvm::any_of(nested->getResultTypes(), isToken))
      return WalkResult::interrupt();
    for (Region &region : nested->getRegions())
      for (Block &block : region)
        if (llvm::any_of(block.getArgumentTypes(), isToken))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

bool mlir::vyre::gpu_streams::needsUnfolding(Operation *op) {
  if (holdsGPUWork(op))
    return true;
  return llvm::any_of(op->getResultTypes(), llvm::IsaPred<BaseMemRefType>) &&
         llvm::all_of(op->getRegions(), [](Region &region) {
           return region.empty() || region.hasOneBlock();
         });
}

bool mlir::vyre::gpu_streams::isModelledDeviceOp(Operation *op) {
  return isa<gpu::LaunchFuncOp, gpu::MemcpyOp, gpu::MemsetOp, gpu::AllocOp,
             gpu::DeallocOp>(op);
}

mlir::vyre::gpu_streams::TraceableStreams::TraceableStreams(
    Operation *function) {
  // Pre-order, a token's definition comes before its uses.
  function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto wait = dyn_cast<gpu::WaitOp>(op)) {
      if (Value token = wait.getAsyncToken())
        traceable.insert(token);
      return;
    }
    if (!isModelledDeviceOp(op))
      return;
    auto async = cast<gpu::AsyncOpInterface>(op);
    Value token = async.getAsyncToken();
    if (!token)
      return;
    ValueRange dependencies = async.getAsyncDependencies();
    if (dependencies.empty() ? isa<gpu::LaunchFuncOp>(op)
                             : dependencies.size() == 1 &&
                                   traceable.contains(dependencies.front()))
      traceable.insert(token);
  });
}
