//===- VyreToGPU.cpp - Lower vyre to the gpu dialect ------------*- C++ -*-===//
//
// --convert-vyre-to-gpu: the main stream and each side stream become chains
// of gpu async tokens. The lowering walks each block in program order and
// keeps, per logical stream, the token its next op depends on.
//
// What upstream LLVM 22 does with those tokens decides the shape of the
// output (docs/Lowering.md):
//  - `gpu.wait async` creates a new CUDA stream; with dependencies it first
//    records an event on each dependency's stream, after the op that made it.
//  - an async op with one dependency runs on that dependency's stream;
//    memcpy or launch_func with two dependencies are not converted, so every
//    op gets exactly one, joining first.
//  - a blocking `gpu.wait [...]` synchronizes and destroys the stream of each
//    token, so each stream's tail is waited for exactly once, at the end of
//    the block that created the stream.
//  - canonicalization drops dependencies on tokens without work and folds a
//    join with a single dependency into it: the lowering creates a stream only
//    for an op that uses it, and a join on one token names it twice.
//
//===----------------------------------------------------------------------===//

#include "vyre/Conversion/Passes.h"

#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_CONVERTVYRETOGPU
#include "vyre/Conversion/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// The tokens ops of one block are chained on. Nested blocks start from a
/// copy of the enclosing block's state.
struct StreamState {
  /// The main stream's last token, or null if nothing is in flight on it.
  Value main;
  /// Each side stream's last token.
  DenseMap<int64_t, Value> side;
};

/// The streams created in one block: their tail tokens, waited for once at
/// the block's end.
struct CreatedStreams {
  /// Stream id → its last token in this block, in creation order.
  llvm::MapVector<unsigned, Value> tails;
};

class VyreToGPULowering {
public:
  explicit VyreToGPULowering(MLIRContext *context)
      : builder(context), tokenType(gpu::AsyncTokenType::get(context)) {}

  /// Lowers the vyre ops of `function`.
  LogicalResult lowerFunction(FunctionOpInterface function) {
    Region &body = function.getFunctionBody();
    if (body.empty())
      return success();
    StreamState state;
    return lowerRegion(body, state);
  }

private:
  LogicalResult lowerRegion(Region &region, const StreamState &outer) {
    if (!containsVyreOps(region))
      return success();
    if (!region.hasOneBlock())
      return region.getParentOp()->emitOpError(
                 "has a region of ")
             << std::distance(region.begin(), region.end())
             << " blocks with vyre ops: --convert-vyre-to-gpu lowers "
                "structured control flow (one block per region) only";
    StreamState state = outer;
    return lowerBlock(region.front(), state);
  }

  LogicalResult lowerBlock(Block &block, StreamState &state) {
    CreatedStreams created;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        joinCreatedStreams(created, &op);
        continue;
      }
      if (!isa<VyreDialect>(op.getDialect())) {
        for (Region &region : op.getRegions())
          if (failed(lowerRegion(region, state)))
            return failure();
        continue;
      }
      builder.setInsertionPoint(&op);
      if (failed(lowerOp(&op, state, created)))
        return failure();
    }
    if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>()) {
      builder.setInsertionPointToEnd(&block);
      joinCreatedStreams(created, nullptr);
    }
    return success();
  }

  LogicalResult lowerOp(Operation *op, StreamState &state,
                        CreatedStreams &created) {
    Location loc = op->getLoc();
    return TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](AllocOp alloc) {
          Value dependency = dependencyFor(state.main, {}, loc, created);
          auto gpuAlloc = gpu::AllocOp::create(
              builder, loc, alloc.getType(), tokenType, dependency,
              alloc.getDynamicSizes(), ValueRange{}, /*hostShared=*/false);
          chain(state.main, dependency, gpuAlloc.getAsyncToken(), created);
          alloc.replaceAllUsesWith(gpuAlloc.getMemref());
          toErase.push_back(alloc);
          return success();
        })
        .Case([&](DeallocOp dealloc) {
          Value dependency = dependencyFor(state.main, {}, loc, created);
          auto gpuDealloc = gpu::DeallocOp::create(
              builder, loc, tokenType, dependency, dealloc.getMemref());
          chain(state.main, dependency, gpuDealloc.getAsyncToken(), created);
          toErase.push_back(dealloc);
          return success();
        })
        .Case([&](DispatchOp dispatch) { return lowerDispatch(dispatch, state, created); })
        .Case([&](CopyH2DOp copy) {
          return lowerBlockingCopy(copy, copy.getTarget(), copy.getSource(),
                                   state, created);
        })
        .Case([&](CopyD2HOp copy) {
          return lowerBlockingCopy(copy, copy.getTarget(), copy.getSource(),
                                   state, created);
        })
        .Case([&](CopyH2DAsyncOp copy) {
          if (failed(checkContiguous(copy, copy.getTarget(), copy.getSource())))
            return failure();
          SmallVector<Value> waits = lookupTokens(copy.getDependencies());
          Value &side = state.side[copy.getStream()];
          Value dependency = dependencyFor(side, waits, loc, created);
          auto memcpy = gpu::MemcpyOp::create(builder, loc, tokenType,
                                              dependency, copy.getTarget(),
                                              copy.getSource());
          chain(side, dependency, memcpy.getAsyncToken(), created);
          tokens[copy.getToken()] = memcpy.getAsyncToken();
          toErase.push_back(copy);
          return success();
        })
        .Case([&](RecordOp record) {
          tokens[record.getToken()] = state.main;
          toErase.push_back(record);
          return success();
        })
        .Case([&](WaitOp wait) {
          // The main stream continues on a join of itself and the tokens it
          // does not already follow.
          SmallVector<Value> waits = lookupTokens(wait.getTokens());
          llvm::erase(waits, state.main);
          if (!waits.empty())
            state.main = dependencyFor(state.main, waits, loc, created);
          toErase.push_back(wait);
          return success();
        })
        .Case([&](SyncOp sync) {
          hostWait(lookupTokens(sync.getTokens()), loc);
          toErase.push_back(sync);
          return success();
        })
        .Default([&](Operation *other) {
          return other->emitOpError(
              "has no lowering to the gpu dialect in --convert-vyre-to-gpu");
        });
  }

  LogicalResult lowerDispatch(DispatchOp dispatch, StreamState &state,
                              CreatedStreams &created) {
    auto kernel = dyn_cast_or_null<gpu::GPUFuncOp>(
        SymbolTable::lookupNearestSymbolFrom(dispatch, dispatch.getKernel()));
    if (!kernel)
      return dispatch.emitOpError("cannot be lowered: kernel ")
             << dispatch.getKernel()
             << " has no body (a bodiless declaration cannot be launched "
                "with gpu.launch_func)";
    Location loc = dispatch.getLoc();
    Value dependency = dependencyFor(state.main, {}, loc, created);
    auto launch = gpu::LaunchFuncOp::create(
        builder, loc, dispatch.getKernel(),
        gpu::KernelDim3{dispatch.getGridSizeX(), dispatch.getGridSizeY(),
                        dispatch.getGridSizeZ()},
        gpu::KernelDim3{dispatch.getBlockSizeX(), dispatch.getBlockSizeY(),
                        dispatch.getBlockSizeZ()},
        /*dynamicSharedMemorySize=*/Value(), dispatch.getKernelOperands(),
        tokenType, ValueRange{dependency});
    chain(state.main, dependency, launch.getAsyncToken(), created);
    toErase.push_back(dispatch);
    return success();
  }

  /// A copy on the main stream; the host continues once it is done.
  LogicalResult lowerBlockingCopy(Operation *copy, Value target, Value source,
                                  StreamState &state, CreatedStreams &created) {
    if (failed(checkContiguous(copy, target, source)))
      return failure();
    Location loc = copy->getLoc();
    Value dependency = dependencyFor(state.main, {}, loc, created);
    auto memcpy =
        gpu::MemcpyOp::create(builder, loc, tokenType, dependency, target, source);
    chain(state.main, dependency, memcpy.getAsyncToken(), created);
    hostWait({memcpy.getAsyncToken()}, loc);
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

  SmallVector<Value> lookupTokens(ValueRange vyreTokens) {
    SmallVector<Value> result;
    for (Value token : vyreTokens)
      if (Value gpuToken = tokens.lookup(token);
          gpuToken && !llvm::is_contained(result, gpuToken))
        result.push_back(gpuToken);
    return result;
  }

  /// The single dependency of the next op on the stream whose last token is
  /// `current`, after `waits`. Continues on the same stream where it can;
  /// otherwise creates a stream, joining `current` and `waits` into it.
  Value dependencyFor(Value current, ArrayRef<Value> waits, Location loc,
                      CreatedStreams &created) {
    SmallVector<Value> join;
    if (current)
      join.push_back(current);
    for (Value wait : waits)
      if (!llvm::is_contained(join, wait))
        join.push_back(wait);
    if (current && join.size() == 1)
      return current;
    // A join of one token names it twice, so that canonicalization does not
    // fold it into that token's stream.
    if (join.size() == 1)
      join.push_back(join.front());
    Value token =
        gpu::WaitOp::create(builder, loc, tokenType, join).getAsyncToken();
    unsigned stream = nextStream++;
    streamOf[token] = stream;
    created.tails[stream] = token;
    return token;
  }

  /// Records that `token`, made by an op depending on `dependency`, is the
  /// new last token of the stream whose last token was `current`.
  void chain(Value &current, Value dependency, Value token,
             CreatedStreams &created) {
    current = token;
    auto it = streamOf.find(dependency);
    if (it == streamOf.end())
      return;
    // Copy the id out: inserting `token` below may move the map's entries.
    unsigned stream = it->second;
    streamOf[token] = stream;
    auto tail = created.tails.find(stream);
    if (tail != created.tails.end())
      tail->second = token;
  }

  /// The host blocks until `waits` are done, through a stream joined from
  /// them and then destroyed: the streams of `waits` live on.
  void hostWait(ArrayRef<Value> waits, Location loc) {
    if (waits.empty())
      return;
    SmallVector<Value> join(waits);
    if (join.size() == 1)
      join.push_back(join.front());
    Value joined =
        gpu::WaitOp::create(builder, loc, tokenType, join).getAsyncToken();
    gpu::WaitOp::create(builder, loc, Type(), ValueRange{joined});
  }

  /// Waits for and destroys every stream created in a block, before
  /// `terminator` (or at the insertion point).
  void joinCreatedStreams(CreatedStreams &created, Operation *terminator) {
    if (created.tails.empty())
      return;
    if (terminator)
      builder.setInsertionPoint(terminator);
    SmallVector<Value> tails;
    for (auto &entry : created.tails)
      tails.push_back(entry.second);
    Location loc = terminator ? terminator->getLoc() : builder.getUnknownLoc();
    gpu::WaitOp::create(builder, loc, Type(), tails);
  }

public:
  /// Erases the lowered vyre ops, users before the ops they use.
  void eraseLoweredOps() {
    for (Operation *op : llvm::reverse(toErase))
      op->erase();
    toErase.clear();
  }

private:
  OpBuilder builder;
  Type tokenType;
  /// Lowered vyre ops, in program order. They are erased at the end: until
  /// then their tokens stay valid keys of `tokens`.
  SmallVector<Operation *> toErase;
  /// vyre token → the gpu token that stands for it (null: nothing to wait).
  DenseMap<Value, Value> tokens;
  /// gpu token → the id of the stream it is on (tokens this lowering made).
  DenseMap<Value, unsigned> streamOf;
  unsigned nextStream = 0;
};

struct ConvertVyreToGPUPass
    : public vyre::impl::ConvertVyreToGPUBase<ConvertVyreToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool hasVyre = false;
    module.walk([&](Operation *op) {
      if (isa<VyreDialect>(op->getDialect()))
        hasVyre = true;
    });
    if (!hasVyre) {
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
