//===- PipelinedLoopEmitter.cpp - A loop with copies issued early -*- C++
//-*-===//
//
// Rewrites an scf.for whose rotated buffers A_k are filled by copies (or
// overwritten by a launch) into a software pipeline of depth D. Iteration i
// uses A_k[i mod D]: A_k itself and D - 1 new vyre.alloc buffers. Slot i
// runs the body of iteration i (without its fills, the host ops that write
// their sources, and its deferred copies back to the host), then the fills
// of iteration i + a (a = D - 1), each after its source's producer, then the
// deferred copies back of iteration i - 1:
//
//   T = trip count, P = (T / D) * D                 // pipelined iterations
//   if P > 0:
//     fills of iterations 0 .. a-1                  // prologue
//     slot 0                                        // nothing deferred yet
//     for j = 1 to P - D + 1 step D:
//       slots j .. j + D - 1
//     slots P - D + 1 .. P - 1, without fills       // they would pass P
//     deferred copies of iteration P - 1
//   for i = P to T: the original body, on A_k       // remainder
//   vyre.dealloc A_k[1..D-1]
//
// The new buffers are allocated before, and freed after, the outermost op
// around the loop in its function (the loop itself, if it is not nested).
//
// A constant trip count folds the guard away and writes the remainder out;
// otherwise the rewrite adds one scf.if and one scf.for.
//
//===----------------------------------------------------------------------===//

#include "PipelineLoops.h"

#include "vyre/Analysis/AllocationGroups.h"

#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

Value pipeline::buildTripCount(OpBuilder &builder, scf::ForOp loop) {
  Location loc = loop.getLoc();
  Value span = builder.createOrFold<arith::SubIOp>(loc, loop.getUpperBound(),
                                                   loop.getLowerBound());
  Value count =
      builder.createOrFold<arith::CeilDivSIOp>(loc, span, loop.getStep());
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  return builder.createOrFold<arith::MaxSIOp>(loc, count, zero);
}

void pipeline::emitIf(OpBuilder &builder, Location loc, Value condition,
                      const std::function<void(OpBuilder &)> &body) {
  if (matchPattern(condition, m_One())) {
    body(builder);
    return;
  }
  if (matchPattern(condition, m_Zero()))
    return;
  auto branch = scf::IfOp::create(builder, loc, condition,
                                  /*withElseRegion=*/false);
  OpBuilder inside(branch.thenBlock()->getTerminator());
  body(inside);
}

void pipeline::eraseDeadOps(Block::iterator first, Block::iterator last) {
  SmallVector<Operation *> ops;
  SmallVector<scf::IfOp> branches;
  for (Operation &op : llvm::make_range(first, last))
    op.walk([&](Operation *nested) {
      ops.push_back(nested);
      if (auto branch = dyn_cast<scf::IfOp>(nested))
        branches.push_back(branch);
    });
  // Users come after their operands' definitions: erase back to front. Ops
  // with regions stay, so no erased op holds one still to visit.
  for (Operation *op : llvm::reverse(ops))
    if (op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
        isOpTriviallyDead(op))
      op->erase();
  // Then the scf.if ops left empty (their branches' fills moved out), inner
  // ones first (the walk's order).
  for (scf::IfOp branch : branches)
    if (branch.getNumResults() == 0 &&
        llvm::all_of(branch->getRegions(), [](Region &region) {
          return region.empty() || region.front().getOperations().size() == 1;
        }))
      branch->erase();
}

void pipeline::tagOpsInPlaceOfLoop(Block::iterator first, Block::iterator last,
                                   Location loop) {
  unsigned position = 0;
  for (Operation &op : llvm::make_range(first, last))
    op.walk<WalkOrder::PreOrder>([&](Operation *nested) {
      nested->setLoc(getPipelinedLocation(nested->getLoc(), loop, position++));
    });
}

namespace {

class PipelinedLoopEmitter {
public:
  PipelinedLoopEmitter(scf::ForOp loop, const LoopPrefetchAnalysis &analysis,
                       unsigned depth)
      : loop(loop), copies(analysis.rotated.begin(), analysis.rotated.end()),
        deferred(analysis.deferred.begin(), analysis.deferred.end()),
        depth(depth), ahead(depth - 1), loc(loop.getLoc()) {
    for (RotatedBuffer &copy : copies)
      for (CopyH2DOp fill : {copy.fill, copy.thenFill, copy.elseFill})
        if (fill) {
          movedOps.insert(fill.getOperation());
          if (copy.producer)
            movedOps.insert(copy.producer);
          Operation *inBody = loop.getBody()->findAncestorOpInBlock(*fill);
          if (inBody != fill.getOperation())
            movedInside[inBody].push_back(fill.getOperation());
        }
    for (DeferredCopy &copy : deferred)
      movedOps.insert(copy.copy.getOperation());
  }

  /// The allocs and deallocs `run` emitted beside the buffers they rotate.
  SmallVector<Operation *> takeEmittedBeside() {
    return std::move(emittedBeside);
  }

  void run() {
    // The new buffers live around the outermost op that holds the loop in
    // its function: a loop nested in another allocates them once, not in
    // every run of the outer body.
    Operation *outermost = loop;
    while (!isa<FunctionOpInterface>(outermost->getParentOp()))
      outermost = outermost->getParentOp();
    OpBuilder around(outermost);
    allocateRotatingBuffers(around, outermost);
    OpBuilder builder(loop);
    Value tripCount = buildTripCount(builder, loop);
    Value pipelined = builder.createOrFold<arith::MulIOp>(
        loc,
        builder.createOrFold<arith::DivUIOp>(loc, tripCount,
                                             constant(builder, depth)),
        constant(builder, depth));
    Value any = builder.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::sgt, pipelined, constant(builder, 0));
    emitIf(builder, loc, any,
           [&](OpBuilder &inside) { emitPipelinedPart(inside, pipelined); });
    emitRemainder(builder, pipelined, tripCount);
    // Freed after the loop's replacement, or after the outermost op; or
    // beside the buffer they rotate (allocateRotatingBuffers).
    around.setInsertionPointAfter(outermost);
    OpBuilder &freeing = outermost == loop ? builder : around;
    for (auto [copy, buffers] : llvm::zip_equal(copies, rotating)) {
      DeallocOp beside = besideDealloc.lookup(copy.buffer);
      OpBuilder besideBuilder(copy.buffer->getContext());
      if (beside)
        besideBuilder.setInsertionPointAfter(beside);
      // Beside the dealloc, where it stands in the input.
      OpBuilder &at = beside ? besideBuilder : freeing;
      Location freeLoc = beside ? beside.getLoc() : loc;
      for (Value buffer : llvm::drop_begin(buffers)) {
        auto dealloc = DeallocOp::create(at, freeLoc, buffer);
        if (beside)
          emittedBeside.push_back(dealloc);
      }
    }
    loop.erase();
  }

private:
  /// Allocates each rotated buffer's copies: before `outermost`, or, where
  /// the buffer is allocated and freed once in the block of `outermost`
  /// (and freed after it), right after its alloc and freed right after its
  /// dealloc. There the lowering makes them one allocation with it, and with
  /// the buffers allocated and freed beside it (AllocationGroups.h): the
  /// rotation adds no free, which waits for the whole device.
  void allocateRotatingBuffers(OpBuilder &builder, Operation *outermost) {
    for (RotatedBuffer &copy : copies) {
      SmallVector<Value> &buffers = rotating.emplace_back();
      buffers.push_back(copy.buffer.getResult());
      DeallocOp dealloc = getGroupableDealloc(copy.buffer);
      bool beside = dealloc &&
                    copy.buffer->getBlock() == outermost->getBlock() &&
                    outermost->isBeforeInBlock(dealloc);
      OpBuilder besideBuilder(copy.buffer->getContext());
      if (beside) {
        besideDealloc[copy.buffer] = dealloc;
        besideBuilder.setInsertionPointAfter(copy.buffer);
      }
      OpBuilder &at = beside ? besideBuilder : builder;
      for (unsigned i = 1; i < depth; ++i) {
        auto alloc = AllocOp::create(at, copy.buffer.getLoc(),
                                     copy.buffer.getType(), ValueRange{});
        buffers.push_back(alloc.getResult());
        if (beside)
          emittedBeside.push_back(alloc);
      }
    }
  }

  Value constant(OpBuilder &builder, int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  Value add(OpBuilder &builder, Value lhs, int64_t rhs) {
    return builder.createOrFold<arith::AddIOp>(loc, lhs,
                                               constant(builder, rhs));
  }
  /// The induction variable's value in iteration `iteration`.
  Value inductionValue(OpBuilder &builder, Value iteration) {
    Value scaled =
        builder.createOrFold<arith::MulIOp>(loc, iteration, loop.getStep());
    return builder.createOrFold<arith::AddIOp>(loc, loop.getLowerBound(),
                                               scaled);
  }

  /// Maps the induction variable to its value in `iteration` and every
  /// rotated buffer to its copy `set`.
  IRMapping mapIteration(OpBuilder &builder, Value iteration, unsigned set) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), inductionValue(builder, iteration));
    for (auto [copy, buffers] : llvm::zip(copies, rotating))
      mapping.map(copy.buffer.getResult(), buffers[set]);
    return mapping;
  }

  /// The body of iteration `iteration`, on rotating buffer `set`, without
  /// its fills and deferred copies.
  void emitIteration(OpBuilder &builder, Value iteration, unsigned set) {
    IRMapping mapping = mapIteration(builder, iteration, set);
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (movedOps.contains(&op))
        continue;
      builder.clone(op, mapping);
      // The fills in branches leave the branches' clones.
      for (Operation *moved : movedInside.lookup(&op))
        mapping.lookup(moved)->erase();
    }
  }

  /// The deferred copies of iteration `iteration`, from rotating buffer
  /// `set`, with the ops computing their destinations.
  void emitDeferred(OpBuilder &builder, Value iteration, unsigned set) {
    IRMapping mapping = mapIteration(builder, iteration, set);
    for (DeferredCopy &copy : deferred) {
      for (Operation *op : copy.targetSlice)
        if (!mapping.contains(op->getResult(0)))
          builder.clone(*op, mapping);
      builder.clone(*copy.copy, mapping);
    }
  }

  /// The prefetched copies of iteration `iteration`, into rotating buffer
  /// `set`, with the ops computing their sources.
  void emitCopies(OpBuilder &builder, Value iteration, unsigned set) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), inductionValue(builder, iteration));
    for (auto [copy, buffers] : llvm::zip(copies, rotating)) {
      mapping.map(copy.buffer.getResult(), buffers[set]);
      if (copy.branch) {
        emitBranchFills(builder, copy, mapping);
        continue;
      }
      if (!copy.fill)
        continue;
      for (Operation *op : copy.sourceSlice)
        if (!mapping.contains(op->getResult(0)))
          builder.clone(*op, mapping);
      if (copy.producer)
        builder.clone(*copy.producer, mapping);
      builder.clone(*copy.fill, mapping);
    }
  }

  /// The fills of `copy` in the branches of an scf.if, under the same
  /// condition: the ops of the slice in the body first, then an scf.if with
  /// each fill, after the ops of the slice in its branch.
  void emitBranchFills(OpBuilder &builder, RotatedBuffer &copy,
                       IRMapping &mapping) {
    // The condition's ops fold where the iteration is a constant (the
    // prologue's): a known condition issues its branch's copy directly.
    for (Operation *op : copy.branchSlice)
      if (op->getBlock() == loop.getBody() &&
          !mapping.contains(op->getResult(0)))
        cloneAndFold(builder, *op, mapping);
    Value condition = mapping.lookupOrDefault(copy.branch.getCondition());
    auto emitFill = [&](CopyH2DOp fill, OpBuilder &at) {
      // The ops of the branch are mapped apart: a value of the then branch
      // is not one of the else branch.
      IRMapping inBranch = mapping;
      for (Operation *op : copy.branchSlice)
        if (op->getBlock() == fill->getBlock() &&
            !inBranch.contains(op->getResult(0)))
          at.clone(*op, inBranch);
      at.clone(*fill, inBranch);
    };
    APInt known;
    if (matchPattern(condition, m_ConstantInt(&known))) {
      if (CopyH2DOp fill = known.isZero() ? copy.elseFill : copy.thenFill)
        emitFill(fill, builder);
      return;
    }
    auto branch = scf::IfOp::create(builder, copy.branch.getLoc(), condition,
                                    /*withElseRegion=*/bool(copy.elseFill));
    for (auto [fill, block] :
         {std::make_pair(copy.thenFill, branch.thenBlock()),
          std::make_pair(copy.elseFill, branch.elseBlock())}) {
      if (!fill)
        continue;
      OpBuilder at(block->getTerminator());
      emitFill(fill, at);
    }
  }

  /// Clones `op`, folded where its operands are constants.
  void cloneAndFold(OpBuilder &builder, Operation &op, IRMapping &mapping) {
    Operation *clone = builder.clone(op, mapping);
    SmallVector<Value> folded;
    if (failed(builder.tryFold(clone, folded)) || folded.empty())
      return;
    for (auto [original, value] : llvm::zip(op.getResults(), folded))
      mapping.map(original, value);
    clone->erase();
  }

  /// The original body of iteration `iteration`, copies included, on the
  /// original buffers.
  void emitUnpipelinedIteration(OpBuilder &builder, Value iteration) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), inductionValue(builder, iteration));
    for (Operation &op : loop.getBody()->without_terminator())
      builder.clone(op, mapping);
  }

  /// One slot of the pipeline: the body of iteration `iteration` on buffer
  /// `set` (its iteration number mod D), then the fills of the iteration
  /// `ahead` later, then the deferred copies of the iteration before.
  void emitSlot(OpBuilder &builder, Value iteration, unsigned set, bool fills,
                bool deferredCopies) {
    emitIteration(builder, iteration, set);
    if (fills)
      emitCopies(builder, add(builder, iteration, ahead), (set + ahead) % depth);
    if (deferredCopies)
      emitDeferred(builder, add(builder, iteration, -1),
                   (set + depth - 1) % depth);
  }

  /// Iterations [0, pipelined), `pipelined` a positive multiple of D: the
  /// fills of the first D - 1 iterations, slot 0 (nothing deferred before
  /// it), a loop over groups of D slots starting at 1, the last D - 1 slots
  /// (whose fills would be past the end), and the last deferred copies.
  void emitPipelinedPart(OpBuilder &builder, Value pipelined) {
    for (unsigned p = 0; p < ahead; ++p)
      emitCopies(builder, constant(builder, p), p);
    emitSlot(builder, constant(builder, 0), 0, /*fills=*/true,
             /*deferredCopies=*/false);
    Value lastPart =
        add(builder, pipelined, 1 - static_cast<int64_t>(depth));
    if (!matchPattern(lastPart, m_One())) {
      auto mainLoop = scf::ForOp::create(builder, loc, constant(builder, 1),
                                         lastPart, constant(builder, depth));
      OpBuilder inside(mainLoop.getBody()->getTerminator());
      for (unsigned r = 0; r < depth; ++r)
        emitSlot(inside, add(inside, mainLoop.getInductionVar(), r),
                 (1 + r) % depth, /*fills=*/true, /*deferredCopies=*/true);
    }
    for (unsigned r = 0; r + 1 < depth; ++r)
      emitSlot(builder, add(builder, lastPart, r), (1 + r) % depth,
               /*fills=*/false, /*deferredCopies=*/true);
    emitDeferred(builder, add(builder, pipelined, -1), depth - 1);
  }

  /// Iterations [pipelined, tripCount), as written: a loop, or written out
  /// when the bounds are constants.
  void emitRemainder(OpBuilder &builder, Value pipelined, Value tripCount) {
    std::optional<int64_t> from = getConstantIntValue(pipelined);
    std::optional<int64_t> to = getConstantIntValue(tripCount);
    if (from && to) {
      for (int64_t i = *from; i < *to; ++i)
        emitUnpipelinedIteration(builder, constant(builder, i));
      return;
    }
    auto remainder = scf::ForOp::create(builder, loc, pipelined, tripCount,
                                        constant(builder, 1));
    OpBuilder inside(remainder.getBody()->getTerminator());
    emitUnpipelinedIteration(inside, remainder.getInductionVar());
  }

  scf::ForOp loop;
  /// The rotated buffers, with their fills.
  SmallVector<RotatedBuffer> copies;
  SmallVector<DeferredCopy> deferred;
  unsigned depth;
  unsigned ahead;
  Location loc;
  /// For each rotated buffer, its copies.
  SmallVector<SmallVector<Value>> rotating;
  /// The dealloc of each rotated buffer whose copies are allocated and
  /// freed beside it (allocateRotatingBuffers).
  DenseMap<Operation *, DeallocOp> besideDealloc;
  /// The allocs and deallocs emitted beside the buffers they rotate.
  SmallVector<Operation *> emittedBeside;
  /// The fills and deferred copies, which leave their place in the body;
  /// those in branches by the op of the body that holds them.
  llvm::DenseSet<Operation *> movedOps;
  DenseMap<Operation *, SmallVector<Operation *>> movedInside;
};

} // namespace

SmallVector<Operation *> pipeline::emitPipelinedLoop(
    scf::ForOp loop, const LoopPrefetchAnalysis &analysis, unsigned depth) {
  PipelinedLoopEmitter emitter(loop, analysis, depth);
  emitter.run();
  return emitter.takeEmittedBeside();
}
