//===- OpPositions.cpp - Ops of a function numbered in pre-order -*- C++ -*-===//

#include "PipelineLoops.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

/// The numbers left free after each op when the whole root is numbered: room
/// for the ops that rewrites put in place of others.
static constexpr OpPositions::Position kGap = OpPositions::Position(1) << 32;

/// Visits `ops` and all nested in them, in pre-order, iteratively, as nests
/// may be deep: `enter` on the way into an op, `leave` once all inside it are
/// visited.
template <typename EnterFn, typename LeaveFn>
static void visitInPreOrder(ArrayRef<Operation *> ops, EnterFn enter,
                            LeaveFn leave) {
  SmallVector<std::pair<Operation *, bool>> stack;
  for (Operation *op : llvm::reverse(ops))
    stack.push_back({op, false});
  SmallVector<Operation *> nested;
  while (!stack.empty()) {
    auto [op, left] = stack.pop_back_val();
    if (left) {
      leave(op);
      continue;
    }
    enter(op);
    stack.push_back({op, true});
    nested.clear();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &inner : block)
          nested.push_back(&inner);
    for (Operation *inner : llvm::reverse(nested))
      stack.push_back({inner, false});
  }
}

OpPositions::OpPositions(Operation *root) : root(root) { numberAll(); }

void OpPositions::numberAll() {
  ranges.clear();
  sortedUsers.clear();
  Position next = 0;
  visitInPreOrder(
      {root},
      [&](Operation *op) {
        ranges[op] = {next, next};
        next += kGap;
      },
      [&](Operation *op) { ranges[op].second = next - kGap; });
}

OpPositions::Position OpPositions::numberBefore(Block *block,
                                                Block::iterator first) const {
  if (first != block->begin())
    return exit(&*std::prev(first));
  // The last op of an earlier block of the region, or of an earlier region
  // of the op that holds them; otherwise that op itself.
  Region *region = block->getParent();
  Operation *holder = region->getParentOp();
  for (Block &earlier :
       llvm::reverse(llvm::make_range(region->begin(), block->getIterator())))
    if (!earlier.empty())
      return exit(&earlier.back());
  for (Region &earlier : llvm::reverse(llvm::make_range(
           holder->getRegions().begin(),
           holder->getRegions().begin() + region->getRegionNumber())))
    for (Block &earlierBlock : llvm::reverse(earlier))
      if (!earlierBlock.empty())
        return exit(&earlierBlock.back());
  return enter(holder);
}

OpPositions::Position OpPositions::numberAfter(Block *block,
                                               Block::iterator last) const {
  // The first op after, in pre-order, outside the ops that hold the block
  // where they have nothing after it.
  while (true) {
    if (last != block->end())
      return enter(&*last);
    Region *region = block->getParent();
    Operation *holder = region->getParentOp();
    for (Block &later :
         llvm::make_range(std::next(block->getIterator()), region->end()))
      if (!later.empty())
        return enter(&later.front());
    for (Region &later :
         llvm::drop_begin(holder->getRegions(), region->getRegionNumber() + 1))
      for (Block &laterBlock : later)
        if (!laterBlock.empty())
          return enter(&laterBlock.front());
    if (holder == root || !holder->getBlock())
      return std::numeric_limits<Position>::max();
    block = holder->getBlock();
    last = std::next(holder->getIterator());
  }
}

void OpPositions::renumber(Block *block, Block::iterator first,
                           Block::iterator last, ArrayRef<Operation *> erased) {
  sortedUsers.clear();
  for (Operation *op : erased)
    ranges.erase(op);
  SmallVector<Operation *> ops = llvm::map_to_vector(
      llvm::make_range(first, last), [](Operation &op) { return &op; });
  Position count = 0;
  visitInPreOrder(
      ops, [&](Operation *) { ++count; }, [](Operation *) {});
  if (count == 0)
    return;
  Position low = numberBefore(block, first);
  Position high = numberAfter(block, last);
  if (high <= low || high - low - 1 < count)
    return numberAll();
  Position stride = (high - low) / (count + 1);
  Position next = low + stride;
  visitInPreOrder(
      ops,
      [&](Operation *op) {
        ranges[op] = {next, next};
        next += stride;
      },
      [&](Operation *op) { ranges[op].second = next - stride; });
  Position lastNumber = next - stride;
  for (Operation *holder = block->getParentOp(); holder;
       holder = holder->getParentOp()) {
    Position &holderExit = ranges[holder].second;
    holderExit = std::max(holderExit, lastNumber);
    if (holder == root)
      break;
  }
}

ArrayRef<Operation *> OpPositions::getSortedUsers(Value value) {
  auto [it, inserted] = sortedUsers.try_emplace(value);
  if (inserted) {
    for (Operation *user : value.getUsers())
      it->second.push_back(user);
    llvm::sort(it->second, [&](Operation *lhs, Operation *rhs) {
      return enter(lhs) < enter(rhs);
    });
    it->second.erase(llvm::unique(it->second), it->second.end());
  }
  return it->second;
}
