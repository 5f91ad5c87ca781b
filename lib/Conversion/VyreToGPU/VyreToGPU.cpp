//===- VyreToGPU.cpp - Lower vyre to the gpu dialect ------------*- C++ -*-===//
//
// --convert-vyre-to-gpu: the main stream and each side stream become chains
// of gpu async tokens. The lowering walks each block in program order and
// keeps, per logical stream, the token its next op depends on. This file
// holds the pass and the walk over blocks, regions and host ops;
// LowerVyreOps.cpp lowers each vyre op, and StreamTracker keeps the streams
// and creates the joins and waits.
//
// What upstream LLVM 22 does with those tokens decides the shape of the
// output (docs/Lowering.md):
//  - `gpu.wait async` creates a new CUDA stream; with dependencies it first
//    records an event on each dependency's stream *right after the op that
//    defined the dependency*, wherever that op is.
//  - an async op with one dependency runs on that dependency's stream;
//    memcpy or launch_func with two dependencies are not converted, so every
//    op gets exactly one, joining first.
//  - a blocking `gpu.wait [...]` synchronizes and destroys the stream of each
//    token.
//  - canonicalization drops dependencies on streams whose work it erased and
//    folds a join of a single dependency into that dependency.
//
// Hence the rules this lowering keeps:
//  1. Every token lives in the block that created its stream. A nested
//     region starts with no streams: before a region op that holds device
//     work, the host waits for the main stream and for every stream whose
//     token the region uses; each region execution creates its own streams and
//     destroys them at its end. So no join ever names a token defined outside
//     its block (upstream would record its event once and destroy it in every
//     iteration), and after the region no stream has work that a later join
//     would miss.
//  2. A join keeps at least two operands whatever dead work canonicalization
//     erases (it names a dependency twice where that is needed), so that it
//     is never folded into another stream: every stream the lowering creates
//     stays a stream of its own, destroyed exactly once.
//  3. A buffer from `gpu.alloc async` is used on another stream only after a
//     join on the alloc's token (the gpu dialect's token contract).
//  4. Where an op that continues a stream waits for other streams' tokens,
//     its stream waits for an event recorded right after each (runtime
//     calls, as gpu-to-llvm lowers a join) instead of a join that makes a
//     new stream, provided canonicalization keeps the op (its token then
//     stands for the wait) and no token is an allocation's (rule 3); a
//     `vyre.wait` applies to the main stream's next op
//     (VyreToGPULowering::joinStreams).
//  5. Without async vyre ops, a function has sequential semantics: the host
//     waits for the device before every host op that may touch memory.
//
//===----------------------------------------------------------------------===//

#include "vyre/Conversion/Passes.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/TokenContract.h"

#include "HostWaitJoins.h"
#include "VyreToGPULowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_CONVERTVYRETOGPUPASS
#include "vyre/Conversion/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::vyre_to_gpu;

/// Whether a host op may touch memory that device work uses: it has memory
/// effects other than allocations and stack scopes, or effects it does not
/// declare, or regions that hold such ops.
static bool mayTouchMemory(Operation *op) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    for (Region &region : op->getRegions())
      for (Operation &nested : region.getOps())
        if (mayTouchMemory(&nested))
          return true;
    if (!isa<MemoryEffectOpInterface>(op))
      return false;
  }
  auto effectOp = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effectOp)
    return !op->hasTrait<OpTrait::IsTerminator>() ||
           op->getNumRegions() != 0;
  SmallVector<MemoryEffects::EffectInstance> effects;
  effectOp.getEffects(effects);
  return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return !isa<MemoryEffects::Allocate>(e.getEffect()) &&
           !isa<SideEffects::AutomaticAllocationScopeResource>(
               e.getResource());
  });
}

/// Refuses a vyre token that an op other than a vyre op takes: yielded out
/// of a region, carried through a loop, returned or passed to a call. The
/// lowering maps tokens to streams in program order, and erases the vyre
/// ops that make them.
static LogicalResult checkTokensStayInVyre(FunctionOpInterface function) {
  WalkResult result = function->walk([](Operation *op) {
    if (isa<VyreDialect>(op->getDialect()))
      return WalkResult::advance();
    for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
      if (!isa<TokenType>(operand.getType()))
        continue;
      op->emitOpError("cannot be lowered by --convert-vyre-to-gpu: operand #")
          << index
          << " is a !vyre.token; a token can be used by vyre ops only (not "
             "yielded, carried through a loop, returned or passed to a call)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult VyreToGPULowering::lowerFunction(FunctionOpInterface function) {
  Region &body = function.getFunctionBody();
  if (body.empty())
    return success();
  if (failed(checkTokensStayInVyre(function)))
    return failure();
  sequential = !isInStreamForm(function);
  summaries.compute(function);
  allocationGroups.emplace(function);
  runtime.setModule(function->getParentOfType<ModuleOp>());
  kernelScope = SymbolTable::getNearestSymbolTable(function);
  return lowerRegion(body);
}

void VyreToGPULowering::eraseLoweredOps() {
  for (Operation *op : llvm::reverse(toErase))
    op->erase();
  toErase.clear();
}

LogicalResult VyreToGPULowering::lowerRegion(Region &region) {
  if (!summaries.holdsVyreOps(region))
    return success();
  if (!region.hasOneBlock())
    return region.getParentOp()->emitOpError("has a region of ")
           << std::distance(region.begin(), region.end())
           << " blocks with vyre ops: --convert-vyre-to-gpu lowers "
              "structured control flow (one block per region) only";
  return lowerBlock(region.front());
}

LogicalResult VyreToGPULowering::lowerOps(Block::iterator from, Block &block,
                                          StreamState &state) {
  for (Operation &op :
       llvm::make_early_inc_range(llvm::make_range(from, block.end()))) {
    builder.setInsertionPoint(&op);
    if (op.hasTrait<OpTrait::IsTerminator>())
      break;
    Operation *lowered = &op;
    if (failed(isa<VyreDialect>(op.getDialect()) ? lowerOp(&op, state)
                                                 : lowerHostOp(&op, state)))
      return failure();
    // (Lowering may have replaced the op: its address is only a key here.)
    auto unused = unusedAfter.find(lowered);
    if (unused != unusedAfter.end()) {
      for (Value buffer : unused->second)
        streams.noteUnused(buffer);
      unusedAfter.erase(unused);
    }
  }
  // The main stream's pending waits need no join at the block's end: the
  // tokens they name are on the block's streams (a token from before a
  // region op is done, or stands for the block's awaited event), which the
  // host waits for (lowerBlock) or the block's last event is recorded after
  // (lowerChainedBlock), all of them.
  state.mainWaits.clear();
  return success();
}

LogicalResult VyreToGPULowering::lowerBlock(Block &block) {
  StreamState state;
  StreamTracker::EnclosingBlock enclosing = streams.enterBlock();
  // The host waited for the device before the region op that holds it.
  Value enclosingEvent = awaitedEvent;
  bool enclosingEventDone = awaitedEventDone;
  StreamTracker::Covers enclosingCovers = awaitedEventCovers;
  awaitedEventCovers = nullptr;
  awaitedEvent = Value();
  bool enclosingRetains = retainsStreams;
  retainsStreams = isa<FunctionOpInterface>(block.getParentOp());
  // The host waited for the device before the region op: nothing is lent.
  SmallVector<Value> enclosingLent = std::move(lentStreams);
  SmallVector<Value> enclosingOwnedLent = std::move(ownedLentStreams);
  lentStreams.clear();
  ownedLentStreams.clear();
  StreamsBeforeLoop enclosingBeforeLoop = streamsBeforeLoop;
  streamsBeforeLoop = {};
  if (failed(lowerOps(block.begin(), block, state)))
    return failure();
  retainsStreams = enclosingRetains;
  // Every stream the block created is waited for, and destroyed, once.
  if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>())
    builder.setInsertionPointToEnd(&block);
  else
    builder.setInsertionPoint(&block.back());
  // Streams the block lent come before its last event: the host waits for
  // that, not for them (LentStreams.cpp). A stream that waited for the
  // event is after it: where the host waits for one, the event is done.
  SmallVector<unsigned> lent, others;
  for (unsigned id : streams.getBlockStreams())
    (streams.isLentStream(id) ? lent : others).push_back(id);
  bool afterEvent =
      llvm::any_of(streams.liveTails(others), [&](Value tail) {
        return streams.continuesAfterEvent(tail, awaitedEvent);
      });
  streams.destroyStreams(others, builder.getUnknownLoc(), state);
  if (afterEvent)
    noteAwaitedEventDone();
  else if (!lent.empty())
    synchronizeAwaitedEvent(builder.getUnknownLoc());
  streams.destroyStreams(lent, builder.getUnknownLoc(), state);
  // Nothing of a chained loop is left in flight either, whatever streams
  // canonicalization leaves to wait for.
  if (awaitedEvent) {
    synchronizeAwaitedEvent(builder.getUnknownLoc());
    runtime.destroyEvent(awaitedEvent, builder.getUnknownLoc());
  }
  destroyOwnedLentStreams(builder.getUnknownLoc());
  lentStreams = std::move(enclosingLent);
  ownedLentStreams = std::move(enclosingOwnedLent);
  streamsBeforeLoop = enclosingBeforeLoop;
  awaitedEvent = enclosingEvent;
  awaitedEventDone = enclosingEventDone;
  awaitedEventCovers = enclosingCovers;
  streams.exitBlock(std::move(enclosing));
  return success();
}

/// A non-vyre op: a region op with device work starts from a quiet device
/// (the main stream, the streams of tokens it uses, and the side streams
/// it enqueues on); in a sequential function, so does every host op that
/// may touch memory.
LogicalResult VyreToGPULowering::lowerHostOp(Operation *op,
                                             StreamState &state) {
  bool hasDeviceWork = llvm::any_of(op->getRegions(), [&](Region &region) {
    return summaries.holdsVyreOps(region);
  });
  // The event before a chained op is recorded after the main stream's
  // pending waits as well (startChain); the host waits for the main stream
  // before other region ops with device work, and before host ops that
  // wait for the device.
  if (hasDeviceWork && chainsOnDevice(op)) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return lowerChainedLoop(loop, state);
    return lowerChainedBranch(cast<scf::IfOp>(op), state);
  }
  if (hasDeviceWork || waitsForDevice(op))
    settleMainWaits(state, op->getLoc());
  if (hasDeviceWork) {
    // A chained loop's work is the main stream's too: the host waits for it
    // (inside, the region's streams do not).
    synchronizeAwaitedEvent(op->getLoc());
    SmallVector<unsigned> quiesce;
    if (Value main = state.main)
      quiesce.push_back(streams.streamOf(main));
    for (unsigned stream : streamsUsedInside(op))
      if (!llvm::is_contained(quiesce, stream))
        quiesce.push_back(stream);
    addStreamsToQuiesce(op, state, quiesce);
    streams.destroyStreams(quiesce, op->getLoc(), state);
  } else if (waitsForDevice(op)) {
    synchronizeAwaitedEvent(op->getLoc());
    if (state.main)
      streams.destroyStreams({streams.streamOf(state.main)}, op->getLoc(),
                             state);
  }
  for (Region &region : op->getRegions())
    if (failed(lowerRegion(region)))
      return failure();
  return success();
}

bool VyreToGPULowering::waitsForDevice(Operation *op) const {
  return sequential && mayTouchMemory(op);
}

void VyreToGPULowering::synchronizeAwaitedEvent(Location loc) {
  if (!awaitedEvent || awaitedEventDone)
    return;
  runtime.synchronizeEvent(awaitedEvent, loc);
  noteAwaitedEventDone();
}

void VyreToGPULowering::noteAwaitedEventDone() {
  if (!awaitedEvent || awaitedEventDone)
    return;
  awaitedEventDone = true;
  streams.markCoversComplete(awaitedEventCovers);
}

/// Adds to `quiesce` what the host waits for before the region op `op`,
/// besides the main stream and the streams of tokens used inside.
void VyreToGPULowering::addStreamsToQuiesce(Operation *op, StreamState &state,
                                            SmallVectorImpl<unsigned> &quiesce) {
  auto add = [&](unsigned stream) {
    if (!llvm::is_contained(quiesce, stream))
      quiesce.push_back(stream);
  };
  // Copies on one side stream run in program order: a side stream the
  // region enqueues on is done before the region's copies start.
  for (int64_t index : summaries.sideStreams(op))
    if (Value tail = state.side.lookup(index))
      add(streams.streamOf(tail));
  // Inside a region, no token lives across a nested region op either.
  // Once control flow is lowered to blocks, two branches whose last blocks
  // differ only in the token they wait on get merged by upstream's rewrite
  // driver into one block taking the token as a block argument, and
  // gpu-to-llvm takes a token it cannot trace to a stream creation for an
  // event: it would destroy the stream as an event, and leak it.
  if (!isa<FunctionOpInterface>(op->getParentOp()))
    for (unsigned stream : streams.getBlockStreams())
      add(stream);
}

/// The live streams of the vyre tokens that ops inside `op` use but that
/// are defined outside it.
SmallVector<unsigned> VyreToGPULowering::streamsUsedInside(Operation *op) {
  SmallVector<unsigned> result;
  for (Value operand : summaries.tokensFromOutside(op)) {
    Value gpuToken = tokens.lookup(operand);
    if (!gpuToken || !isa<gpu::AsyncTokenType>(gpuToken.getType()) ||
        streams.isComplete(gpuToken) || streams.isReleased(gpuToken))
      continue;
    unsigned stream = streams.streamOf(gpuToken);
    if (!llvm::is_contained(result, stream))
      result.push_back(stream);
  }
  return result;
}

namespace {

struct ConvertVyreToGPUPass
    : public vyre::impl::ConvertVyreToGPUPassBase<ConvertVyreToGPUPass> {
  using Base::Base;

  /// Drops the attributes vyre's passes leave for each other: the kernels'
  /// `vyre.access` summaries (upstream's lowering changes the kernels'
  /// signatures), and functions' `vyre.effects` and `vyre.not_imported` and
  /// ops' `vyre.written_async` unless kept. Returns whether any was dropped.
  bool dropVyreAttributes(ModuleOp module) {
    SmallVector<StringRef, 3> names{VyreDialect::getKernelAccessAttrName()};
    if (!keepEffects) {
      names.push_back(VyreDialect::getFunctionEffectsAttrName());
      names.push_back(VyreDialect::getNotImportedAttrName());
    }
    bool dropped = false;
    module->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isa<FunctionOpInterface>(op))
        return WalkResult::advance();
      for (StringRef name : names)
        dropped |= static_cast<bool>(op->removeAttr(name));
      if (!keepEffects)
        op->walk([&](Operation *nested) {
          dropped |= static_cast<bool>(
              nested->removeAttr(VyreDialect::getWrittenAsyncAttrName()));
        });
      return WalkResult::skip();
    });
    return dropped;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Hand-written async code that takes a token for its stream would lose
    // its wait to the canonicalize after this pass: refuse it.
    bool reliesOnStreams = false;
    findWaitsOnOlderTokens(module, [&](Operation *wait, Value,
                                       Operation *later) {
      reliesOnStreams = true;
      wait->emitOpError(describeWaitOnOlderToken(later))
              .attachNote(later->getLoc())
          << "the work enqueued after the token";
    });
    if (reliesOnStreams || failed(diagnoseVyreOpsInDeviceCode(module)))
      return signalPassFailure();
    bool changedAttributes = dropVyreAttributes(module);
    // Waits the import made for explicit work: one stream each, no join.
    changedAttributes |= vyre_to_gpu::lowerHostWaitJoins(module);
    bool hasVyre = false;
    module.walk([&](Operation *op) {
      if (isa<VyreDialect>(op->getDialect()))
        hasVyre = true;
    });
    if (!hasVyre) {
      if (!changedAttributes)
        markAllAnalysesPreserved();
      return;
    }
    // gpu.launch_func needs its kernels in a container module.
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));

    VyreToGPULowering lowering(module.getContext(), carryLoopStreams,
                               lendStreams);
    for (auto function : module.getOps<FunctionOpInterface>())
      if (failed(lowering.lowerFunction(function)))
        return signalPassFailure();
    lowering.eraseLoweredOps();

    // Nothing of vyre may be left for upstream to choke on.
    WalkResult leftover = module.walk([](Operation *op) {
      if (!isa<VyreDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitOpError("was not lowered by --convert-vyre-to-gpu: vyre ops "
                      "must be inside a function");
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
