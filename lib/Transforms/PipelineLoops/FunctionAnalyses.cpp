//===- FunctionAnalyses.cpp - A function's analyses across rewrites -*- C++
//-*-===//

#include "FunctionAnalyses.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

LoopRewriteScope::LoopRewriteScope(scf::ForOp loop)
    : block(loop->getBlock()), before(loop->getPrevNode()),
      after(loop->getNextNode()), outermost(loop) {
  while (!isa<FunctionOpInterface>(outermost->getParentOp()))
    outermost = outermost->getParentOp();
  beforeOutermost = outermost->getPrevNode();
  afterOutermost = outermost->getNextNode();
  loop->walk<WalkOrder::PreOrder>([&](Operation *op) {
    replaced.push_back(op);
    if (auto alloc = dyn_cast<AllocOp>(op))
      replacedRoots.push_back({op, alloc.getMemref()});
  });
}

namespace {
/// The ops of a block strictly between two of them (null: its ends).
struct OpsBetween {
  OpsBetween(Block *block, Operation *before, Operation *after)
      : block(block),
        first(before ? std::next(before->getIterator()) : block->begin()),
        last(after ? after->getIterator() : block->end()) {}
  Block *block;
  Block::iterator first, last;
};
} // namespace

void FunctionAnalyses::update(const LoopRewriteScope &scope,
                              ArrayRef<Operation *> emittedBeside) {
  // Around the op that holds the loop first: the gap left for the ops in
  // the loop's place may end at the first op after it.
  SmallVector<OpsBetween, 3> changed;
  if (scope.outermost != scope.replaced.front()) {
    Block *body = scope.outermost->getBlock();
    changed.emplace_back(body, scope.beforeOutermost, scope.outermost);
    changed.emplace_back(body, scope.outermost, scope.afterOutermost);
  }
  changed.emplace_back(scope.block, scope.before, scope.after);

  SmallVector<Operation *> added;
  for (OpsBetween &ops : changed)
    for (Operation &op : llvm::make_range(ops.first, ops.last))
      op.walk<WalkOrder::PreOrder>(
          [&](Operation *nested) { added.push_back(nested); });
  // An op of the loop not found again was erased; a new op may have taken
  // its address, and is then taken for it, which every analysis below
  // bears: what it knows of the address is replaced.
  llvm::DenseSet<Operation *> present(added.begin(), added.end());
  SmallVector<Operation *> erased;
  for (Operation *op : scope.replaced)
    if (!present.contains(op))
      erased.push_back(op);
  SmallVector<Value> erasedRoots;
  for (auto [op, root] : scope.replacedRoots)
    if (!present.contains(op))
      erasedRoots.push_back(root);

  for (auto [index, ops] : llvm::enumerate(changed))
    positions.renumber(ops.block, ops.first, ops.last,
                       index == 0 ? ArrayRef(erased) : ArrayRef<Operation *>());
  // The ops emitted beside the buffers they rotate, where the ranges above
  // do not hold them: each run numbered between the ops around it, and
  // made known before the ops that use them (a new buffer is a slot before
  // a launch on it is summarized).
  SmallVector<Operation *> beside;
  for (Operation *op : emittedBeside)
    if (!present.contains(op))
      beside.push_back(op);
  llvm::DenseSet<Operation *> besideSet(beside.begin(), beside.end());
  for (Operation *op : beside) {
    Operation *previous = op->getPrevNode();
    if (previous && besideSet.contains(previous))
      continue;
    Operation *end = op;
    while (end->getNextNode() && besideSet.contains(end->getNextNode()))
      end = end->getNextNode();
    positions.renumber(op->getBlock(), op->getIterator(),
                       std::next(end->getIterator()), {});
  }
  added.insert(added.begin(), beside.begin(), beside.end());
  slots.update(erasedRoots, added);
  footprints.forget(erased);
  footprints.forget(added);
  for (Operation *holder = scope.block->getParentOp(); holder;
       holder = holder->getParentOp()) {
    footprints.forget(holder);
    if (holder == function.getOperation())
      break;
  }
  hostAliasing.emplace(function);
  // The ops in the changed ranges before the rewrite were the loop's.
  numOps = numOps - scope.replaced.size() + added.size();
}
