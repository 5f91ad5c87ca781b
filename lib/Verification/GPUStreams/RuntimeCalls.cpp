//===- RuntimeCalls.cpp - mgpu calls the host code makes itself -----------===//
//
// Part of --vyre-verify-gpu-streams. Host code may call the runtime's stream
// and event functions itself, with a token cast to the `!llvm.ptr` that
// gpu-to-llvm makes of it (`unrealized_conversion_cast`): --convert-vyre-to-
// gpu does so for the loops whose iterations it chains on the device. The
// model follows them as CUDA runs them:
//  - a cast of such a pointer back to a token continues that stream: an op
//    whose dependency it is runs on it (gpu-to-llvm folds the two casts).
//    It is not traceable to a stream creation: a join that names it is an
//    error;
//  - `mgpuEventCreate` makes an event, which `!llvm.ptr` values (iter_args,
//    yields, results) carry;
//  - `mgpuEventRecord(e, s)` records e after the work enqueued on s so far;
//  - `mgpuStreamWaitEvent(s, e)` makes s's later work wait for that work;
//  - `mgpuEventSynchronize(e)` makes the host wait for it;
//  - `mgpuEventDestroy(e)` destroys e: later uses are errors;
//  - `mgpuStreamSynchronize(s)` makes the host wait for s's work;
//  - `mgpuStreamDestroy(s)` destroys s without the host waiting: later work
//    on s is an error, and its work must still be ordered before the return
//    by other means;
//  - `vyreMemcpy2DAsync(dst, ..., src, ..., s)` (a tile copy) is device
//    work on s that reads the view `src` is the first element of and writes
//    the one `dst` is; the pointer it returns is s.
//
//===----------------------------------------------------------------------===//

#include "ContiguousAlias.h"
#include "TraceInterpreter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

bool TraceInterpreter::isModelledRuntimeOp(Operation *op) {
  if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op)) {
    if (cast->getNumOperands() != 1 || cast->getNumResults() != 1)
      return false;
    Type from = cast->getOperand(0).getType();
    Type to = cast->getResult(0).getType();
    return (isa<gpu::AsyncTokenType>(from) && isa<LLVM::LLVMPointerType>(to)) ||
           (isa<LLVM::LLVMPointerType>(from) && isa<gpu::AsyncTokenType>(to));
  }
  return isModelledRuntimeCall(op);
}

FailureOr<unsigned> TraceInterpreter::streamOfPointer(Operation *user,
                                                      Value pointer) {
  auto it = pointerStream.find(pointer);
  if (it == pointerStream.end())
    return user->emitOpError("passes a pointer --vyre-verify-gpu-streams "
                             "cannot trace to a token's stream");
  return it->second;
}

FailureOr<unsigned> TraceInterpreter::eventOfPointer(Operation *user,
                                                     Value pointer) {
  auto it = eventOf.find(pointer);
  if (it == eventOf.end())
    return user->emitOpError("passes a pointer --vyre-verify-gpu-streams "
                             "cannot trace to an mgpuEventCreate");
  return it->second;
}

LogicalResult TraceInterpreter::runRuntimeOp(Operation *op) {
  if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op)) {
    if (isa<gpu::AsyncTokenType>(cast->getResult(0).getType())) {
      FailureOr<unsigned> stream = streamOfPointer(op, cast->getOperand(0));
      if (failed(stream))
        return failure();
      if (Operation *destroyer = trace.getStream(*stream).destroyer)
        reporter.report(ProblemKind::StreamReused, op, destroyer, 0,
                        "continues a stream that is already destroyed",
                        "the stream is destroyed here");
      tokenStream[cast->getResult(0)] = *stream;
      return success();
    }
    FailureOr<unsigned> stream = streamOf(op, cast->getOperand(0));
    if (failed(stream))
      return failure();
    pointerStream[cast->getResult(0)] = *stream;
    return success();
  }
  auto call = cast<LLVM::CallOp>(op);
  StringRef callee = *call.getCallee();
  ValueRange operands = call.getArgOperands();
  if (callee == "mgpuEventCreate") {
    eventOf[call.getResult()] = trace.createExplicitEvent(op);
    return success();
  }
  // The event operand, and a report if it is destroyed already.
  auto liveEvent = [&](Value pointer) -> FailureOr<ExplicitEvent *> {
    FailureOr<unsigned> id = eventOfPointer(op, pointer);
    if (failed(id))
      return failure();
    ExplicitEvent &event = trace.getExplicitEvent(*id);
    if (event.destroyer)
      reporter.report(ProblemKind::EventReused, op, event.destroyer, 0,
                      "uses an event that is already destroyed",
                      "the event is destroyed here");
    return &event;
  };
  auto liveStream = [&](Value pointer) -> FailureOr<unsigned> {
    FailureOr<unsigned> stream = streamOfPointer(op, pointer);
    if (failed(stream))
      return failure();
    if (Operation *destroyer = trace.getStream(*stream).destroyer)
      reporter.report(ProblemKind::StreamReused, op, destroyer, 0,
                      "uses a stream that is already destroyed",
                      "the stream is destroyed here");
    return stream;
  };
  if (callee == "mgpuEventRecord") {
    FailureOr<ExplicitEvent *> event = liveEvent(operands[0]);
    FailureOr<unsigned> stream = liveStream(operands[1]);
    if (failed(event) || failed(stream))
      return failure();
    (*event)->recorded = trace.getStream(*stream).tail;
    return success();
  }
  if (callee == "mgpuStreamWaitEvent") {
    FailureOr<unsigned> stream = liveStream(operands[0]);
    FailureOr<ExplicitEvent *> event = liveEvent(operands[1]);
    if (failed(event) || failed(stream))
      return failure();
    Node node;
    node.op = op;
    if ((*event)->recorded)
      node.predecessors.push_back(*(*event)->recorded);
    trace.addDeviceNode(std::move(node), *stream);
    return success();
  }
  if (callee == "mgpuEventSynchronize") {
    FailureOr<ExplicitEvent *> event = liveEvent(operands[0]);
    if (failed(event))
      return failure();
    Node node;
    node.op = op;
    if ((*event)->recorded)
      node.predecessors.push_back(*(*event)->recorded);
    trace.addHostNode(std::move(node));
    return success();
  }
  if (callee == "mgpuEventDestroy") {
    FailureOr<ExplicitEvent *> event = liveEvent(operands[0]);
    if (failed(event))
      return failure();
    if (!(*event)->destroyer)
      (*event)->destroyer = op;
    return success();
  }
  if (callee == "vyreMemcpy2DAsync") {
    FailureOr<unsigned> stream = liveStream(operands[6]);
    if (failed(stream))
      return failure();
    Value target = viewBehindPointer(operands[0]);
    Value source = viewBehindPointer(operands[2]);
    if (!target || !source)
      return op->emitOpError("copies a tile from or to a pointer "
                             "--vyre-verify-gpu-streams cannot trace to a "
                             "memref's first element");
    Node node;
    node.op = op;
    node.accesses.push_back({bufferOf(source), false, source});
    node.accesses.push_back({bufferOf(target), true, target});
    trace.addDeviceNode(std::move(node), *stream);
    pointerStream[call.getResult()] = *stream;
    return success();
  }
  if (callee == "mgpuStreamSynchronize") {
    FailureOr<unsigned> stream = liveStream(operands[0]);
    if (failed(stream))
      return failure();
    Node node;
    node.op = op;
    if (std::optional<unsigned> tail = trace.getStream(*stream).tail)
      node.predecessors.push_back(*tail);
    trace.addHostNode(std::move(node));
    return success();
  }
  // mgpuStreamDestroy: no host wait.
  FailureOr<unsigned> stream = streamOfPointer(op, operands[0]);
  if (failed(stream))
    return failure();
  Stream &state = trace.getStream(*stream);
  if (state.destroyer)
    reporter.report(ProblemKind::StreamDestroyedTwice, op, state.destroyer, 0,
                    "destroys a stream that is already destroyed",
                    "the stream is destroyed here");
  else
    state.destroyer = op;
  return success();
}
