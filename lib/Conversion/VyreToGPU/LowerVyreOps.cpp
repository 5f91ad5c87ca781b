//===- LowerVyreOps.cpp - Each vyre op onto gpu streams ---------*- C++ -*-===//
//
// Allocations, deallocations, dispatches and blocking copies run on the main
// stream; an async copy runs on its side stream; `vyre.record` names the
// main stream's tail, `vyre.wait` joins the main stream with tokens, and
// `vyre.sync` makes the host wait for them.
//
//===----------------------------------------------------------------------===//

#include "VyreToGPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::vyre_to_gpu;

LogicalResult VyreToGPULowering::lowerOp(Operation *op, StreamState &state) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](AllocOp alloc) {
        lowerAlloc(alloc, state);
        return success();
      })
      .Case([&](DeallocOp dealloc) {
        lowerDealloc(dealloc, state);
        return success();
      })
      .Case([&](DispatchOp dispatch) { return lowerDispatch(dispatch, state); })
      .Case([&](CopyH2DOp copy) {
        return lowerBlockingCopy(copy, copy.getTarget(), copy.getSource(),
                                 state);
      })
      .Case([&](CopyD2HOp copy) {
        return lowerBlockingCopy(copy, copy.getTarget(), copy.getSource(),
                                 state);
      })
      .Case([&](CopyH2DAsyncOp copy) {
        return lowerAsyncCopy(copy, copy.getTarget(), copy.getSource(), state);
      })
      .Case([&](CopyD2HAsyncOp copy) {
        return lowerAsyncCopy(copy, copy.getTarget(), copy.getSource(), state);
      })
      .Case([&](RecordOp record) {
        // Without a main stream, the main stream's progress is what the
        // block's streams wait for: the event of a loop chained on the
        // device, if any.
        settleMainWaits(state, record.getLoc());
        tokens[record.getToken()] =
            state.main ? state.main : awaitedEvent;
        toErase.push_back(record);
        return success();
      })
      .Case([&](WaitOp wait) { return lowerWait(wait, state); })
      .Case([&](SyncOp sync) { return lowerSync(sync, state); })
      .Default([&](Operation *other) {
        return other->emitOpError(
            "has no lowering to the gpu dialect in --convert-vyre-to-gpu");
      });
}

/// The op of the block of `buffer`'s definition holding its last use, or the
/// last use of a view of it (null: none). Failure where a use may pass it
/// on other than as a view: a terminator, or an op with results that is
/// neither a view nor a vyre op. (allocsToOrder orders uses after the
/// allocation through views only; this keeps the allocation whenever it
/// cannot tell.)
static FailureOr<Operation *> lastUseInBlock(Value buffer) {
  Block *block = buffer.getParentBlock();
  Operation *last = nullptr;
  SmallVector<Value> aliases{buffer};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (Operation *user : alias.getUsers()) {
      if (user->hasTrait<OpTrait::IsTerminator>())
        return failure();
      if (isa<ViewLikeOpInterface>(user))
        llvm::append_range(aliases, user->getResults());
      else if (user->getNumResults() != 0 &&
               !isa<VyreDialect>(user->getDialect()))
        return failure();
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        return failure();
      if (!last || last->isBeforeInBlock(ancestor))
        last = ancestor;
    }
  }
  return last;
}

void VyreToGPULowering::lowerAlloc(AllocOp alloc, StreamState &state) {
  toErase.push_back(alloc);
  // A group's buffers are made with its first (AllocationGroups.h).
  const AllocationGroup *group = allocationGroups->lookup(alloc);
  if (group && group->allocs.front() != alloc)
    return;
  Location loc = alloc.getLoc();
  Value dependency = continueMain(state, {}, loc, /*nextOpKept=*/true);
  Type type = alloc.getType();
  ValueRange dynamicSizes = alloc.getDynamicSizes();
  if (group) {
    type = MemRefType::get({group->totalBytes}, builder.getI8Type());
    dynamicSizes = {};
  }
  auto gpuAlloc =
      gpu::AllocOp::create(builder, loc, type, tokenType, dependency,
                           dynamicSizes, ValueRange{}, /*hostShared=*/false);
  state.main = streams.append(dependency, gpuAlloc.getAsyncToken());
  streams.recordAlloc(gpuAlloc.getMemref(), gpuAlloc.getAsyncToken());
  if (group) {
    // Each buffer, at its offset: a memref.view, of the buffer's own type.
    for (auto [index, offset] : llvm::enumerate(group->byteOffsets)) {
      AllocOp member = group->allocs[index];
      Value shift = arith::ConstantIndexOp::create(builder, loc, offset);
      auto view =
          memref::ViewOp::create(builder, member.getLoc(), member.getType(),
                                 gpuAlloc.getMemref(), shift, ValueRange{});
      member.replaceAllUsesWith(view.getResult());
    }
  } else {
    alloc.replaceAllUsesWith(gpuAlloc.getMemref());
  }
  FailureOr<Operation *> lastUse = lastUseInBlock(gpuAlloc.getMemref());
  if (succeeded(lastUse)) {
    if (*lastUse)
      unusedAfter[*lastUse].push_back(gpuAlloc.getMemref());
    else
      streams.noteUnused(gpuAlloc.getMemref());
  }
}

void VyreToGPULowering::lowerDealloc(DeallocOp dealloc, StreamState &state) {
  toErase.push_back(dealloc);
  // A group is freed once, at its last dealloc: its buffers are views of
  // one allocation.
  Value buffer = dealloc.getMemref();
  if (const AllocationGroup *group = allocationGroups->lookup(dealloc)) {
    if (group->deallocs.back() != dealloc)
      return;
    buffer = buffer.getDefiningOp<memref::ViewOp>().getSource();
  }
  Location loc = dealloc.getLoc();
  Value dependency =
      continueMain(state, streams.allocsToOrder({state.main}, buffer), loc,
                   /*nextOpKept=*/true);
  auto gpuDealloc =
      gpu::DeallocOp::create(builder, loc, tokenType, dependency, buffer);
  state.main = streams.append(dependency, gpuDealloc.getAsyncToken());
}

LogicalResult VyreToGPULowering::lowerDispatch(DispatchOp dispatch,
                                               StreamState &state) {
  auto kernel = dyn_cast_or_null<gpu::GPUFuncOp>(
      symbolTables.lookupSymbolIn(kernelScope, dispatch.getKernel()));
  if (!kernel)
    return dispatch.emitOpError("cannot be lowered: kernel ")
           << dispatch.getKernel()
           << " has no body (a bodiless declaration cannot be launched "
              "with gpu.launch_func)";
  Location loc = dispatch.getLoc();
  SmallVector<Value> waits;
  for (Value operand : dispatch.getKernelOperands())
    if (isa<BaseMemRefType>(operand.getType()))
      for (Value alloc : streams.allocsToOrder({state.main}, operand))
        if (!llvm::is_contained(waits, alloc))
          waits.push_back(alloc);
  Value dependency = continueMain(state, waits, loc, /*nextOpKept=*/true);
  auto launch = gpu::LaunchFuncOp::create(
      builder, loc, dispatch.getKernel(),
      gpu::KernelDim3{dispatch.getGridSizeX(), dispatch.getGridSizeY(),
                      dispatch.getGridSizeZ()},
      gpu::KernelDim3{dispatch.getBlockSizeX(), dispatch.getBlockSizeY(),
                      dispatch.getBlockSizeZ()},
      /*dynamicSharedMemorySize=*/Value(), dispatch.getKernelOperands(),
      tokenType, ValueRange{dependency});
  state.main = streams.append(dependency, launch.getAsyncToken());
  toErase.push_back(dispatch);
  return success();
}

/// Whether `value` is a buffer of an allocation group (AllocationGroups.h):
/// a `memref.view` of a `gpu.alloc`, which the copy rule below takes as the
/// allocation it stands for (canonicalize erases no copy into a view, and
/// folds no such view into the allocation: their types differ).
static bool isGroupedBuffer(Value value) {
  auto view = value.getDefiningOp<memref::ViewOp>();
  return view && view.getSource().getDefiningOp<gpu::AllocOp>();
}

/// Whether upstream's `canonicalize` may erase the `gpu.memcpy` that `copy`
/// becomes, whose destination is `target`. It erases a copy whose
/// destination an allocation made and nothing but frees uses otherwise.
/// Such a copy never is:
///  - one into an argument of the function (a buffer the caller passed);
///  - one into the alias the lowering builds of an offset view
///    (ContiguousView.cpp: an LLVM struct it fills, cast to a memref; a cast
///    the input holds may fold away);
///  - one into a value that a launch in the copy's block, or in a block
///    around it, uses as well: canonicalize never erases a launch, erases
///    the launch's block only with the copy in it, and replaces a value the
///    same way in both (a loop's iter_arg by its initial value, say).
/// Anything else may be erased: an allocation, a view, or a region's
/// argument, which canonicalize may replace with an allocation.
static bool mayEraseCopy(Operation *copy, Value target, bool isViewAlias) {
  if (isViewAlias)
    return false;
  if (auto argument = dyn_cast<BlockArgument>(target)) {
    Block *block = argument.getOwner();
    if (block->isEntryBlock() &&
        isa<FunctionOpInterface>(block->getParentOp()))
      return false;
  } else if (!hasEffect<MemoryEffects::Allocate>(target.getDefiningOp(),
                                                 target) &&
             !isGroupedBuffer(target)) {
    return true;
  }
  return llvm::none_of(target.getUsers(), [&](Operation *user) {
    return isa<DispatchOp, gpu::LaunchFuncOp>(user) &&
           user->getBlock()->findAncestorOpInBlock(*copy);
  });
}

LogicalResult VyreToGPULowering::lowerAsyncCopy(StreamOpInterface copy,
                                                Value target, Value source,
                                                StreamState &state) {
  FailureOr<CopyOperands> operands = copyOperands(copy, target, source);
  if (failed(operands))
    return failure();
  bool afterEvent = false;
  // The awaited tokens the host already waited for still order the copy
  // after the allocations before them.
  SmallVector<Value> done;
  FailureOr<SmallVector<Value>> waits =
      lookupTokens(copy, copy.getAwaitedTokens(), &afterEvent, &done);
  if (failed(waits))
    return failure();
  // Stream 0 is the main stream: the copy continues it without a host wait.
  int64_t index = *copy.getStreamIndex();
  Value &side = index == 0 ? state.main : state.side[index];
  SmallVector<Value> after(*waits);
  after.push_back(side);
  llvm::append_range(after, done);
  for (Value buffer : {target, source})
    for (Value alloc : streams.allocsToOrder(after, buffer))
      if (!llvm::is_contained(*waits, alloc))
        waits->push_back(alloc);
  if (side)
    llvm::erase_if(*waits, [&](Value token) {
      return streams.streamOf(token) == streams.streamOf(side);
    });
  Location loc = copy.getLoc();
  bool erasable = !operands->isTile &&
                  mayEraseCopy(copy, operands->target,
                               /*isViewAlias=*/operands->target != target);
  Value dependency = index == 0
                         ? continueMain(state, *waits, loc, !erasable)
                         : continueAfter(side, *waits, loc, !erasable);
  // A new stream waits for the awaited event as it is made.
  if (afterEvent && dependency == side)
    orderAfterAwaitedEvent(side, loc);
  Value token = emitCopy(*operands, dependency, loc);
  side = streams.append(dependency, token, erasable);
  if (operands->isTile)
    streams.markUntraceable(token);
  tokens[copy.getCompletionToken()] = token;
  toErase.push_back(copy);
  return success();
}

/// A copy on the main stream; the host continues once it is done.
LogicalResult VyreToGPULowering::lowerBlockingCopy(Operation *copy,
                                                   Value target, Value source,
                                                   StreamState &state) {
  FailureOr<CopyOperands> operands = copyOperands(copy, target, source);
  if (failed(operands))
    return failure();
  Location loc = copy->getLoc();
  SmallVector<Value> waits;
  for (Value buffer : {target, source})
    for (Value alloc : streams.allocsToOrder({state.main}, buffer))
      if (!llvm::is_contained(waits, alloc))
        waits.push_back(alloc);
  bool erasable = !operands->isTile &&
                  mayEraseCopy(copy, operands->target,
                               /*isViewAlias=*/operands->target != target);
  Value dependency = continueMain(state, waits, loc, !erasable);
  state.main = streams.append(dependency, emitCopy(*operands, dependency, loc),
                              erasable);
  if (operands->isTile)
    streams.markUntraceable(state.main);
  streams.destroyStreams({streams.streamOf(state.main)}, loc, state);
  toErase.push_back(copy);
  return success();
}

/// The main stream's next op waits for the tokens it does not already follow
/// (`StreamState::mainWaits`).
LogicalResult VyreToGPULowering::lowerWait(WaitOp wait, StreamState &state) {
  bool afterEvent = false;
  FailureOr<SmallVector<Value>> waits =
      lookupTokens(wait, wait.getTokens(), &afterEvent);
  if (failed(waits))
    return failure();
  if (state.main)
    llvm::erase_if(*waits, [&](Value token) {
      return streams.streamOf(token) == streams.streamOf(state.main);
    });
  for (Value token : *waits)
    if (!llvm::is_contained(state.mainWaits, token))
      state.mainWaits.push_back(token);
  if (afterEvent && state.main)
    orderAfterAwaitedEvent(state.main, wait.getLoc());
  toErase.push_back(wait);
  return success();
}

LogicalResult VyreToGPULowering::lowerSync(SyncOp sync, StreamState &state) {
  bool afterEvent = false;
  FailureOr<SmallVector<Value>> waits =
      lookupTokens(sync, sync.getTokens(), &afterEvent);
  if (failed(waits))
    return failure();
  if (afterEvent)
    synchronizeAwaitedEvent(sync.getLoc());
  SmallVector<unsigned> toDestroy;
  for (Value token : *waits)
    if (!llvm::is_contained(toDestroy, streams.streamOf(token)))
      toDestroy.push_back(streams.streamOf(token));
  streams.destroyStreams(toDestroy, sync.getLoc(), state);
  toErase.push_back(sync);
  return success();
}

/// The pending waits still to apply: not done, not on the main stream.
static SmallVector<Value> takeMainWaits(StreamState &state,
                                       const StreamTracker &streams) {
  SmallVector<Value> waits;
  for (Value token : state.mainWaits)
    if (!streams.isComplete(token) &&
        !(state.main && streams.streamOf(token) ==
                            streams.streamOf(state.main)))
      waits.push_back(token);
  state.mainWaits.clear();
  return waits;
}

void VyreToGPULowering::settleMainWaits(StreamState &state, Location loc) {
  SmallVector<Value> waits = takeMainWaits(state, streams);
  if (!waits.empty())
    state.main = streams.join(state.main, waits, loc);
}

Value VyreToGPULowering::continueMain(StreamState &state, ArrayRef<Value> waits,
                                     Location loc, bool nextOpKept) {
  SmallVector<Value> all = takeMainWaits(state, streams);
  for (Value token : waits)
    if (!llvm::is_contained(all, token))
      all.push_back(token);
  return continueAfter(state.main, all, loc, nextOpKept);
}

Value VyreToGPULowering::continueAfter(Value current, ArrayRef<Value> waits,
                                      Location loc, bool nextOpKept) {
  SmallVector<Value> joined;
  bool covered = false;
  for (Value token : waits) {
    if (awaitedEvent && streams.isOrderedByBlock(token))
      covered = true;
    else
      joined.push_back(token);
  }
  Value dependency = joinStreams(current, joined, loc, nextOpKept);
  if (covered && dependency == current && current)
    orderAfterAwaitedEvent(current, loc);
  return dependency;
}

void VyreToGPULowering::waitByEvent(Value token, Value dependency,
                                    Location loc) {
  Value event;
  {
    // Right after the op that made `dependency`.
    OpBuilder::InsertionGuard guard(builder);
    setInsertionPointAfterToken(dependency, loc);
    event = runtime.createEvent(loc);
    recordEventOn(event, dependency, loc);
  }
  runtime.streamWaitEvent(token, event, loc);
  runtime.destroyEvent(event, loc);
}

/// Whether `op` is a runtime call that orders streams and events without the
/// host waiting, or a cast of a token or a stream.
static bool isOrderingCall(Operation *op) {
  if (isa<UnrealizedConversionCastOp>(op))
    return true;
  auto call = dyn_cast<LLVM::CallOp>(op);
  std::optional<StringRef> callee = call ? call.getCallee() : std::nullopt;
  return callee && (*callee == "mgpuStreamWaitEvent" ||
                    *callee == "mgpuEventCreate" ||
                    *callee == "mgpuEventRecord" ||
                    *callee == "mgpuEventDestroy");
}

void VyreToGPULowering::setInsertionPointAfterToken(Value token,
                                                    Location loc) {
  // The cast of the token comes right after its op, where there is one.
  runtime.streamOf(token, loc);
  Operation *point = token.getDefiningOp();
  if (!point) {
    builder.setInsertionPointToStart(cast<BlockArgument>(token).getOwner());
    return;
  }
  while (Operation *next = point->getNextNode()) {
    if (!isOrderingCall(next))
      break;
    point = next;
  }
  builder.setInsertionPointAfter(point);
}

Value VyreToGPULowering::joinStreams(Value current, ArrayRef<Value> waits,
                                     Location loc, bool nextOpKept) {
  if (!current || waits.empty())
    return streams.continueOn(current, waits, loc);
  SmallVector<Value> latest = streams.latestPerStream(waits);
  if (!nextOpKept ||
      !streams.canJoinInPlace(current, latest, builder.getInsertionBlock()))
    return streams.join(current, waits, loc);
  for (Value wait : latest)
    waitByEvent(current, wait, loc);
  streams.noteJoinInPlace(current, latest);
  return current;
}

/// The gpu tokens still in flight that `vyreTokens` stand for; where one
/// stands for the block's awaited event (a record taken without a main
/// stream, after a chained loop), `afterEvent` is set instead. A token the
/// lowering did not make (a block argument, a region result) cannot be
/// waited for: an error.
FailureOr<SmallVector<Value>>
VyreToGPULowering::lookupTokens(Operation *user, ValueRange vyreTokens,
                                bool *afterEvent,
                                SmallVectorImpl<Value> *done) {
  SmallVector<Value> result;
  for (auto [index, token] : llvm::enumerate(vyreTokens)) {
    auto it = tokens.find(token);
    if (it == tokens.end())
      return user->emitOpError("cannot be lowered: token #")
             << index
             << " is not made by a vyre op of this function earlier in "
                "program order (a block argument or a region result)";
    Value gpuToken = it->second;
    // An event, or a stream released before a chained region op: the
    // block's awaited event comes after it. In a region, the host waited
    // for it before the region op.
    if (gpuToken && (!isa<gpu::AsyncTokenType>(gpuToken.getType()) ||
                     streams.isReleased(gpuToken))) {
      *afterEvent |= static_cast<bool>(awaitedEvent);
      continue;
    }
    if (gpuToken && streams.isComplete(gpuToken)) {
      if (done)
        done->push_back(gpuToken);
      continue;
    }
    if (gpuToken && !llvm::is_contained(result, gpuToken))
      result.push_back(gpuToken);
  }
  return result;
}
