//===- HoistInvariantCopies.cpp - Copies every iteration repeats -*- C++ -*-===//
//
// A copy in a loop body whose source and destination are defined outside the
// loop writes the same bytes every iteration, unless the loop writes its
// source or its destination. It moves in front of the loop when:
//
//  - no other op of the loop writes the destination's slots, or writes (or
//    frees) the source host buffer, and none has unknown effects;
//  - nothing in the body reads the destination before the copy (the first
//    iteration would read the old contents).
//
// A loop that may run zero times must not run the copy, unless nothing
// after the loop reads what the copy wrote and running it is safe: the copy
// moves only when the trip count is a positive constant, or when the
// destination is a buffer nothing after the loop uses (a use before the loop
// in an enclosing loop's body counts as after: it runs again in that loop's
// next iteration) and nothing frees before it, and the source is a fixed part
// of a memref argument the function never frees or of a host allocation
// freed only after the loop (a row computed from the trip count, or a buffer
// freed where the loop does not run, would be read out of bounds or after
// its free). (Moved under an scf.if, the copy would be
// joined at the end of the scf.if's block, on the host.)
//
//===----------------------------------------------------------------------===//

#include "PipelineLoops.h"

#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

namespace {

bool mayTouchSlots(const AccessSummary &summary, ArrayRef<unsigned> slots,
                   bool writesOnly) {
  return llvm::any_of(slots, [&](unsigned slot) {
    return writesOnly ? summary.mayWrite(slot) : summary.mayAccess(slot);
  });
}

/// Whether `copy` writes the same bytes in every iteration of `loop`.
/// `footprints`: those of the ops of the body, in order.
bool isInvariant(scf::ForOp loop, CopyH2DOp copy,
                 const SlotAccessAnalysis &slots,
                 HostBufferAliasing &hostAliasing,
                 ArrayRef<OpFootprint> footprints) {
  if (!loop.isDefinedOutsideOfLoop(copy.getSource()) ||
      !loop.isDefinedOutsideOfLoop(copy.getTarget()))
    return false;
  bool exact = true;
  SmallVector<unsigned> targetSlots =
      slots.getSlotsOf(copy.getTarget(), &exact);
  if (!exact)
    return false;
  Value hostRoot = SlotAccessAnalysis::resolveRoot(copy.getSource());
  bool beforeCopy = true;
  for (auto [op, footprint] :
       llvm::zip_equal(loop.getBody()->without_terminator(), footprints)) {
    if (&op == copy.getOperation()) {
      beforeCopy = false;
      continue;
    }
    if (footprint.unknown ||
        mayWriteHostBuffer(footprint.device, hostRoot, hostAliasing) ||
        mayWriteHostBuffer(footprint.host, hostRoot, hostAliasing))
      return false;
    for (const SideAccess *side : {&footprint.device, &footprint.host})
      if (side->slots.isUnknown() ||
          mayTouchSlots(side->slots, targetSlots, /*writesOnly=*/!beforeCopy))
        return false;
  }
  return true;
}

/// Whether the copy's destination is a buffer allocated in the function that
/// nothing after the loop uses, except to free it, and nothing frees before
/// the loop.
bool isDeadAfterLoop(scf::ForOp loop, CopyH2DOp copy) {
  auto alloc = copy.getTarget().getDefiningOp<AllocOp>();
  if (!alloc)
    return false;
  // A view made before the loop could be read after it.
  return llvm::all_of(alloc->getUsers(), [&](Operation *user) {
    UseAroundLoop use = classifyUseAroundLoop(user, loop, alloc);
    if (isa<DeallocOp>(user))
      return use == UseAroundLoop::After;
    return use == UseAroundLoop::InLoop || use == UseAroundLoop::Before;
  });
}

/// Whether the copy's source is valid whether or not the loop runs: a fixed
/// part (views with static offsets, sizes and strides) of a memref argument
/// the function never frees, or of a host allocation freed only after the
/// loop. A source computed from values the loop's bounds may make invalid (a
/// row past the end at zero trips), or a buffer freed on the path where the
/// loop does not run, is not.
bool isSourceAlwaysValid(scf::ForOp loop, CopyH2DOp copy) {
  Value source = copy.getSource();
  while (isa_and_present<memref::SubViewOp, memref::CastOp>(
      source.getDefiningOp())) {
    if (auto subview = source.getDefiningOp<memref::SubViewOp>()) {
      if (!subview.getOffsets().empty() || !subview.getSizes().empty() ||
          !subview.getStrides().empty())
        return false;
      source = subview.getSource();
    } else {
      source = source.getDefiningOp<memref::CastOp>().getSource();
    }
  }
  if (auto argument = dyn_cast<BlockArgument>(source))
    return isa<FunctionOpInterface>(argument.getOwner()->getParentOp()) &&
           llvm::none_of(argument.getUsers(), [](Operation *user) {
             return isa<memref::DeallocOp>(user);
           });
  Operation *alloc = source.getDefiningOp();
  return isa_and_present<memref::AllocOp, memref::AllocaOp>(alloc) &&
         llvm::all_of(source.getUsers(), [&](Operation *user) {
           return !isa<memref::DeallocOp>(user) ||
                  classifyUseAroundLoop(user, loop, alloc) ==
                      UseAroundLoop::After;
         });
}

} // namespace

SmallVector<CopyH2DOp>
pipeline::hoistInvariantCopies(scf::ForOp loop, const SlotAccessAnalysis &slots,
                               HostBufferAliasing &hostAliasing,
                               OpFootprintCache &footprintCache) {
  SmallVector<CopyH2DOp> invariant;
  // The body's footprints, once: each copy is checked against all of them.
  std::vector<OpFootprint> footprints;
  bool hasCopies = false;
  for (Operation &op : loop.getBody()->without_terminator())
    hasCopies |= isa<CopyH2DOp>(op);
  if (hasCopies)
    for (Operation &op : loop.getBody()->without_terminator())
      footprints.push_back(footprintCache.get(&op));
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto copy = dyn_cast<CopyH2DOp>(&op))
      if (isInvariant(loop, copy, slots, hostAliasing, footprints))
        invariant.push_back(copy);
  if (invariant.empty())
    return invariant;
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  bool runs = lower && upper && *lower < *upper;
  SmallVector<CopyH2DOp> moved;
  for (CopyH2DOp copy : invariant) {
    // Moved out of a loop that may not run, the copy runs where the
    // original did not: it must write nothing anyone reads and read only
    // memory valid on every path.
    if (!runs &&
        (!isDeadAfterLoop(loop, copy) || !isSourceAlwaysValid(loop, copy)))
      continue;
    copy->moveBefore(loop);
    moved.push_back(copy);
  }
  return moved;
}
