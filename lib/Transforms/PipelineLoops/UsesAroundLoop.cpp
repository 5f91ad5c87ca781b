//===- UsesAroundLoop.cpp - Where a use outside a loop runs -----*- C++ -*-===//
//
// A buffer allocated outside a loop may be used outside it too. A use that
// precedes the loop in the loop's block runs before its first iteration,
// unless that block sits in an enclosing op that may run it again (an outer
// loop, or an op vyre cannot tell about) within the life of the buffer: then
// the use also runs after the loop, in the enclosing op's next run, and sees
// what the last iteration left.
//
//===----------------------------------------------------------------------===//

#include "PipelineLoops.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

/// Whether `op` may run one of its regions more than once per run of itself.
/// Only ops that say how their regions run (RegionBranchOpInterface) and have
/// no cycle among them run each region at most once.
static bool mayRepeatRegions(Operation *op) {
  auto branch = dyn_cast<RegionBranchOpInterface>(op);
  return !branch || branch.hasLoop();
}

/// Whether the blocks between `op` and `definition` may run `op`'s block
/// more than once per run of `definition`: an enclosing op that may repeat
/// its regions, or a region of several blocks (whose branches may form a
/// loop), from `op`'s own region up to the one that holds `definition`.
static bool isRepeatedWithin(Operation *op, Operation *definition) {
  for (Operation *inner = op; inner && !inner->isAncestor(definition);
       inner = inner->getParentOp()) {
    Region *region = inner->getParentRegion();
    if (region && !region->hasOneBlock())
      return true;
    Operation *enclosing = inner->getParentOp();
    if (enclosing && !enclosing->isAncestor(definition) &&
        mayRepeatRegions(enclosing))
      return true;
  }
  return false;
}

UseAroundLoop pipeline::classifyUseAroundLoop(Operation *user, scf::ForOp loop,
                                              Operation *definition) {
  if (loop->isAncestor(user))
    return UseAroundLoop::InLoop;
  // The innermost block around the loop that holds the user, and the op of
  // that block that holds the loop.
  Operation *holder = loop;
  Operation *outside = nullptr;
  while (holder &&
         !(outside = holder->getBlock()->findAncestorOpInBlock(*user)))
    holder = holder->getParentOp();
  if (!holder || !outside->isBeforeInBlock(holder))
    return UseAroundLoop::After;
  if (isRepeatedWithin(holder, definition))
    return UseAroundLoop::BeforeAndAfter;
  return user->getNumResults() != 0 ? UseAroundLoop::DerivesBefore
                                    : UseAroundLoop::Before;
}
