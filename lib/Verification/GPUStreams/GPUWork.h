//===- GPUWork.h - Which ops hold gpu work, as gpu-to-llvm sees them ------===//
//
// Part of --vyre-verify-gpu-streams: which host ops the trace must model or
// unfold, and which tokens upstream gpu-to-llvm lowers to a stream (rather
// than to an event).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_VERIFICATION_GPUSTREAMS_GPUWORK_H
#define VYRE_LIB_VERIFICATION_GPUSTREAMS_GPUWORK_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::vyre::gpu_streams {

/// Whether `op` is an `llvm.call` of one of the runtime's stream and event
/// functions that the trace follows (RuntimeCalls.cpp lists them).
bool isModelledRuntimeCall(Operation *op);

/// Whether `op` is a call of vyre's tile copy, `vyreMemcpy2DAsync`: device
/// work like a gpu.memcpy, not only ordering.
bool isTileCopyCall(Operation *op);

/// Whether `op` contains gpu work the trace must unfold: a gpu op, a token
/// or a runtime call the trace follows.
bool holdsGPUWork(Operation *op);

/// Whether the region op `op` must be unfolded into the trace: it holds gpu
/// work, or it returns memrefs whose buffers later ops must know (unfolding
/// is only attempted where each region has at most one block; otherwise the
/// results are unknown buffers).
bool needsUnfolding(Operation *op);

/// Whether `op` is one of the async gpu ops gpu-to-llvm lowers onto a
/// stream.
bool isModelledDeviceOp(Operation *op);

/// The tokens of a function that gpu-to-llvm lowers to the result of a
/// stream creation call: it follows one-dependency async ops back to a
/// `gpu.wait async` or a dependency-free `gpu.launch_func async`. Anything
/// else (a block argument, a loop or branch result) it takes for an event.
/// Found in one walk, each token from its dependency's answer: following a
/// long stream back from each of its tokens would cost its length each.
class TraceableStreams {
public:
  explicit TraceableStreams(Operation *function);
  bool contains(Value token) const { return traceable.contains(token); }

private:
  llvm::DenseSet<Value> traceable;
};

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_GPUWORK_H
