//===- PipelinedLoopEmitter.cpp - A loop with copies issued early -*- C++ -*-===//
//
// Rewrites an scf.for whose prefetched copies fill buffers A_k into a
// software pipeline of depth D (each copy issued a = D - 1 iterations ahead):
//
//   A_k[0] = A_k, A_k[1..D-1] = new vyre.alloc      // rotating buffers
//   T = trip count, P = (T / D) * D                 // pipelined iterations
//   if P > 0:
//     prologue:   copies of iterations 0 .. a-1
//     main loop:  for j = 0 to P - D step D:
//                   for r < D: body of iteration j + r on A_k[r],
//                              then the copies of iteration j + r + a
//     last group: iterations P - D .. P - 1, each followed by the copies
//                 a iterations ahead while those stay below P
//   remainder:    for i = P to T: the original body, on A_k itself
//   vyre.dealloc A_k[1..D-1]
//
// Iteration i < P always uses A_k[i mod D], and its copies were issued into
// that buffer a iterations before. The remainder (fewer than D iterations)
// runs as written. A constant trip count folds the guard away and writes
// the remainder out; otherwise the rewrite adds one scf.if and one scf.for.
//
//===----------------------------------------------------------------------===//

#include "PipelineLoops.h"

#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
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
  for (Operation &op : llvm::make_range(first, last))
    op.walk([&](Operation *nested) { ops.push_back(nested); });
  // Users come after their operands' definitions: erase back to front. Ops
  // with regions stay, so no erased op holds one still to visit.
  for (Operation *op : llvm::reverse(ops))
    if (op->getNumRegions() == 0 && isOpTriviallyDead(op))
      op->erase();
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
  PipelinedLoopEmitter(scf::ForOp loop, ArrayRef<PrefetchedCopy> copies,
                       unsigned depth)
      : loop(loop), copies(copies.begin(), copies.end()), depth(depth), ahead(depth - 1),
        loc(loop.getLoc()) {
    for (PrefetchedCopy &copy : this->copies)
      prefetchedOps.insert(copy.copy.getOperation());
  }

  void run() {
    OpBuilder builder(loop);
    allocateRotatingBuffers(builder);
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
    for (SmallVector<Value> &buffers : rotating)
      for (Value buffer : llvm::drop_begin(buffers))
        DeallocOp::create(builder, loc, buffer);
    loop.erase();
  }

private:
  void allocateRotatingBuffers(OpBuilder &builder) {
    for (PrefetchedCopy &copy : copies) {
      SmallVector<Value> &buffers = rotating.emplace_back();
      buffers.push_back(copy.buffer.getResult());
      for (unsigned i = 1; i < depth; ++i)
        buffers.push_back(AllocOp::create(builder, copy.buffer.getLoc(),
                                          copy.buffer.getType(), ValueRange{})
                              .getResult());
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

  /// The body of iteration `iteration`, on rotating buffer `set`, without
  /// its prefetched copies.
  void emitIteration(OpBuilder &builder, Value iteration, unsigned set) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), inductionValue(builder, iteration));
    for (auto [copy, buffers] : llvm::zip(copies, rotating))
      mapping.map(copy.buffer.getResult(), buffers[set]);
    for (Operation &op : loop.getBody()->without_terminator())
      if (!prefetchedOps.contains(&op))
        builder.clone(op, mapping);
  }

  /// The prefetched copies of iteration `iteration`, into rotating buffer
  /// `set`, with the ops computing their sources.
  void emitCopies(OpBuilder &builder, Value iteration, unsigned set) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), inductionValue(builder, iteration));
    for (auto [copy, buffers] : llvm::zip(copies, rotating)) {
      for (Operation *op : copy.sourceSlice)
        if (!mapping.contains(op->getResult(0)))
          builder.clone(*op, mapping);
      mapping.map(copy.buffer.getResult(), buffers[set]);
      builder.clone(*copy.copy, mapping);
    }
  }

  /// The original body of iteration `iteration`, copies included, on the
  /// original buffers.
  void emitUnpipelinedIteration(OpBuilder &builder, Value iteration) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), inductionValue(builder, iteration));
    for (Operation &op : loop.getBody()->without_terminator())
      builder.clone(op, mapping);
  }

  /// A group of D iterations starting at `first` (a multiple of D); the
  /// copies ahead are issued for the first `numPrefetching` iterations.
  void emitGroup(OpBuilder &builder, Value first, unsigned numPrefetching) {
    for (unsigned r = 0; r < depth; ++r) {
      Value iteration = add(builder, first, r);
      emitIteration(builder, iteration, r);
      if (r < numPrefetching)
        emitCopies(builder, add(builder, iteration, ahead),
                   (r + ahead) % depth);
    }
  }

  /// Iterations [0, pipelined): the prologue, the main loop, the last group.
  void emitPipelinedPart(OpBuilder &builder, Value pipelined) {
    for (unsigned p = 0; p < ahead; ++p)
      emitCopies(builder, constant(builder, p), p);
    Value lastGroup = add(builder, pipelined, -static_cast<int64_t>(depth));
    if (!matchPattern(lastGroup, m_Zero())) {
      auto mainLoop = scf::ForOp::create(builder, loc, constant(builder, 0),
                                         lastGroup, constant(builder, depth));
      OpBuilder inside(mainLoop.getBody()->getTerminator());
      emitGroup(inside, mainLoop.getInductionVar(), depth);
    }
    emitGroup(builder, lastGroup, depth - ahead);
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
  SmallVector<PrefetchedCopy> copies;
  unsigned depth;
  unsigned ahead;
  Location loc;
  /// For each prefetched copy, its buffer's rotating copies.
  SmallVector<SmallVector<Value>> rotating;
  llvm::DenseSet<Operation *> prefetchedOps;
};

} // namespace

void pipeline::emitPipelinedLoop(scf::ForOp loop,
                                 ArrayRef<PrefetchedCopy> copies,
                                 unsigned depth) {
  PipelinedLoopEmitter(loop, copies, depth).run();
}
