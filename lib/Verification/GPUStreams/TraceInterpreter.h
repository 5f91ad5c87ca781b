//===- TraceInterpreter.h - Runs a host function into one trace -----------===//
//
// Part of --vyre-verify-gpu-streams: runs a host function's body on the
// model of gpu-to-llvm, along the choices of one trace. Region ops are
// unfolded (UnfoldRegions.cpp); gpu ops and host ops add their steps to the
// trace (TraceInterpreter.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACEINTERPRETER_H
#define VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACEINTERPRETER_H

#include "GPUWork.h"
#include "KernelSummaries.h"
#include "Reporter.h"
#include "Trace.h"
#include "TraceChoices.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::vyre::gpu_streams {

/// What a value that crosses a region boundary (an iter_arg, a yielded value,
/// a region result) holds in the current trace: the stream of a token, the
/// buffer of a memref, nothing for other values.
struct Carried {
  std::optional<unsigned> stream;
  std::optional<Buffer> buffer;
  /// An explicit event (an `!llvm.ptr` from mgpuEventCreate).
  std::optional<unsigned> event;
};

/// Builds one trace of a host function. Failure (with an error emitted) where
/// the function does something the model does not cover.
class TraceInterpreter {
public:
  /// A trace longer than `maxNodes` is an error (see runBlock).
  TraceInterpreter(KernelSummaries &kernels,
                   const TraceableStreams &traceable, TraceChoices &choices,
                   Trace &trace, Reporter &reporter, unsigned maxNodes)
      : kernels(kernels), traceable(traceable), choices(choices),
        trace(trace), reporter(reporter), maxNodes(maxNodes) {}

  /// Runs the ops of `block`, its terminator aside. Once the trace holds
  /// more than `maxNodes` nodes, fails with an error at the outermost region
  /// op being unfolded, naming the bound.
  LogicalResult runBlock(Block &block);

  /// Runs the function's return `returnOp`; the index of its node.
  FailureOr<unsigned> runReturn(Operation *returnOp);

private:
  //===--------------------------------------------------------------------===//
  // Unfolding (UnfoldRegions.cpp)
  //===--------------------------------------------------------------------===//

  /// The single block of `region`, or an error on its parent.
  FailureOr<Block *> singleBlock(Region &region);

  /// Reads what `values` (operands of `user`) hold in this trace.
  LogicalResult collect(Operation *user, ValueRange values,
                        SmallVectorImpl<Carried> &carried);

  /// Makes `targets` (block arguments or results) hold what `carried` says.
  void bind(ValueRange targets, ArrayRef<Carried> carried);

  /// How often the loop `loop` runs in this trace when its trip count is not
  /// known: twice or not at all, the same for every run of it in a trace.
  unsigned unknownTrips(Operation *loop);

  LogicalResult runRegionOp(Operation *op);
  LogicalResult runFor(scf::ForOp loop);
  LogicalResult runWhile(scf::WhileOp loop);
  LogicalResult runIf(scf::IfOp branch);
  LogicalResult runIndexSwitch(scf::IndexSwitchOp cases);
  LogicalResult runExecuteRegion(scf::ExecuteRegionOp region);
  LogicalResult runYieldingRegion(Region &region, ResultRange results);

  //===--------------------------------------------------------------------===//
  // Ops (TraceInterpreter.cpp)
  //===--------------------------------------------------------------------===//

  LogicalResult runOp(Operation *op);

  /// The stream a token stands for in this trace.
  FailureOr<unsigned> streamOf(Operation *user, Value token);

  /// The buffer `value` holds now.
  Buffer bufferOf(Value value);

  LogicalResult runWait(gpu::WaitOp wait);
  LogicalResult runJoin(gpu::WaitOp wait);
  LogicalResult runBlockingWait(gpu::WaitOp wait);
  void launchAccesses(gpu::LaunchFuncOp launch, Node &node);
  LogicalResult checkDeviceOp(Operation *op);
  LogicalResult runDeviceOp(Operation *op);
  void runHostOp(Operation *op);
  void runPinning(Operation *op);

  //===--------------------------------------------------------------------===//
  // Runtime calls the host code makes itself (RuntimeCalls.cpp)
  //===--------------------------------------------------------------------===//

  /// Whether `op` is a cast of a token to its stream or an mgpu stream or
  /// event call that the model follows.
  static bool isModelledRuntimeOp(Operation *op);
  LogicalResult runRuntimeOp(Operation *op);
  FailureOr<unsigned> streamOfPointer(Operation *user, Value pointer);
  FailureOr<unsigned> eventOfPointer(Operation *user, Value pointer);

  KernelSummaries &kernels;
  const TraceableStreams &traceable;
  TraceChoices &choices;
  Trace &trace;
  Reporter &reporter;

  DenseMap<Value, unsigned> tokenStream;
  DenseMap<Value, unsigned> bufferInstance;
  /// The buffer each block argument or region result of an unfolded region
  /// op holds now (bound like tokens, to what flows into it).
  DenseMap<Value, Buffer> memrefBinding;
  DenseMap<Operation *, unsigned> loopTrips;
  /// The stream each `!llvm.ptr` cast from a token stands for, and the
  /// explicit event each `!llvm.ptr` holds.
  DenseMap<Value, unsigned> pointerStream;
  DenseMap<Value, unsigned> eventOf;
  unsigned nextInstance = 1;
  unsigned maxNodes;
  /// The top-level region op being unfolded, if any.
  Operation *outermostRegionOp = nullptr;
};

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACEINTERPRETER_H
