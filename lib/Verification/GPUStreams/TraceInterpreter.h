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

#include <set>
#include <vector>

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
  /// A trace longer than `maxNodes` is an error (see runBlock). With
  /// `runRepeatsOnce`, a loop run that repeats an earlier one of the trace
  /// runs one iteration (RepeatedLoops.cpp).
  TraceInterpreter(KernelSummaries &kernels,
                   const TraceableStreams &traceable, TraceChoices &choices,
                   Trace &trace, Reporter &reporter, unsigned maxNodes,
                   bool runRepeatsOnce)
      : kernels(kernels), traceable(traceable), choices(choices),
        trace(trace), reporter(reporter), maxNodes(maxNodes),
        runRepeatsOnce(runRepeatsOnce) {}

  /// Runs the ops of `block`, its terminator aside. Once the trace holds
  /// more than `maxNodes` nodes, fails with an error at the outermost region
  /// op being unfolded, naming the bound.
  LogicalResult runBlock(Block &block);

  /// Runs the function's return `returnOp`; the index of its node.
  FailureOr<unsigned> runReturn(Operation *returnOp);

  /// Whether some loop run of this trace repeated an earlier one and ran
  /// one iteration.
  bool ranRepeatsOnce() const { return ranOnce; }

  /// What makes those runs sound, to check on the finished trace: pairs of
  /// nodes, each the last node of an op in the first iteration of a loop
  /// run in full and the first node of the op in the second, that must be
  /// ordered (RepeatedLoops.cpp).
  ArrayRef<std::pair<unsigned, unsigned>> getIterationChains() const {
    return iterationChains;
  }

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
  // Loop runs that repeat an earlier one (RepeatedLoops.cpp)
  //===--------------------------------------------------------------------===//

  /// What the ops inside a region op use from outside it.
  struct OutsideUses {
    /// The values the trace follows (tokens, memrefs, pointers), in order
    /// of first use.
    SmallVector<Value> values;
    /// Whether an scf.if or scf.index_switch is inside.
    bool choosesPerExecution = false;
  };
  const OutsideUses &outsideUses(Operation *regionOp);

  /// The loop's inits and the values it uses from outside that the trace
  /// follows, in a fixed order; null when a run of `loop` never counts as a
  /// repeat.
  const SmallVector<Value> *repeatableInputs(scf::ForOp loop);

  /// What `inputs` hold now, up to renaming the streams, events and
  /// allocations they name.
  std::vector<int64_t> entrySignature(ArrayRef<Value> inputs);

  /// Records the pairs of nodes that order an op's instances in a loop run
  /// whose first iteration made nodes [firstStart, secondStart) and whose
  /// second made [secondStart, end).
  void recordIterationChains(unsigned firstStart, unsigned secondStart,
                             unsigned end);

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
  /// The branch every scf.if takes on a condition computed once per run of
  /// the function (an argument, a value of its entry block): one choice
  /// for all of them, as at run time.
  DenseMap<Value, unsigned> branchOnCondition;
  /// The stream each `!llvm.ptr` cast from a token stands for, and the
  /// explicit event each `!llvm.ptr` holds.
  DenseMap<Value, unsigned> pointerStream;
  DenseMap<Value, unsigned> eventOf;
  unsigned nextInstance = 1;
  unsigned maxNodes;
  /// The top-level region op being unfolded, if any.
  Operation *outermostRegionOp = nullptr;

  bool runRepeatsOnce;
  bool ranOnce = false;
  DenseMap<Operation *, OutsideUses> outsideUsesOf;
  DenseMap<Operation *, std::optional<SmallVector<Value>>> repeatable;
  /// The entry signatures of each loop's runs in full in this trace.
  DenseMap<Operation *, std::set<std::vector<int64_t>>> fullRuns;
  SmallVector<std::pair<unsigned, unsigned>> iterationChains;
};

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACEINTERPRETER_H
