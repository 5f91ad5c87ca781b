//===- PeelFirstIteration.cpp - First iterations in front -------*- C++ -*-===//
//
// The copies issued right in front of a loop (those moved out of it by
// HoistInvariantCopies.cpp, or the fills of a pipelined loop's second
// iteration, which PipelinedLoopEmitter.cpp puts before its steady-state
// loop) run while the loop starts, and its kernels need them. No token
// crosses into a loop's body, so --overlap-copies waits for every copy still
// in flight where the loop starts: a first kernel that needs one of them
// waits for all. With the first iteration written out in front of the loop,
// each of its ops waits only for the copies it uses, and the later
// iterations find them done (or, in a pipelined loop, issued an iteration
// earlier).
//
// The first iteration is written out when:
//  - the loop's trip count is a constant of at least 1, it carries no
//    values, and no region op in its body but a loop holds device work (a
//    branch written out once more would double the branch combinations
//    --vyre-verify-schedule checks);
//  - the first op of its body with device work is a launch or a copy whose
//    device buffers are all allocations, and it does not use the
//    destination (an allocation too, used in the loop) of some copy right
//    in front of the loop (only ops without effects between); otherwise it
//    waits for that copy wherever it stands;
//  - the function stays within the growth limit (the caller checks).
//
//===----------------------------------------------------------------------===//

#include "PipelineLoops.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

namespace {

/// Whether `op` has device work or holds ops that may.
bool mayHaveDeviceWork(Operation &op) {
  auto isDeviceWork = [](Operation *nested) {
    return isa<VyreDialect>(nested->getDialect()) && !isa<AllocOp>(nested);
  };
  if (op.getNumRegions() == 0)
    return isDeviceWork(&op);
  return op
      .walk([&](Operation *nested) {
        return isDeviceWork(nested) ? WalkResult::interrupt()
                                    : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The allocation `buffer` is (through views), or null.
AllocOp allocationOf(Value buffer) {
  return SlotAccessAnalysis::resolveRoot(buffer).getDefiningOp<AllocOp>();
}

/// Whether an op inside `loop` uses `buffer`, directly or through a view.
bool isUsedIn(scf::ForOp loop, AllocOp buffer) {
  SmallVector<Value> worklist{buffer.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (loop->isProperAncestor(user))
        return true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value)
        worklist.push_back(view.getViewDest());
    }
  }
  return false;
}

} // namespace

SmallVector<CopyH2DOp> pipeline::copiesInFrontOf(scf::ForOp loop) {
  SmallVector<CopyH2DOp> copies;
  for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto copy = dyn_cast<CopyH2DOp>(op)) {
      copies.push_back(copy);
      continue;
    }
    if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      break;
  }
  return copies;
}

bool pipeline::peelingFirstIterationPays(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() != 0)
    return false;
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->isZero())
    return false;
  SmallVector<CopyH2DOp> inFront = copiesInFrontOf(loop);
  if (inFront.empty())
    return false;
  // Nor a body that branches around device work: each copy of a branch has
  // a condition of its own, and --vyre-verify-schedule checks every
  // combination of them.
  bool branches = loop.getBody()
                      ->walk([](Operation *op) {
                        return op->getNumRegions() != 0 &&
                                       !isa<scf::ForOp>(op) &&
                                       mayHaveDeviceWork(*op)
                                   ? WalkResult::interrupt()
                                   : WalkResult::advance();
                      })
                      .wasInterrupted();
  if (branches)
    return false;
  Operation *first = nullptr;
  for (Operation &op : loop.getBody()->without_terminator())
    if (mayHaveDeviceWork(op)) {
      first = &op;
      break;
    }
  // Only a launch or a copy directly in the body is known to need no more
  // than the buffers it names.
  if (!first || !isa<DispatchOp, CopyH2DOp, CopyD2HOp>(first))
    return false;
  // The device buffers it uses: each must be an allocation (one the
  // analysis cannot trace may be any).
  SmallVector<Value> deviceOperands;
  if (auto copy = dyn_cast<CopyH2DOp>(first))
    deviceOperands.push_back(copy.getTarget());
  else if (auto copy = dyn_cast<CopyD2HOp>(first))
    deviceOperands.push_back(copy.getSource());
  else
    for (Value operand : first->getOperands())
      if (isa<BaseMemRefType>(operand.getType()))
        deviceOperands.push_back(operand);
  llvm::SmallPtrSet<Operation *, 8> used;
  for (Value operand : deviceOperands) {
    AllocOp buffer = allocationOf(operand);
    if (!buffer)
      return false;
    used.insert(buffer);
  }
  return llvm::any_of(inFront, [&](CopyH2DOp copy) {
    AllocOp target = allocationOf(copy.getTarget());
    return target && !used.contains(target) && isUsedIn(loop, target);
  });
}

void pipeline::peelFirstIteration(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  OpBuilder builder(loop);
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), loop.getLowerBound());
  for (Operation &op : loop.getBody()->without_terminator())
    builder.clone(op, mapping);
  if (trips && trips->isOne()) {
    loop.erase();
    return;
  }
  // The trip count is a constant: so are the bounds and the step.
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  Type type = loop.getInductionVar().getType();
  Value next;
  if (lower && step)
    next = arith::ConstantOp::create(
        builder, loop.getLoc(), builder.getIntegerAttr(type, *lower + *step));
  else
    next = arith::AddIOp::create(builder, loop.getLoc(), loop.getLowerBound(),
                                 loop.getStep());
  loop.setLowerBound(next);
}
