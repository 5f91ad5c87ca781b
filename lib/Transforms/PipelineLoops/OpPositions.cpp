//===- OpPositions.cpp - Ops of a function numbered in pre-order -*- C++ -*-===//

#include "PipelineLoops.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

OpPositions::OpPositions(Operation *root) {
  unsigned next = 0;
  // Iteratively, as nests may be deep: each op is entered, then its regions'
  // ops, then it is left.
  SmallVector<std::pair<Operation *, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [op, left] = stack.pop_back_val();
    if (left) {
      ranges[op].second = next - 1;
      continue;
    }
    ranges[op] = {next, next};
    ++next;
    stack.push_back({op, true});
    SmallVector<Operation *> nested;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &inner : block)
          nested.push_back(&inner);
    for (Operation *inner : llvm::reverse(nested))
      stack.push_back({inner, false});
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
