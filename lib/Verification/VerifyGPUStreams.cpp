//===- VerifyGPUStreams.cpp - Check async gpu IR as gpu-to-llvm runs it ---===//
//
// --vyre-verify-gpu-streams: a referee for lowered host code in the upstream
// gpu dialect, whoever produced it. It runs each host function on a model of
// what upstream gpu-to-llvm makes of its tokens (streams, events, blocking
// waits), unfolded into traces (scf.for and scf.while twice or not at all,
// every combination of scf.if and scf.index_switch branches; tokens and
// memrefs followed through iter_args, yields and results), builds
// happens-before over each trace and reports races, unfinished work, misuse
// of allocations, and streams and events used after they are destroyed,
// destroyed twice or leaked.
//
// It shares no code with vyre's own analyses: kernel argument accesses are
// read off the gpu.func bodies here.
//
//===----------------------------------------------------------------------===//

#include "vyre/Verification/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ShapedOpInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <set>
#include <tuple>

namespace mlir::vyre {
#define GEN_PASS_DEF_VERIFYGPUSTREAMSPASS
#include "vyre/Verification/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;

namespace {

/// How many times a loop body runs in a trace where it runs at all.
constexpr unsigned kLoopIterations = 2;

//===----------------------------------------------------------------------===//
// Kernel summaries
//===----------------------------------------------------------------------===//

/// What a kernel does with one argument.
struct ArgumentUse {
  bool read = false;
  bool write = false;
};

/// Reads, per kernel symbol, what each kernel does with its arguments, from
/// the kernel body: a load reads, a store writes, an atomic does both, and a
/// use it does not understand (a call, an escape) does both.
class KernelSummaries {
public:
  /// The uses of each kernel operand of `launch`, or null when the kernel
  /// cannot be read (no body, a signature that does not match).
  const SmallVector<ArgumentUse> *lookup(gpu::LaunchFuncOp launch) {
    Operation *callee =
        SymbolTable::lookupNearestSymbolFrom(launch, launch.getKernel());
    auto kernel = dyn_cast_or_null<gpu::GPUFuncOp>(callee);
    if (!kernel || kernel.getBody().empty() ||
        kernel.getNumArguments() != launch.getKernelOperands().size())
      return nullptr;
    auto [it, inserted] = summaries.try_emplace(kernel.getOperation());
    if (inserted)
      for (BlockArgument argument : kernel.getArguments())
        it->second.push_back(summarize(argument));
    return &it->second;
  }

private:
  static ArgumentUse summarize(Value argument) {
    ArgumentUse use;
    SmallVector<Value> worklist = {argument};
    while (!worklist.empty() && !(use.read && use.write)) {
      Value value = worklist.pop_back_val();
      for (OpOperand &operand : value.getUses()) {
        Operation *user = operand.getOwner();
        if (auto view = dyn_cast<ViewLikeOpInterface>(user);
            view && view.getViewSource() == value) {
          worklist.push_back(view.getViewDest());
          continue;
        }
        if (isa<ShapedDimOpInterface>(user))
          continue;
        bool known = false;
        if (auto effects = dyn_cast<MemoryEffectOpInterface>(user)) {
          SmallVector<MemoryEffects::EffectInstance> instances;
          effects.getEffects(instances);
          for (const MemoryEffects::EffectInstance &instance : instances) {
            if (instance.getValue() != value)
              continue;
            known = true;
            if (isa<MemoryEffects::Read>(instance.getEffect()))
              use.read = true;
            else if (isa<MemoryEffects::Write>(instance.getEffect()))
              use.write = true;
            else
              use.read = use.write = true;
          }
        }
        // A use without a declared effect on the value (a call, a cast to a
        // pointer, a region op) may do anything with it.
        if (!known)
          use.read = use.write = true;
      }
    }
    return use;
  }

  DenseMap<Operation *, SmallVector<ArgumentUse>> summaries;
};

//===----------------------------------------------------------------------===//
// The trace
//===----------------------------------------------------------------------===//

/// A buffer: a root value (views resolved) and, for an allocation, which
/// execution of it made the buffer. `everything` stands for any buffer.
struct Buffer {
  bool everything = false;
  Value root;
  unsigned instance = 0;
};

struct Access {
  Buffer buffer;
  bool write = false;
};

/// What a value that crosses a region boundary (an iter_arg, a yielded value,
/// a region result) holds in the current trace: the stream of a token, the
/// buffer of a memref, nothing for other values.
struct Carried {
  std::optional<unsigned> stream;
  std::optional<Buffer> buffer;
};

/// One executed step: a host op, device work on a stream, or a point where
/// a stream starts (a join) or the host blocks (a blocking wait).
struct Node {
  Operation *op = nullptr;
  bool onDevice = false;
  SmallVector<Access, 2> accesses;
  SmallVector<unsigned, 4> predecessors;
  /// For a `gpu.alloc async`: the buffer it makes; for a `gpu.dealloc`: the
  /// buffer it frees.
  std::optional<Buffer> allocates, frees;
};

/// A CUDA stream as gpu-to-llvm makes it.
struct Stream {
  Operation *creator = nullptr;
  /// The last device node enqueued on it.
  std::optional<unsigned> tail;
  Operation *destroyer = nullptr;
};

/// A CUDA event: recorded after `definer` for dependency `operand` of the
/// join `join`, and destroyed by that join.
struct CudaEvent {
  Operation *join = nullptr;
  unsigned operand = 0;
  Operation *definer = nullptr;
  std::optional<unsigned> recorded;
  bool destroyed = false;
};

enum class RootKind { Argument, Fresh, Unknown };

/// Whether `op` contains gpu work the trace must unfold: a gpu op or a token.
static bool holdsGPUWork(Operation *op) {
  auto isToken = [](Type type) { return isa<gpu::AsyncTokenType>(type); };
  WalkResult result = op->walk([&](Operation *nested) {
    if (isa_and_nonnull<gpu::GPUDialect>(nested->getDialect()) ||
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

/// Whether the region op `op` must be unfolded into the trace: it holds gpu
/// work, or it returns memrefs whose buffers later ops must know (unfolding
/// is only attempted where each region has at most one block; otherwise the
/// results are unknown buffers).
static bool needsUnfolding(Operation *op) {
  if (holdsGPUWork(op))
    return true;
  return llvm::any_of(op->getResultTypes(), llvm::IsaPred<BaseMemRefType>) &&
         llvm::all_of(op->getRegions(), [](Region &region) {
           return region.empty() || region.hasOneBlock();
         });
}

/// Whether `op` is one of the async gpu ops gpu-to-llvm lowers onto a
/// stream.
static bool isModelledDeviceOp(Operation *op) {
  return isa<gpu::LaunchFuncOp, gpu::MemcpyOp, gpu::MemsetOp, gpu::AllocOp,
             gpu::DeallocOp>(op);
}

/// Whether gpu-to-llvm lowers `token` to the result of a stream creation
/// call: it follows one-dependency async ops back to a `gpu.wait async` or a
/// dependency-free `gpu.launch_func async`. Anything else (a block argument,
/// a loop or branch result) it takes for an event.
static bool isTraceableStream(Value token) {
  while (true) {
    Operation *definer = token.getDefiningOp();
    if (!definer)
      return false;
    if (isa<gpu::WaitOp>(definer))
      return true;
    if (!isModelledDeviceOp(definer))
      return false;
    auto async = cast<gpu::AsyncOpInterface>(definer);
    ValueRange dependencies = async.getAsyncDependencies();
    if (dependencies.empty())
      return isa<gpu::LaunchFuncOp>(definer);
    if (dependencies.size() != 1)
      return false;
    token = dependencies.front();
  }
}

static Value resolveRoot(Value value) {
  while (Operation *definer = value.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(definer);
    if (!view || view.getViewDest() != value)
      break;
    value = view.getViewSource();
  }
  return value;
}

/// Whether `type` is plain data: a kernel operand of this type touches no
/// buffer.
static bool isPlainData(Type type) {
  return isa<IntegerType, IndexType, FloatType, VectorType, ComplexType>(type);
}

static std::string describeOp(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "'";
}

/// Unfolds one host function into traces and checks each.
class StreamChecker {
public:
  StreamChecker(FunctionOpInterface function, KernelSummaries &kernels,
                unsigned maxTraces)
      : function(function), kernels(kernels), maxTraces(maxTraces) {}

  /// Checks the function; failure when it reported anything.
  LogicalResult run() {
    Block &entry = function.getFunctionBody().front();
    returnOp = entry.getTerminator();
    for (BlockArgument argument : entry.getArguments())
      if (isa<gpu::AsyncTokenType>(argument.getType()))
        return function->emitOpError(
            "takes a !gpu.async.token argument, whose stream "
            "--vyre-verify-gpu-streams cannot follow");

    // gpu-to-llvm records an event for each traceable join dependency right
    // after the op that defined it.
    function->walk([&](gpu::WaitOp wait) {
      if (!wait.getAsyncToken())
        return;
      for (auto [index, dependency] :
           llvm::enumerate(wait.getAsyncDependencies()))
        if (isTraceableStream(dependency))
          eventsAfter[dependency.getDefiningOp()].push_back(
              {wait.getOperation(), static_cast<unsigned>(index)});
    });

    unsigned traces = 0;
    do {
      if (++traces > maxTraces)
        return function->emitOpError("has more than ")
               << maxTraces
               << " combinations of scf.if branches and loop trip counts, "
                  "more than --vyre-verify-gpu-streams checks";
      resetTrace();
      if (failed(runBlock(entry)) || failed(runReturn()))
        return failure();
      check();
    } while (nextTrace());
    return success(!reportedAny);
  }

private:
  //===--------------------------------------------------------------------===//
  // Choices
  //===--------------------------------------------------------------------===//

  /// Picks one of `arity` alternatives for the next choice of this trace.
  unsigned choose(unsigned arity) {
    if (cursor == choices.size()) {
      choices.push_back(0);
      arities.push_back(arity);
    }
    return choices[cursor++];
  }

  /// Moves to the next combination of choices; false when all were tried.
  bool nextTrace() {
    while (!choices.empty()) {
      if (choices.back() + 1 < arities.back()) {
        ++choices.back();
        return true;
      }
      choices.pop_back();
      arities.pop_back();
    }
    return false;
  }

  void resetTrace() {
    cursor = 0;
    nodes.clear();
    streams.clear();
    events.clear();
    currentEvent.clear();
    tokenStream.clear();
    bufferInstance.clear();
    memrefBinding.clear();
    loopTrips.clear();
    lastHost.reset();
    nextInstance = 1;
  }

  //===--------------------------------------------------------------------===//
  // Unfolding
  //===--------------------------------------------------------------------===//

  LogicalResult runBlock(Block &block) {
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        continue;
      if (failed(runOp(&op)))
        return failure();
    }
    return success();
  }

  /// The single block of `region`, or an error on its parent.
  FailureOr<Block *> singleBlock(Region &region) {
    if (region.empty())
      return static_cast<Block *>(nullptr);
    if (!region.hasOneBlock())
      return region.getParentOp()->emitOpError(
          "has a region of several blocks, which --vyre-verify-gpu-streams "
          "cannot unfold");
    return &region.front();
  }

  LogicalResult runOp(Operation *op) {
    if (isa<scf::ForOp, scf::IfOp, scf::ExecuteRegionOp, scf::WhileOp,
            scf::IndexSwitchOp>(op) &&
        needsUnfolding(op))
      return TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](scf::ForOp loop) { return runFor(loop); })
          .Case([&](scf::IfOp branch) { return runIf(branch); })
          .Case([&](scf::ExecuteRegionOp region) {
            return runExecuteRegion(region);
          })
          .Case([&](scf::WhileOp loop) { return runWhile(loop); })
          .Case(
              [&](scf::IndexSwitchOp cases) { return runIndexSwitch(cases); });
    if (auto wait = dyn_cast<gpu::WaitOp>(op))
      return runWait(wait);
    if (isModelledDeviceOp(op))
      return runDeviceOp(op);
    if (isa<gpu::AsyncOpInterface>(op))
      return op->emitOpError(
          "is an async gpu op that --vyre-verify-gpu-streams does not model "
          "(it models gpu.wait, gpu.launch_func, gpu.memcpy, gpu.memset, "
          "gpu.alloc and gpu.dealloc)");
    if (isa<gpu::HostRegisterOp, gpu::HostUnregisterOp>(op)) {
      runPinning(op);
      return success();
    }
    if (holdsGPUWork(op)) {
      if (op->getNumRegions() != 0)
        return op->emitOpError(
            "holds gpu work in a region --vyre-verify-gpu-streams cannot "
            "unfold (only scf.for, scf.while, scf.if, scf.index_switch and "
            "scf.execute_region)");
      if (llvm::any_of(op->getOperandTypes(),
                       llvm::IsaPred<gpu::AsyncTokenType>) ||
          llvm::any_of(op->getResultTypes(),
                       llvm::IsaPred<gpu::AsyncTokenType>))
        return op->emitOpError(
            "passes a !gpu.async.token, which --vyre-verify-gpu-streams "
            "cannot follow");
    }
    runHostOp(op);
    return success();
  }

  /// The stream a token stands for in this trace.
  FailureOr<unsigned> streamOf(Operation *user, Value token) {
    auto it = tokenStream.find(token);
    if (it == tokenStream.end())
      return user->emitOpError(
          "uses a token --vyre-verify-gpu-streams cannot resolve");
    return it->second;
  }

  /// Reads what `values` (operands of `user`) hold in this trace.
  LogicalResult collect(Operation *user, ValueRange values,
                        SmallVectorImpl<Carried> &carried) {
    carried.clear();
    for (Value value : values) {
      Carried held;
      if (isa<gpu::AsyncTokenType>(value.getType())) {
        FailureOr<unsigned> stream = streamOf(user, value);
        if (failed(stream))
          return failure();
        held.stream = *stream;
      } else if (isa<BaseMemRefType>(value.getType())) {
        held.buffer = bufferOf(value);
      }
      carried.push_back(held);
    }
    return success();
  }

  /// Makes `targets` (block arguments or results) hold what `carried` says.
  void bind(ValueRange targets, ArrayRef<Carried> carried) {
    for (auto [target, held] : llvm::zip(targets, carried)) {
      if (held.stream)
        tokenStream[target] = *held.stream;
      if (held.buffer)
        memrefBinding[target] = *held.buffer;
    }
  }

  /// How often the loop `loop` runs in this trace when its trip count is not
  /// known: twice or not at all, the same for every run of it in a trace.
  unsigned unknownTrips(Operation *loop) {
    auto [it, inserted] = loopTrips.try_emplace(loop, 0);
    if (inserted)
      it->second = choose(2) == 0 ? kLoopIterations : 0;
    return it->second;
  }

  LogicalResult runFor(scf::ForOp loop) {
    FailureOr<Block *> body = singleBlock(loop.getRegion());
    if (failed(body))
      return failure();
    // A known trip count runs as such (at most twice); an unknown one runs
    // twice in one trace and not at all in another.
    unsigned trips = kLoopIterations;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (lower && upper && step && *step > 0) {
      int64_t span = 0;
      if (*upper <= *lower)
        trips = 0;
      else if (!llvm::SubOverflow(*upper, *lower, span) && span <= *step)
        trips = 1;
    } else {
      trips = unknownTrips(loop);
    }

    // Tokens travel through iter_args as the streams they carry, memrefs as
    // the buffers they hold.
    SmallVector<Carried> carried;
    if (failed(collect(loop, loop.getInitArgs(), carried)))
      return failure();
    for (unsigned trip = 0; trip < trips; ++trip) {
      bind(loop.getRegionIterArgs(), carried);
      if (failed(runBlock(**body)))
        return failure();
      Operation *yield = (*body)->getTerminator();
      if (failed(collect(yield, yield->getOperands(), carried)))
        return failure();
    }
    bind(loop.getResults(), carried);
    return success();
  }

  /// The before region runs, and its scf.condition decides: the after region
  /// runs twice (or, for a condition known false, not at all) with the before
  /// region again after each run, or not at all, as for an scf.for.
  LogicalResult runWhile(scf::WhileOp loop) {
    FailureOr<Block *> before = singleBlock(loop.getBefore());
    if (failed(before))
      return failure();
    FailureOr<Block *> after = singleBlock(loop.getAfter());
    if (failed(after))
      return failure();
    if (!*before || !*after)
      return success();
    scf::ConditionOp condition = loop.getConditionOp();
    std::optional<int64_t> known =
        getConstantIntValue(condition.getCondition());
    unsigned trips = known && *known == 0 ? 0 : unknownTrips(loop);

    SmallVector<Carried> carried;
    if (failed(collect(loop, loop.getInits(), carried)))
      return failure();
    for (unsigned trip = 0;; ++trip) {
      bind(loop.getBeforeArguments(), carried);
      if (failed(runBlock(**before)))
        return failure();
      if (failed(collect(condition, condition.getArgs(), carried)))
        return failure();
      if (trip == trips)
        break;
      bind(loop.getAfterArguments(), carried);
      if (failed(runBlock(**after)))
        return failure();
      scf::YieldOp yield = loop.getYieldOp();
      if (failed(collect(yield, yield.getOperands(), carried)))
        return failure();
    }
    bind(loop.getResults(), carried);
    return success();
  }

  LogicalResult runIf(scf::IfOp branch) {
    Region &taken =
        choose(2) == 0 ? branch.getThenRegion() : branch.getElseRegion();
    return runYieldingRegion(taken, branch->getResults());
  }

  /// A switch on a known index takes its case; otherwise every case (and the
  /// default) is a choice.
  LogicalResult runIndexSwitch(scf::IndexSwitchOp cases) {
    ArrayRef<int64_t> values = cases.getCases();
    unsigned index = 0;
    if (std::optional<int64_t> known = getConstantIntValue(cases.getArg()))
      index = std::distance(values.begin(), llvm::find(values, *known));
    else
      index = choose(values.size() + 1);
    Region &taken = index == values.size() ? cases.getDefaultRegion()
                                           : cases.getCaseRegions()[index];
    return runYieldingRegion(taken, cases->getResults());
  }

  LogicalResult runExecuteRegion(scf::ExecuteRegionOp region) {
    return runYieldingRegion(region.getRegion(), region->getResults());
  }

  /// Runs the single block of `region` and binds `results` to what its
  /// terminator yields.
  LogicalResult runYieldingRegion(Region &region, ResultRange results) {
    FailureOr<Block *> body = singleBlock(region);
    if (failed(body))
      return failure();
    if (!*body)
      return success();
    if (failed(runBlock(**body)))
      return failure();
    Operation *terminator = (*body)->getTerminator();
    SmallVector<Carried> carried;
    if (failed(collect(terminator, terminator->getOperands(), carried)))
      return failure();
    bind(results, carried);
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Streams and events
  //===--------------------------------------------------------------------===//

  unsigned createStream(Operation *creator) {
    streams.push_back({creator, std::nullopt, nullptr});
    return streams.size() - 1;
  }

  /// gpu-to-llvm's events recorded right after `definer`, on `stream`.
  void recordEventsAfter(Operation *definer, unsigned stream) {
    auto it = eventsAfter.find(definer);
    if (it == eventsAfter.end())
      return;
    for (auto [join, operand] : it->second) {
      // A previous event of this join operand that was never destroyed is
      // lost here; the leak check at the return reports it.
      events.push_back({join, operand, definer, streams[stream].tail, false});
      currentEvent[{join, operand}] = events.size() - 1;
    }
  }

  unsigned addNode(Node node) {
    if (lastHost)
      node.predecessors.push_back(*lastHost);
    nodes.push_back(std::move(node));
    return nodes.size() - 1;
  }

  /// Device work on `stream`: after the host ops before it and the stream's
  /// earlier work.
  unsigned addDeviceNode(Node node, unsigned stream) {
    node.onDevice = true;
    if (streams[stream].tail)
      node.predecessors.push_back(*streams[stream].tail);
    unsigned index = addNode(std::move(node));
    streams[stream].tail = index;
    return index;
  }

  unsigned addHostNode(Node node) {
    unsigned index = addNode(std::move(node));
    lastHost = index;
    return index;
  }

  LogicalResult runWait(gpu::WaitOp wait) {
    ValueRange dependencies = wait.getAsyncDependencies();
    for (auto [index, dependency] : llvm::enumerate(dependencies))
      if (!isTraceableStream(dependency))
        return wait.emitOpError("dependency #")
               << index
               << " is not traceable to a stream made by gpu.wait async (it "
                  "is a block argument, a loop-carried value or a region "
                  "result): gpu-to-llvm would pass it as an event to "
               << (wait.getAsyncToken() ? "mgpuStreamWaitEvent"
                                        : "mgpuEventSynchronize")
               << " and mgpuEventDestroy";

    if (wait.getAsyncToken()) {
      // A join (or a new stream): a new stream that waits on an event per
      // dependency, each recorded after the dependency's defining op.
      unsigned stream = createStream(wait);
      if (!dependencies.empty()) {
        Node node;
        node.op = wait;
        for (unsigned index = 0; index < dependencies.size(); ++index) {
          auto it = currentEvent.find({wait.getOperation(), index});
          Operation *definer = dependencies[index].getDefiningOp();
          if (it == currentEvent.end())
            return wait.emitOpError("dependency #")
                   << index
                   << ": --vyre-verify-gpu-streams found no event recorded "
                      "for it";
          CudaEvent &event = events[it->second];
          if (event.destroyed) {
            report(Kind::EventReused, wait, definer, index,
                   "dependency #" + std::to_string(index) +
                       ": waits on and destroys an event that an earlier "
                       "execution of this join already destroyed (gpu-to-llvm "
                       "records it once, after the op that defined the "
                       "token, outside the region that repeats the join)",
                   "the event is recorded after this op");
            continue;
          }
          event.destroyed = true;
          if (event.recorded)
            node.predecessors.push_back(*event.recorded);
        }
        addDeviceNode(std::move(node), stream);
      }
      tokenStream[wait.getAsyncToken()] = stream;
      recordEventsAfter(wait, stream);
      return success();
    }

    // A blocking wait: synchronize and destroy the stream of each token.
    if (dependencies.empty())
      return success();
    Node node;
    node.op = wait;
    for (auto [index, dependency] : llvm::enumerate(dependencies)) {
      FailureOr<unsigned> stream = streamOf(wait, dependency);
      if (failed(stream))
        return failure();
      Stream &state = streams[*stream];
      if (state.destroyer) {
        bool self = state.destroyer == wait.getOperation();
        report(Kind::StreamDestroyedTwice, wait,
               self ? nullptr : state.destroyer, index,
               "token #" + std::to_string(index) +
                   (self ? " names a stream an earlier token of this wait "
                           "already names: the stream is destroyed twice"
                         : " names a stream that is already destroyed: it is "
                           "synchronized and destroyed again"),
               "the stream is destroyed here");
      }
      // Model the synchronization all the same, so one mistake does not
      // leave everything after it unfinished.
      if (state.tail)
        node.predecessors.push_back(*state.tail);
      if (!state.destroyer)
        state.destroyer = wait;
    }
    addHostNode(std::move(node));
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Device ops
  //===--------------------------------------------------------------------===//

  /// The buffer `value` holds now: views resolve to what they view, and an
  /// iter_arg or a region result to the buffer bound to it in this trace.
  /// Anything else is its own root (an unknown one may alias everything).
  Buffer bufferOf(Value value) {
    Value root = resolveRoot(value);
    auto bound = memrefBinding.find(root);
    if (bound != memrefBinding.end())
      return bound->second;
    Buffer buffer;
    buffer.root = root;
    buffer.instance = bufferInstance.lookup(root);
    return buffer;
  }

  static Buffer everything() {
    Buffer buffer;
    buffer.everything = true;
    return buffer;
  }

  /// What a launch touches: each operand as its kernel uses it.
  void launchAccesses(gpu::LaunchFuncOp launch, Node &node) {
    const SmallVector<ArgumentUse> *uses = kernels.lookup(launch);
    for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
      if (isPlainData(operand.getType()))
        continue;
      if (!isa<BaseMemRefType>(operand.getType())) {
        // A pointer or anything else: it may point anywhere.
        node.accesses.push_back({everything(), true});
        continue;
      }
      ArgumentUse use = uses ? (*uses)[index] : ArgumentUse{true, true};
      if (use.read)
        node.accesses.push_back({bufferOf(operand), false});
      if (use.write)
        node.accesses.push_back({bufferOf(operand), true});
    }
  }

  LogicalResult runDeviceOp(Operation *op) {
    auto async = cast<gpu::AsyncOpInterface>(op);
    ValueRange dependencies = async.getAsyncDependencies();
    Value token = async.getAsyncToken();
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (launch && launch.getAsyncObject())
      return op->emitOpError("launches on an explicit stream object, which "
                             "--vyre-verify-gpu-streams does not model");
    if (!token && launch && !dependencies.empty())
      return op->emitOpError("is synchronous but has async dependencies, which "
                             "--vyre-verify-gpu-streams does not model");
    if (!token && !launch)
      return op->emitOpError(
          "is not async: gpu-to-llvm leaves it unconverted (it lowers "
          "gpu.memcpy, gpu.memset, gpu.alloc and gpu.dealloc only in their "
          "async form with one dependency)");
    if (dependencies.size() > 1)
      return op->emitOpError("has ")
             << dependencies.size()
             << " async dependencies: gpu-to-llvm lowers one at most "
                "(gpu.launch_func fails to legalize, the others are left "
                "unconverted); join them first with gpu.wait async";
    if (dependencies.empty() && !launch)
      return op->emitOpError(
          "is async without a dependency: gpu-to-llvm leaves it unconverted; "
          "give it the token of a stream");

    Node node;
    node.op = op;
    TypeSwitch<Operation *>(op)
        .Case([&](gpu::LaunchFuncOp launch) { launchAccesses(launch, node); })
        .Case([&](gpu::MemcpyOp copy) {
          node.accesses.push_back({bufferOf(copy.getSrc()), false});
          node.accesses.push_back({bufferOf(copy.getDst()), true});
        })
        .Case([&](gpu::MemsetOp set) {
          node.accesses.push_back({bufferOf(set.getDst()), true});
        })
        .Case([&](gpu::AllocOp alloc) {
          bufferInstance[alloc.getMemref()] = nextInstance++;
          node.allocates = bufferOf(alloc.getMemref());
        })
        .Case([&](gpu::DeallocOp dealloc) {
          Buffer freed = bufferOf(dealloc.getMemref());
          node.frees = freed;
          node.accesses.push_back({freed, true});
        });

    if (!token) {
      // A synchronous launch: on a stream of its own, which the host
      // synchronizes and destroys right after.
      unsigned stream = createStream(op);
      streams[stream].destroyer = op;
      unsigned index = addDeviceNode(std::move(node), stream);
      Node done;
      done.op = op;
      done.predecessors.push_back(index);
      addHostNode(std::move(done));
      return success();
    }

    unsigned stream;
    if (dependencies.empty()) {
      stream = createStream(op);
    } else {
      FailureOr<unsigned> found = streamOf(op, dependencies.front());
      if (failed(found))
        return failure();
      stream = *found;
      if (Operation *destroyer = streams[stream].destroyer)
        report(Kind::StreamReused, op, destroyer, 0,
               "enqueues work on a stream that is already destroyed",
               "the stream is destroyed here, before the work is enqueued");
    }
    addDeviceNode(std::move(node), stream);
    tokenStream[token] = stream;
    recordEventsAfter(op, stream);
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Host ops
  //===--------------------------------------------------------------------===//

  /// A host op touches what its memory effects say: an effect on something
  /// other than a memref, an op without declared effects, or a call, touch
  /// everything.
  void runHostOp(Operation *op) {
    Node node;
    node.op = op;
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects;
    if (!isa<CallOpInterface>(op))
      effects = getEffectsRecursively(op);
    if (!effects) {
      node.accesses.push_back({everything(), true});
    } else {
      for (const MemoryEffects::EffectInstance &instance : *effects) {
        Value value = instance.getValue();
        if (isa<MemoryEffects::Allocate>(instance.getEffect())) {
          if (value && value.getDefiningOp() == op)
            bufferInstance[value] = nextInstance++;
          continue;
        }
        bool write = !isa<MemoryEffects::Read>(instance.getEffect());
        if (!value) {
          if (!isa<SideEffects::AutomaticAllocationScopeResource>(
                  instance.getResource()))
            node.accesses.push_back({everything(), write});
          continue;
        }
        if (isa<BaseMemRefType>(value.getType()))
          node.accesses.push_back({bufferOf(value), write});
        else
          node.accesses.push_back({everything(), write});
      }
    }
    if (!node.accesses.empty())
      addHostNode(std::move(node));
  }

  /// `gpu.host_register` and `gpu.host_unregister` declare no memory
  /// effects. Pinning changes how its operand's buffer may be used (a copy
  /// from it may be in flight), not other buffers: each is a host write of
  /// its operand's buffer only.
  void runPinning(Operation *op) {
    Node node;
    node.op = op;
    node.accesses.push_back({bufferOf(op->getOperand(0)), true});
    addHostNode(std::move(node));
  }

  LogicalResult runReturn() {
    if (llvm::any_of(returnOp->getOperandTypes(),
                     llvm::IsaPred<gpu::AsyncTokenType>))
      return returnOp->emitOpError(
          "returns a !gpu.async.token, whose stream "
          "--vyre-verify-gpu-streams cannot follow past the function");
    Node node;
    node.op = returnOp;
    returnNode = addHostNode(std::move(node));
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Checking
  //===--------------------------------------------------------------------===//

  RootKind kindOf(Value root) {
    if (auto argument = dyn_cast<BlockArgument>(root))
      return argument.getOwner() == &function.getFunctionBody().front()
                 ? RootKind::Argument
                 : RootKind::Unknown;
    if (isa<gpu::AllocOp>(root.getDefiningOp()))
      return RootKind::Fresh;
    auto effects = root.getDefiningOp<MemoryEffectOpInterface>();
    if (effects && effects.getEffectOnValue<MemoryEffects::Allocate>(root))
      return RootKind::Fresh;
    return RootKind::Unknown;
  }

  bool isNoAlias(Value argument) {
    auto blockArgument = cast<BlockArgument>(argument);
    return static_cast<bool>(
        function.getArgAttr(blockArgument.getArgNumber(), "llvm.noalias"));
  }

  bool mayAlias(const Buffer &lhs, const Buffer &rhs) {
    if (lhs.everything || rhs.everything)
      return true;
    if (lhs.root == rhs.root)
      return lhs.instance == rhs.instance;
    RootKind lhsKind = kindOf(lhs.root), rhsKind = kindOf(rhs.root);
    if (lhsKind == RootKind::Unknown || rhsKind == RootKind::Unknown)
      return true;
    if (lhsKind == RootKind::Fresh || rhsKind == RootKind::Fresh)
      return false;
    return !isNoAlias(lhs.root) && !isNoAlias(rhs.root);
  }

  std::string describeBuffer(const Buffer &lhs, const Buffer &rhs) {
    const Buffer &named = lhs.everything ? rhs : lhs;
    if (named.everything)
      return "any buffer";
    if (auto argument = dyn_cast<BlockArgument>(named.root)) {
      if (kindOf(named.root) == RootKind::Argument)
        return "argument #" + std::to_string(argument.getArgNumber());
      return "a buffer";
    }
    return "the buffer of " + describeOp(named.root.getDefiningOp());
  }

  enum class Kind {
    Race,
    UseBeforeAlloc,
    UseAfterFree,
    Unfinished,
    StreamLeak,
    EventLeak,
    EventReused,
    StreamReused,
    StreamDestroyedTwice,
  };

  /// Reports once per kind and pair of ops, whichever trace finds it.
  void report(Kind kind, Operation *at, Operation *noteAt, unsigned detail,
              const Twine &message, const Twine &note) {
    reportedAny = true;
    if (!reported.insert({static_cast<unsigned>(kind), at, noteAt, detail})
             .second)
      return;
    InFlightDiagnostic diagnostic = at->emitError(message);
    if (noteAt)
      diagnostic.attachNote(noteAt->getLoc()) << note;
  }

  void check() {
    unsigned count = nodes.size();
    // Nodes are in issue order and every edge points back: one sweep
    // computes everything before each node.
    std::vector<llvm::BitVector> before(count, llvm::BitVector(count));
    for (unsigned index = 0; index < count; ++index)
      for (unsigned predecessor : nodes[index].predecessors) {
        before[index] |= before[predecessor];
        before[index].set(predecessor);
      }

    // Buffers from gpu.alloc async, and where they were made.
    SmallVector<std::pair<Buffer, unsigned>> allocations;
    for (unsigned index = 0; index < count; ++index)
      if (nodes[index].allocates)
        allocations.push_back({*nodes[index].allocates, index});

    for (unsigned later = 0; later < count; ++later) {
      const Node &second = nodes[later];
      for (const Access &access : second.accesses) {
        if (access.buffer.everything)
          continue;
        for (auto [buffer, allocation] : allocations)
          if (buffer.root == access.buffer.root &&
              buffer.instance == access.buffer.instance &&
              !before[later].test(allocation))
            report(Kind::UseBeforeAlloc, second.op, nodes[allocation].op, 0,
                   "uses a buffer from 'gpu.alloc async' but is not ordered "
                   "after the alloc",
                   "the alloc");
      }
      for (unsigned earlier = 0; earlier < later; ++earlier) {
        const Node &first = nodes[earlier];
        bool ordered = before[later].test(earlier);
        if (ordered && first.frees) {
          for (const Access &access : second.accesses)
            if (!access.buffer.everything &&
                access.buffer.root == first.frees->root &&
                access.buffer.instance == first.frees->instance)
              report(Kind::UseAfterFree, second.op, first.op, 0,
                     "uses a buffer after its 'gpu.dealloc'", "the dealloc");
        }
        if (ordered)
          continue;
        for (const Access &lhs : first.accesses)
          for (const Access &rhs : second.accesses) {
            if (!(lhs.write || rhs.write) || !mayAlias(lhs.buffer, rhs.buffer))
              continue;
            std::string where = describeBuffer(lhs.buffer, rhs.buffer);
            if (first.op == second.op)
              report(Kind::Race, second.op, nullptr, 0,
                     "race on " + where + ": two executions of " +
                         describeOp(second.op) + " are not ordered",
                     "");
            else
              report(Kind::Race, second.op, first.op, 0,
                     "race on " + where + ": " + describeOp(second.op) +
                         " and the earlier " + describeOp(first.op) +
                         " are not ordered",
                     "the earlier op");
          }
      }
    }

    // Work not done by the return.
    for (unsigned index = 0; index < count; ++index)
      if (nodes[index].onDevice && !isa<gpu::WaitOp>(nodes[index].op) &&
          !before[returnNode].test(index))
        report(Kind::Unfinished, nodes[index].op, returnOp, 0,
               "may still be running at the return: no blocking gpu.wait "
               "synchronizes its stream after it",
               "the return");

    for (const Stream &stream : streams)
      if (!stream.destroyer)
        report(Kind::StreamLeak, stream.creator, returnOp, 0,
               "creates a stream that is still alive at the return: no "
               "blocking gpu.wait destroys it (a join does not destroy the "
               "streams it waits on)",
               "the stream is still alive at this return");

    for (const CudaEvent &event : events)
      if (!event.destroyed)
        report(Kind::EventLeak, event.join, event.definer, event.operand,
               "dependency #" + std::to_string(event.operand) +
                   ": gpu-to-llvm creates an event after the op that defines "
                   "it, and this join does not run to destroy it",
               "the event is created after this op");
  }

  FunctionOpInterface function;
  KernelSummaries &kernels;
  Operation *returnOp = nullptr;

  /// For each op that defines a traceable join dependency: the joins and
  /// operand numbers whose events gpu-to-llvm records right after it.
  llvm::MapVector<Operation *, SmallVector<std::pair<Operation *, unsigned>>>
      eventsAfter;

  /// The choices of the current trace.
  SmallVector<unsigned> choices, arities;
  unsigned cursor = 0;

  /// The current trace.
  std::vector<Node> nodes;
  SmallVector<Stream> streams;
  SmallVector<CudaEvent> events;
  DenseMap<std::pair<Operation *, unsigned>, unsigned> currentEvent;
  DenseMap<Value, unsigned> tokenStream;
  DenseMap<Value, unsigned> bufferInstance;
  /// The buffer each block argument or region result of an unfolded region
  /// op holds now (bound like tokens, to what flows into it).
  DenseMap<Value, Buffer> memrefBinding;
  DenseMap<Operation *, unsigned> loopTrips;
  std::optional<unsigned> lastHost;
  unsigned returnNode = 0;
  unsigned nextInstance = 1;

  /// What was reported, once each across traces.
  std::set<std::tuple<unsigned, Operation *, Operation *, unsigned>> reported;
  bool reportedAny = false;
  /// The most traces (combinations of branches and loop trip counts) checked
  /// per function.
  unsigned maxTraces;
};

struct VerifyGPUStreamsPass
    : public vyre::impl::VerifyGPUStreamsPassBase<VerifyGPUStreamsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Host functions, in order; kernels live in gpu.module ops.
    SmallVector<FunctionOpInterface> functions;
    getOperation()->walk([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto function = dyn_cast<FunctionOpInterface>(op))
        if (!function.isExternal())
          functions.push_back(function);
      return WalkResult::advance();
    });

    KernelSummaries kernels;
    bool clean = true;
    for (FunctionOpInterface function : functions) {
      if (!holdsGPUWork(function))
        continue;
      Region &body = function.getFunctionBody();
      if (!body.hasOneBlock()) {
        function->emitOpError(
            "holds gpu work in a body of several blocks, which "
            "--vyre-verify-gpu-streams cannot unfold");
        clean = false;
        continue;
      }
      StreamChecker checker(function, kernels, maxTraces);
      if (failed(checker.run()))
        clean = false;
    }
    if (!clean)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
