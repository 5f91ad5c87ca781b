//===- PeelFirstIteration.cpp - A loop's first iteration in front -*- C++
//-*-===//
//
// The copies moved out of a loop (HoistInvariantCopies.cpp) run in front of
// it, and the loop's kernels need them. No token crosses into a loop's body,
// so --overlap-copies waits for every copy still in flight where the loop
// starts: a first kernel that needs one of them waits for all. With the
// first iteration written out in front of the loop, each of its ops waits
// only for the copies it uses, and the later iterations find them done.
//
// The first iteration is written out when:
//  - the loop was not pipelined and at least one copy was moved out of it;
//  - its trip count is a constant of at least 1 and it carries no values;
//  - the first op of its body with device work is a launch or a copy that
//    does not use the destination of some copy moved out (otherwise it
//    waits for that copy wherever the iteration stands, and only the copies
//    it needs were moved);
//  - the function stays within the growth limit (the caller checks).
//
//===----------------------------------------------------------------------===//

#include "PipelineLoops.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

namespace {

/// The slots `op`'s memref operands may name (through views), and whether
/// one of them is not a slot the analysis knows.
void collectSlots(Operation *op, const SlotAccessAnalysis &slots,
                  llvm::SmallDenseSet<unsigned> &used, bool &unknown) {
  for (Value operand : op->getOperands()) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    std::optional<unsigned> slot =
        slots.getSlotNumber(SlotAccessAnalysis::resolveRoot(operand));
    if (slot)
      used.insert(*slot);
    else
      unknown = true;
  }
}

/// Whether `op` has device work or holds ops that may.
bool mayHaveDeviceWork(Operation &op) {
  if (op.getNumRegions() == 0)
    return isa<VyreDialect>(op.getDialect()) && !isa<AllocOp>(op);
  return op
      .walk([](Operation *nested) {
        return isa<VyreDialect>(nested->getDialect()) && !isa<AllocOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

} // namespace

bool pipeline::peelingFirstIterationPays(scf::ForOp loop,
                                         ArrayRef<CopyH2DOp> hoisted,
                                         const SlotAccessAnalysis &slots) {
  if (hoisted.empty() || loop.getNumRegionIterArgs() != 0)
    return false;
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->isZero())
    return false;
  Operation *first = nullptr;
  for (Operation &op : loop.getBody()->without_terminator())
    if (mayHaveDeviceWork(op)) {
      first = &op;
      break;
    }
  // Only a launch or a copy directly in the body is known to need no more
  // than the buffers it names.
  if (!first || first->getNumRegions() != 0 ||
      !isa<DispatchOp, CopyH2DOp, CopyD2HOp>(first))
    return false;
  llvm::SmallDenseSet<unsigned> used;
  bool unknown = false;
  collectSlots(first, slots, used, unknown);
  if (unknown)
    return false;
  return llvm::any_of(hoisted, [&](CopyH2DOp copy) {
    std::optional<unsigned> slot =
        slots.getSlotNumber(SlotAccessAnalysis::resolveRoot(copy.getTarget()));
    return slot && !used.contains(*slot);
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
