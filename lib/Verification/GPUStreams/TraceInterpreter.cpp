//===- TraceInterpreter.cpp - gpu ops and host ops, run into the trace ----===//
//
// Each op adds its step to the trace as gpu-to-llvm lowers it: a join makes a
// stream that waits on the events recorded for its dependencies, an async op
// runs on the stream of its dependency, a blocking wait synchronizes and
// destroys streams, and a host op touches what its memory effects say.
//
//===----------------------------------------------------------------------===//

#include "TraceInterpreter.h"

#include "ContiguousAlias.h"
#include "GPUWork.h"

#include "vyre/Analysis/HostEffects.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

/// The view a copy operand names: the view behind the lowering's
/// identity-layout aliases of it.
static Value viewOf(Value value) {
  while (Value aliased = viewBehindAlias(value))
    value = aliased;
  return value;
}

/// Whether `type` is plain data: a kernel operand of this type touches no
/// buffer.
static bool isPlainData(Type type) {
  return isa<IntegerType, IndexType, FloatType, VectorType, ComplexType>(type);
}

LogicalResult TraceInterpreter::runBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    if (failed(runOp(&op)))
      return failure();
    if (trace.getNodes().size() > maxNodes) {
      // Named by its location alone: printing a nest of loops would bury
      // the message.
      Operation *culprit = outermostRegionOp ? outermostRegionOp : &op;
      outermostRegionOp = nullptr;
      InFlightDiagnostic diagnostic = emitError(culprit->getLoc());
      diagnostic << "'" << culprit->getName() << "' op ";
      if (culprit->getNumRegions())
        diagnostic << "unfolds to";
      else
        diagnostic << "brings the trace to";
      diagnostic << " more than max-trace-nodes=" << maxNodes
                 << " nodes of --vyre-verify-gpu-streams";
      if (culprit->getNumRegions())
        diagnostic << " (a loop body runs twice in a trace, so each level "
                      "of nesting doubles it where repeats-once does not "
                      "shorten the loop's later runs)";
      return diagnostic;
    }
  }
  return success();
}

LogicalResult TraceInterpreter::runOp(Operation *op) {
  if (isa<scf::ForOp, scf::IfOp, scf::ExecuteRegionOp, scf::WhileOp,
          scf::IndexSwitchOp>(op) &&
      needsUnfolding(op))
  {
    bool outermost = !outermostRegionOp;
    if (outermost)
      outermostRegionOp = op;
    LogicalResult result = runRegionOp(op);
    if (outermost)
      outermostRegionOp = nullptr;
    return result;
  }
  if (auto wait = dyn_cast<gpu::WaitOp>(op))
    return runWait(wait);
  if (isModelledRuntimeOp(op))
    return runRuntimeOp(op);
  // Managed memory is allocated by the host, synchronously (gpu-to-llvm
  // lowers no other form): a host op that makes a buffer.
  if (auto alloc = dyn_cast<gpu::AllocOp>(op); alloc && alloc.getHostShared()) {
    if (alloc.getAsyncToken() || !alloc.getAsyncDependencies().empty())
      return op->emitOpError(
          "is an asynchronous host_shared allocation: gpu-to-llvm lowers "
          "only the synchronous form");
    runHostOp(op);
    return success();
  }
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
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<gpu::AsyncTokenType>))
      return op->emitOpError(
          "passes a !gpu.async.token, which --vyre-verify-gpu-streams "
          "cannot follow");
  }
  runHostOp(op);
  return success();
}

FailureOr<unsigned> TraceInterpreter::streamOf(Operation *user, Value token) {
  auto it = tokenStream.find(token);
  if (it == tokenStream.end())
    return user->emitOpError(
        "uses a token --vyre-verify-gpu-streams cannot resolve");
  return it->second;
}

/// Views resolve to what they view (a `memref.view` at a constant offset to
/// its bytes of it), and an iter_arg or a region result to the buffer bound
/// to it in this trace. Anything else is its own root (an
/// unknown one may alias everything).
Buffer TraceInterpreter::bufferOf(Value value) {
  Value root = rootBehindViews(value);
  std::optional<std::pair<int64_t, int64_t>> bytes = bytesWithinRoot(value);
  auto bound = memrefBinding.find(root);
  if (bound != memrefBinding.end()) {
    Buffer buffer = bound->second;
    // Bytes of the bound buffer's bytes, if it has a range.
    if (bytes) {
      int64_t base = buffer.bytes ? buffer.bytes->first : 0;
      buffer.bytes = {base + bytes->first, base + bytes->second};
    }
    return buffer;
  }
  Buffer buffer;
  buffer.root = root;
  buffer.instance = bufferInstance.lookup(root);
  buffer.bytes = bytes;
  return buffer;
}

//===----------------------------------------------------------------------===//
// Waits
//===----------------------------------------------------------------------===//

LogicalResult TraceInterpreter::runWait(gpu::WaitOp wait) {
  for (auto [index, dependency] : llvm::enumerate(wait.getAsyncDependencies()))
    if (!traceable.contains(dependency))
      return wait.emitOpError("dependency #")
             << index
             << " is not traceable to a stream made by gpu.wait async (it "
                "is a block argument, a loop-carried value or a region "
                "result): gpu-to-llvm would pass it as an event to "
             << (wait.getAsyncToken() ? "mgpuStreamWaitEvent"
                                      : "mgpuEventSynchronize")
             << " and mgpuEventDestroy";
  if (wait.getAsyncToken())
    return runJoin(wait);
  return runBlockingWait(wait);
}

/// A join (or a new stream): a new stream that waits on an event per
/// dependency, each recorded after the dependency's defining op.
LogicalResult TraceInterpreter::runJoin(gpu::WaitOp wait) {
  ValueRange dependencies = wait.getAsyncDependencies();
  unsigned stream = trace.createStream(wait);
  if (!dependencies.empty()) {
    Node node;
    node.op = wait;
    for (unsigned index = 0; index < dependencies.size(); ++index) {
      CudaEvent *event = trace.findCurrentEvent(wait, index);
      Operation *definer = dependencies[index].getDefiningOp();
      if (!event)
        return wait.emitOpError("dependency #")
               << index
               << ": --vyre-verify-gpu-streams found no event recorded "
                  "for it";
      if (event->destroyed) {
        reporter.report(
            ProblemKind::EventReused, wait, definer, index,
            "dependency #" + std::to_string(index) +
                ": waits on and destroys an event that an earlier "
                "execution of this join already destroyed (gpu-to-llvm "
                "records it once, after the op that defined the "
                "token, outside the region that repeats the join)",
            "the event is recorded after this op");
        continue;
      }
      event->destroyed = true;
      if (event->recorded)
        node.predecessors.push_back(*event->recorded);
    }
    trace.addDeviceNode(std::move(node), stream);
  }
  tokenStream[wait.getAsyncToken()] = stream;
  trace.recordEventsAfter(wait, stream);
  return success();
}

/// A blocking wait: synchronize and destroy the stream of each token.
LogicalResult TraceInterpreter::runBlockingWait(gpu::WaitOp wait) {
  ValueRange dependencies = wait.getAsyncDependencies();
  if (dependencies.empty())
    return success();
  Node node;
  node.op = wait;
  for (auto [index, dependency] : llvm::enumerate(dependencies)) {
    FailureOr<unsigned> stream = streamOf(wait, dependency);
    if (failed(stream))
      return failure();
    Stream &state = trace.getStream(*stream);
    if (state.destroyer) {
      bool self = state.destroyer == wait.getOperation();
      reporter.report(
          ProblemKind::StreamDestroyedTwice, wait,
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
  trace.addHostNode(std::move(node));
  return success();
}

//===----------------------------------------------------------------------===//
// Device ops
//===----------------------------------------------------------------------===//

/// What a launch touches: each operand as its kernel uses it.
void TraceInterpreter::launchAccesses(gpu::LaunchFuncOp launch, Node &node) {
  const SmallVector<ArgumentUse> *uses = kernels.lookup(launch);
  for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
    if (isPlainData(operand.getType()))
      continue;
    if (!isa<BaseMemRefType>(operand.getType())) {
      // A pointer or anything else: it may point anywhere.
      node.accesses.push_back({anyBuffer(), true});
      continue;
    }
    ArgumentUse use = uses ? (*uses)[index] : ArgumentUse{true, true};
    if (use.read)
      node.accesses.push_back({bufferOf(operand), false});
    if (use.write)
      node.accesses.push_back({bufferOf(operand), true});
  }
}

/// Whether gpu-to-llvm lowers the device op `op` as the model has it; an
/// error where it does not.
LogicalResult TraceInterpreter::checkDeviceOp(Operation *op) {
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
  return success();
}

LogicalResult TraceInterpreter::runDeviceOp(Operation *op) {
  if (failed(checkDeviceOp(op)))
    return failure();
  auto async = cast<gpu::AsyncOpInterface>(op);
  ValueRange dependencies = async.getAsyncDependencies();
  Value token = async.getAsyncToken();

  Node node;
  node.op = op;
  TypeSwitch<Operation *>(op)
      .Case([&](gpu::LaunchFuncOp launch) { launchAccesses(launch, node); })
      .Case([&](gpu::MemcpyOp copy) {
        node.accesses.push_back(
            {bufferOf(copy.getSrc()), false, viewOf(copy.getSrc())});
        node.accesses.push_back(
            {bufferOf(copy.getDst()), true, viewOf(copy.getDst())});
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
    unsigned stream = trace.createStream(op);
    trace.getStream(stream).destroyer = op;
    unsigned index = trace.addDeviceNode(std::move(node), stream);
    Node done;
    done.op = op;
    done.predecessors.push_back(index);
    trace.addHostNode(std::move(done));
    return success();
  }

  unsigned stream;
  if (dependencies.empty()) {
    stream = trace.createStream(op);
  } else {
    FailureOr<unsigned> found = streamOf(op, dependencies.front());
    if (failed(found))
      return failure();
    stream = *found;
    if (Operation *destroyer = trace.getStream(stream).destroyer)
      reporter.report(
          ProblemKind::StreamReused, op, destroyer, 0,
          "enqueues work on a stream that is already destroyed",
          "the stream is destroyed here, before the work is enqueued");
  }
  trace.addDeviceNode(std::move(node), stream);
  tokenStream[token] = stream;
  trace.recordEventsAfter(op, stream);
  return success();
}

//===----------------------------------------------------------------------===//
// Host ops
//===----------------------------------------------------------------------===//

/// A host op touches what its memory effects say: an effect on something
/// other than a memref, an op without declared effects, or a call without
/// `vyre.effects` on its callee, touch everything.
void TraceInterpreter::runHostOp(Operation *op) {
  Node node;
  node.op = op;
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      vyre::collectHostEffects(op);
  if (!effects) {
    node.accesses.push_back({anyBuffer(), true});
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
          node.accesses.push_back({anyBuffer(), write});
        continue;
      }
      if (isa<BaseMemRefType>(value.getType()))
        node.accesses.push_back({bufferOf(value), write});
      else
        node.accesses.push_back({anyBuffer(), write});
    }
  }
  if (!node.accesses.empty())
    trace.addHostNode(std::move(node));
}

/// `gpu.host_register` and `gpu.host_unregister` declare no memory
/// effects. Pinning changes how its operand's buffer may be used (a copy
/// from it may be in flight), not other buffers: each is a host write of
/// its operand's buffer only.
void TraceInterpreter::runPinning(Operation *op) {
  Node node;
  node.op = op;
  node.accesses.push_back({bufferOf(op->getOperand(0)), true});
  trace.addHostNode(std::move(node));
}

FailureOr<unsigned> TraceInterpreter::runReturn(Operation *returnOp) {
  if (llvm::any_of(returnOp->getOperandTypes(),
                   llvm::IsaPred<gpu::AsyncTokenType>))
    return returnOp->emitOpError(
        "returns a !gpu.async.token, whose stream "
        "--vyre-verify-gpu-streams cannot follow past the function");
  Node node;
  node.op = returnOp;
  return trace.addHostNode(std::move(node));
}
