//===- VyreToGPU.cpp - Lower vyre to the gpu dialect ------------*- C++ -*-===//
//
// --convert-vyre-to-gpu: the main stream and each side stream become chains
// of gpu async tokens. The lowering walks each block in program order and
// keeps, per logical stream, the token its next op depends on.
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
//  4. Without async vyre ops, a function has sequential semantics: the host
//     waits for the device before every host op that may touch memory.
//
//===----------------------------------------------------------------------===//

#include "vyre/Conversion/Passes.h"

#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_CONVERTVYRETOGPUPASS
#include "vyre/Conversion/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// The logical streams of the block being lowered: the main stream's current
/// CUDA stream and each side stream's. A null entry has nothing in flight.
struct StreamState {
  Value main;
  llvm::MapVector<int64_t, Value> side;
};

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

/// The buffer a view is taken of, through every view.
static Value resolveRoot(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

class VyreToGPULowering {
public:
  explicit VyreToGPULowering(MLIRContext *context)
      : builder(context), tokenType(gpu::AsyncTokenType::get(context)) {}

  /// Lowers the vyre ops of `function`.
  LogicalResult lowerFunction(FunctionOpInterface function) {
    Region &body = function.getFunctionBody();
    if (body.empty())
      return success();
    sequential = !isInStreamForm(function);
    return lowerRegion(body);
  }

  /// Erases the lowered vyre ops, users before the ops they use.
  void eraseLoweredOps() {
    for (Operation *op : llvm::reverse(toErase))
      op->erase();
    toErase.clear();
  }

private:
  /// One CUDA stream this lowering creates.
  struct Stream {
    /// Its last token so far.
    Value tail;
    /// The tokens its creating join waits for.
    SmallVector<Value> joinedFrom;
    /// Whether the host waited for it and destroyed it.
    bool destroyed = false;
    /// The position on it up to which the host knows its work is done (the
    /// host waited for a stream that joined it there); -1: none.
    int64_t completeUpTo = -1;
  };

  /// Lowers a region that starts with no stream in flight.
  LogicalResult lowerRegion(Region &region) {
    if (!containsVyreOps(region))
      return success();
    if (!region.hasOneBlock())
      return region.getParentOp()->emitOpError("has a region of ")
             << std::distance(region.begin(), region.end())
             << " blocks with vyre ops: --convert-vyre-to-gpu lowers "
                "structured control flow (one block per region) only";
    return lowerBlock(region.front());
  }

  LogicalResult lowerBlock(Block &block) {
    StreamState state;
    SmallVector<unsigned> created;
    std::swap(created, blockStreams);
    for (Operation &op : llvm::make_early_inc_range(block)) {
      builder.setInsertionPoint(&op);
      if (op.hasTrait<OpTrait::IsTerminator>())
        break;
      if (isa<VyreDialect>(op.getDialect())) {
        if (failed(lowerOp(&op, state)))
          return failure();
        continue;
      }
      if (failed(lowerHostOp(&op, state)))
        return failure();
    }
    // Every stream the block created is waited for, and destroyed, once.
    if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>())
      builder.setInsertionPointToEnd(&block);
    else
      builder.setInsertionPoint(&block.back());
    destroyStreams(blockStreams, builder.getUnknownLoc(), state);
    std::swap(created, blockStreams);
    return success();
  }

  /// A non-vyre op: a region op with device work starts from a quiet device
  /// (the main stream, the streams of tokens it uses, and the side streams
  /// it enqueues on); in a sequential function, so does every host op that
  /// may touch memory.
  LogicalResult lowerHostOp(Operation *op, StreamState &state) {
    bool hasDeviceWork = llvm::any_of(
        op->getRegions(), [](Region &region) { return containsVyreOps(region); });
    if (hasDeviceWork) {
      SmallVector<unsigned> quiesce;
      if (Value main = state.main)
        quiesce.push_back(streamOf.lookup(main));
      for (unsigned stream : streamsUsedInside(op))
        if (!llvm::is_contained(quiesce, stream))
          quiesce.push_back(stream);
      // Copies on one side stream run in program order: a side stream the
      // region enqueues on is done before the region's copies start.
      op->walk([&](CopyH2DAsyncOp copy) {
        if (Value tail = state.side.lookup(copy.getStream()))
          if (!llvm::is_contained(quiesce, streamOf.lookup(tail)))
            quiesce.push_back(streamOf.lookup(tail));
      });
      // Inside a region, no token lives across a nested region op either.
      // Once control flow is lowered to blocks, two branches whose last
      // blocks differ only in the token they wait on get merged by upstream's
      // rewrite driver into one block taking the token as a block argument,
      // and gpu-to-llvm takes a token it cannot trace to a stream creation
      // for an event: it would destroy the stream as an event, and leak it.
      if (!isa<FunctionOpInterface>(op->getParentOp()))
        for (unsigned stream : blockStreams)
          if (!llvm::is_contained(quiesce, stream))
            quiesce.push_back(stream);
      destroyStreams(quiesce, op->getLoc(), state);
    } else if (sequential && state.main && mayTouchMemory(op)) {
      destroyStreams({streamOf.lookup(state.main)}, op->getLoc(), state);
    }
    for (Region &region : op->getRegions())
      if (failed(lowerRegion(region)))
        return failure();
    return success();
  }

  /// The live streams of the vyre tokens that ops inside `op` use but that
  /// are defined outside it.
  SmallVector<unsigned> streamsUsedInside(Operation *op) {
    SmallVector<unsigned> result;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        if (!isa<TokenType>(operand.getType()))
          continue;
        Operation *definer = operand.getDefiningOp();
        if (!definer)
          definer = operand.getParentBlock()->getParentOp();
        if (op->isAncestor(definer))
          continue;
        Value gpuToken = tokens.lookup(operand);
        if (!gpuToken || isComplete(gpuToken))
          continue;
        unsigned stream = streamOf.lookup(gpuToken);
        if (!llvm::is_contained(result, stream))
          result.push_back(stream);
      }
    });
    return result;
  }

  LogicalResult lowerOp(Operation *op, StreamState &state) {
    Location loc = op->getLoc();
    return TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](AllocOp alloc) {
          Value dependency = continueOn(state.main, {}, loc);
          auto gpuAlloc = gpu::AllocOp::create(
              builder, loc, alloc.getType(), tokenType, dependency,
              alloc.getDynamicSizes(), ValueRange{}, /*hostShared=*/false);
          state.main = append(dependency, gpuAlloc.getAsyncToken());
          allocToken[gpuAlloc.getMemref()] = gpuAlloc.getAsyncToken();
          allocsBefore[state.main].push_back(state.main);
          alloc.replaceAllUsesWith(gpuAlloc.getMemref());
          toErase.push_back(alloc);
          return success();
        })
        .Case([&](DeallocOp dealloc) {
          Value dependency = continueOn(
              state.main, allocsToOrder({state.main}, dealloc.getMemref()), loc);
          auto gpuDealloc = gpu::DeallocOp::create(
              builder, loc, tokenType, dependency, dealloc.getMemref());
          state.main = append(dependency, gpuDealloc.getAsyncToken());
          toErase.push_back(dealloc);
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
        .Case([&](CopyH2DAsyncOp copy) { return lowerAsyncCopy(copy, state); })
        .Case([&](RecordOp record) {
          tokens[record.getToken()] = state.main;
          toErase.push_back(record);
          return success();
        })
        .Case([&](WaitOp wait) {
          // The main stream continues on a join of itself and the tokens it
          // does not already follow.
          FailureOr<SmallVector<Value>> waits =
              lookupTokens(wait, wait.getTokens());
          if (failed(waits))
            return failure();
          if (state.main)
            llvm::erase_if(*waits, [&](Value token) {
              return streamOf.lookup(token) == streamOf.lookup(state.main);
            });
          if (!waits->empty())
            state.main = join(state.main, *waits, loc);
          toErase.push_back(wait);
          return success();
        })
        .Case([&](SyncOp sync) {
          FailureOr<SmallVector<Value>> waits =
              lookupTokens(sync, sync.getTokens());
          if (failed(waits))
            return failure();
          SmallVector<unsigned> toDestroy;
          for (Value token : *waits)
            if (!llvm::is_contained(toDestroy, streamOf.lookup(token)))
              toDestroy.push_back(streamOf.lookup(token));
          destroyStreams(toDestroy, loc, state);
          toErase.push_back(sync);
          return success();
        })
        .Default([&](Operation *other) {
          return other->emitOpError(
              "has no lowering to the gpu dialect in --convert-vyre-to-gpu");
        });
  }

  LogicalResult lowerDispatch(DispatchOp dispatch, StreamState &state) {
    auto kernel = dyn_cast_or_null<gpu::GPUFuncOp>(
        SymbolTable::lookupNearestSymbolFrom(dispatch, dispatch.getKernel()));
    if (!kernel)
      return dispatch.emitOpError("cannot be lowered: kernel ")
             << dispatch.getKernel()
             << " has no body (a bodiless declaration cannot be launched "
                "with gpu.launch_func)";
    Location loc = dispatch.getLoc();
    SmallVector<Value> waits;
    for (Value operand : dispatch.getKernelOperands())
      if (isa<BaseMemRefType>(operand.getType()))
        for (Value alloc : allocsToOrder({state.main}, operand))
          if (!llvm::is_contained(waits, alloc))
            waits.push_back(alloc);
    Value dependency = continueOn(state.main, waits, loc);
    auto launch = gpu::LaunchFuncOp::create(
        builder, loc, dispatch.getKernel(),
        gpu::KernelDim3{dispatch.getGridSizeX(), dispatch.getGridSizeY(),
                        dispatch.getGridSizeZ()},
        gpu::KernelDim3{dispatch.getBlockSizeX(), dispatch.getBlockSizeY(),
                        dispatch.getBlockSizeZ()},
        /*dynamicSharedMemorySize=*/Value(), dispatch.getKernelOperands(),
        tokenType, ValueRange{dependency});
    state.main = append(dependency, launch.getAsyncToken());
    toErase.push_back(dispatch);
    return success();
  }

  LogicalResult lowerAsyncCopy(CopyH2DAsyncOp copy, StreamState &state) {
    if (failed(checkContiguous(copy, copy.getTarget(), copy.getSource())))
      return failure();
    FailureOr<SmallVector<Value>> waits =
        lookupTokens(copy, copy.getDependencies());
    if (failed(waits))
      return failure();
    Value &side = state.side[copy.getStream()];
    SmallVector<Value> after(*waits);
    after.push_back(side);
    for (Value buffer : {copy.getTarget(), copy.getSource()})
      for (Value alloc : allocsToOrder(after, buffer))
        if (!llvm::is_contained(*waits, alloc))
          waits->push_back(alloc);
    if (side)
      llvm::erase_if(*waits, [&](Value token) {
        return streamOf.lookup(token) == streamOf.lookup(side);
      });
    Location loc = copy.getLoc();
    Value dependency = continueOn(side, *waits, loc);
    auto memcpy = gpu::MemcpyOp::create(builder, loc, tokenType, dependency,
                                        copy.getTarget(), copy.getSource());
    side = append(dependency, memcpy.getAsyncToken(), /*erasable=*/true);
    tokens[copy.getToken()] = memcpy.getAsyncToken();
    toErase.push_back(copy);
    return success();
  }

  /// A copy on the main stream; the host continues once it is done.
  LogicalResult lowerBlockingCopy(Operation *copy, Value target, Value source,
                                  StreamState &state) {
    if (failed(checkContiguous(copy, target, source)))
      return failure();
    Location loc = copy->getLoc();
    SmallVector<Value> waits;
    for (Value buffer : {target, source})
      for (Value alloc : allocsToOrder({state.main}, buffer))
        if (!llvm::is_contained(waits, alloc))
          waits.push_back(alloc);
    Value dependency = continueOn(state.main, waits, loc);
    auto memcpy =
        gpu::MemcpyOp::create(builder, loc, tokenType, dependency, target, source);
    state.main = append(dependency, memcpy.getAsyncToken(), /*erasable=*/true);
    destroyStreams({streamOf.lookup(state.main)}, loc, state);
    toErase.push_back(copy);
    return success();
  }

  /// Upstream lowers a memcpy to one contiguous transfer: it needs buffers
  /// with an identity layout.
  static LogicalResult checkContiguous(Operation *copy, Value target,
                                       Value source) {
    for (auto [name, buffer] : {std::pair<StringRef, Value>{"source", source},
                                {"target", target}}) {
      auto type = cast<MemRefType>(buffer.getType());
      if (!type.getLayout().isIdentity())
        return copy->emitOpError("cannot be lowered: '")
               << name << "' has type " << type
               << ", but gpu.memcpy copies only contiguous buffers without "
                  "an offset (identity layout)";
    }
    return success();
  }

  /// The gpu tokens still in flight that `vyreTokens` stand for. A token the
  /// lowering did not make (a block argument, a region result) cannot be
  /// waited for: an error.
  FailureOr<SmallVector<Value>> lookupTokens(Operation *user,
                                             ValueRange vyreTokens) {
    SmallVector<Value> result;
    for (auto [index, token] : llvm::enumerate(vyreTokens)) {
      auto it = tokens.find(token);
      if (it == tokens.end())
        return user->emitOpError("cannot be lowered: token #")
               << index
               << " is not made by a vyre op of this function earlier in "
                  "program order (a block argument or a region result)";
      Value gpuToken = it->second;
      if (gpuToken && !isComplete(gpuToken) &&
          !llvm::is_contained(result, gpuToken))
        result.push_back(gpuToken);
    }
    return result;
  }

  /// The allocation still in flight that an op ordered after the tokens
  /// `after` must also wait for before it touches `buffer`, if any.
  SmallVector<Value> allocsToOrder(ArrayRef<Value> after, Value buffer) {
    Value alloc = allocToken.lookup(resolveRoot(buffer));
    if (!alloc || isComplete(alloc))
      return {};
    for (Value token : after)
      if (token && llvm::is_contained(allocsBefore.lookup(token), alloc))
        return {};
    return {alloc};
  }

  /// The single dependency of the next op on the stream whose tail is
  /// `current`, after `waits`: the same stream where nothing else is needed,
  /// otherwise a new stream joined from `current` and `waits`.
  Value continueOn(Value current, ArrayRef<Value> waits, Location loc) {
    if (current && waits.empty())
      return current;
    return join(current, waits, loc);
  }

  /// A new stream that waits for `current` (if any) and `waits`. The join
  /// keeps two operands whatever canonicalization erases, so that it is never
  /// folded into the stream of one of them: with one dependency that must
  /// stay, it names that one twice; with none, it names each twice.
  Value join(Value current, ArrayRef<Value> waits, Location loc) {
    SmallVector<Value> dependencies;
    if (current)
      dependencies.push_back(current);
    for (Value wait : waits)
      if (!llvm::is_contained(dependencies, wait))
        dependencies.push_back(wait);
    SmallVector<Value> staying = llvm::filter_to_vector(
        dependencies, [&](Value dependency) { return !mayVanish(dependency); });
    SmallVector<Value> operands;
    SmallVector<Value> orderedAllocs;
    for (Value dependency : dependencies) {
      operands.push_back(dependency);
      if (staying.size() == 0 ||
          (staying.size() == 1 && staying.front() == dependency))
        operands.push_back(dependency);
      for (Value alloc : allocsBefore.lookup(dependency))
        if (!llvm::is_contained(orderedAllocs, alloc))
          orderedAllocs.push_back(alloc);
    }
    Value token =
        gpu::WaitOp::create(builder, loc, tokenType, operands).getAsyncToken();
    allocsBefore[token] = std::move(orderedAllocs);
    unsigned id = streams.size();
    streams.push_back({token, std::move(dependencies)});
    streamOf[token] = id;
    position[token] = 0;
    if (staying.empty())
      vanishing.insert(token);
    blockStreams.push_back(id);
    return token;
  }

  /// Whether canonicalization may erase every op up to `token` on its
  /// stream, so that joins drop it as a dependency: a stream created without
  /// dependencies whose ops so far are copies (canonicalize erases a copy into
  /// a buffer nothing reads).
  bool mayVanish(Value token) { return vanishing.contains(token); }

  /// Records `token`, made by an op that depends on `dependency`, as the new
  /// tail of that dependency's stream; returns it. `erasable`: the op is one
  /// canonicalization may erase.
  Value append(Value dependency, Value token, bool erasable = false) {
    if (erasable && mayVanish(dependency))
      vanishing.insert(token);
    if (auto it = allocsBefore.find(dependency); it != allocsBefore.end()) {
      SmallVector<Value> inherited = it->second;
      allocsBefore[token] = std::move(inherited);
    }
    unsigned id = streamOf.lookup(dependency);
    streamOf[token] = id;
    position[token] = position.lookup(dependency) + 1;
    streams[id].tail = token;
    return token;
  }

  /// Whether the host knows that the work up to `token` is done.
  bool isComplete(Value token) {
    const Stream &stream = streams[streamOf.lookup(token)];
    return stream.destroyed ||
           static_cast<int64_t>(position.lookup(token)) <= stream.completeUpTo;
  }

  /// The host has waited for all work on stream `id`: so it has for the work
  /// of every stream that the stream's creation joined, up to the join.
  void markHistoryComplete(unsigned id) {
    SmallVector<Value> worklist(streams[id].joinedFrom);
    while (!worklist.empty()) {
      Value token = worklist.pop_back_val();
      Stream &stream = streams[streamOf.lookup(token)];
      int64_t at = position.lookup(token);
      if (stream.destroyed || at <= stream.completeUpTo)
        continue;
      // Its creation came before everything on it: visit it once.
      if (stream.completeUpTo < 0)
        worklist.append(stream.joinedFrom);
      stream.completeUpTo = at;
    }
  }

  /// The host waits for every stream in `ids` and destroys it, in one
  /// blocking `gpu.wait`. Tokens on those streams are complete from then on.
  void destroyStreams(ArrayRef<unsigned> ids, Location loc,
                      StreamState &state) {
    SmallVector<Value> tails;
    for (unsigned id : ids) {
      Stream &stream = streams[id];
      if (stream.destroyed)
        continue;
      stream.destroyed = true;
      tails.push_back(stream.tail);
      markHistoryComplete(id);
    }
    if (tails.empty())
      return;
    gpu::WaitOp::create(builder, loc, Type(), tails);
    auto isDestroyed = [&](Value token) {
      return token && streams[streamOf.lookup(token)].destroyed;
    };
    if (isDestroyed(state.main))
      state.main = Value();
    for (auto &entry : state.side)
      if (isDestroyed(entry.second))
        entry.second = Value();
  }

  OpBuilder builder;
  Type tokenType;
  /// Whether the function being lowered has sequential semantics.
  bool sequential = false;
  /// Every stream created so far; a stream's id is its index.
  SmallVector<Stream> streams;
  /// The streams created by the block being lowered.
  SmallVector<unsigned> blockStreams;
  /// gpu token → the stream it is on, and its position there (0: the
  /// stream's creation).
  DenseMap<Value, unsigned> streamOf;
  DenseMap<Value, unsigned> position;
  /// The gpu tokens that canonicalization may turn into a stream without
  /// work (see mayVanish).
  DenseSet<Value> vanishing;
  /// vyre token → the gpu token that stands for it (null: nothing to wait).
  DenseMap<Value, Value> tokens;
  /// gpu.alloc result → its token.
  DenseMap<Value, Value> allocToken;
  /// gpu token → the allocation tokens ordered before it (on any stream).
  DenseMap<Value, SmallVector<Value>> allocsBefore;
  /// Lowered vyre ops, in program order. They are erased at the end: until
  /// then their tokens stay valid keys of `tokens`.
  SmallVector<Operation *> toErase;
};

struct ConvertVyreToGPUPass
    : public vyre::impl::ConvertVyreToGPUPassBase<ConvertVyreToGPUPass> {
  using Base::Base;

  /// Drops the kernels' `vyre.access` summaries: they describe the kernels
  /// to vyre's analyses, and upstream's lowering changes the kernels'
  /// signatures. Returns whether any was dropped.
  static bool dropKernelSummaries(ModuleOp module) {
    bool dropped = false;
    module.walk([&](gpu::GPUModuleOp kernels) {
      for (Operation &kernel : kernels.getOps())
        dropped |= static_cast<bool>(
            kernel.removeAttr(VyreDialect::getKernelAccessAttrName()));
    });
    return dropped;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool droppedSummaries = dropKernelSummaries(module);
    bool hasVyre = false;
    module.walk([&](Operation *op) {
      if (isa<VyreDialect>(op->getDialect()))
        hasVyre = true;
    });
    if (!hasVyre) {
      if (!droppedSummaries)
        markAllAnalysesPreserved();
      return;
    }
    // gpu.launch_func needs its kernels in a container module.
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));

    VyreToGPULowering lowering(module.getContext());
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
