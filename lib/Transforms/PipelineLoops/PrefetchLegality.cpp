//===- PrefetchLegality.cpp - Which copies a loop may issue early -*- C++ -*-===//
//
// A copy C from host buffer H into buffer A, in the body of an scf.for, may
// be issued d iterations early into one of d + 1 rotating copies of A when:
//
//  - A is a whole `vyre.alloc` buffer of static shape, allocated outside the
//    loop: new copies of it can be made and sized;
//  - nothing in the body touches A before C: every iteration starts by
//    overwriting it, so no iteration sees what the one before left;
//  - outside the loop, A is used only before the loop (by ops that make no
//    views of it) or freed: nothing after the loop asks which copy holds the
//    last iteration's data;
//  - C's source is computed from the induction variable and values from
//    outside the loop by ops without effects, so it can be computed early;
//  - no op of the body writes H, has unknown effects, or may touch any slot
//    (an access the analysis cannot place could reach A through a copy the
//    rewrite does not rename);
//  - the body has no scf.if: the rewrite writes the body out several times,
//    and would multiply the paths through the function.
//
// The early copy then crosses only ops of later iterations that touch
// neither A (renamed per iteration) nor H.
//
//===----------------------------------------------------------------------===//

#include "PipelineLoops.h"

#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

namespace {

std::string describeOp(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "'";
}

/// The size in bytes of a static-shape memref of int or float elements.
std::optional<uint64_t> getByteSize(MemRefType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  uint64_t bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * ((bits + 7) / 8);
}

class PrefetchChecker {
public:
  PrefetchChecker(scf::ForOp loop, const SlotAccessAnalysis &slots,
                  HostBufferAliasing &hostAliasing)
      : loop(loop), slots(slots), hostAliasing(hostAliasing) {}

  LoopPrefetchAnalysis run() {
    LoopPrefetchAnalysis result;
    if (loop.getNumResults() != 0) {
      result.loopReason = "the loop carries values (iter_args)";
      return result;
    }
    if (loop.getUnsignedCmp()) {
      result.loopReason = "the loop compares its bounds unsigned";
      return result;
    }
    // Each iteration's body is written out 2D + 1 times: branches would
    // multiply the paths through the function (and those the referee checks).
    if (loop.getBody()->walk([](scf::IfOp) { return WalkResult::interrupt(); })
            .wasInterrupted()) {
      result.loopReason = "the body branches (scf.if), and pipelining would "
                          "write each branch out once per iteration it unrolls";
      return result;
    }
    for (Operation &op : loop.getBody()->without_terminator()) {
      footprints.push_back(computeOpFootprint(&op, slots));
      if (footprints.back().unknown && result.loopReason.empty())
        result.loopReason =
            describeOp(&op) + " in the body has effects vyre cannot model";
    }
    if (!result.loopReason.empty())
      return result;
    for (auto [index, op] :
         llvm::enumerate(loop.getBody()->without_terminator())) {
      auto copy = dyn_cast<CopyH2DOp>(&op);
      if (!copy)
        continue;
      PrefetchedCopy prefetched;
      std::string reason = check(copy, index, prefetched);
      if (reason.empty())
        result.prefetched.push_back(std::move(prefetched));
      else
        result.rejected.push_back({copy, std::move(reason)});
    }
    return result;
  }

private:
  std::string check(CopyH2DOp copy, unsigned index, PrefetchedCopy &result) {
    auto alloc = copy.getTarget().getDefiningOp<AllocOp>();
    if (!alloc || loop->isAncestor(alloc))
      return "its destination is not a whole vyre.alloc buffer allocated "
             "outside the loop";
    std::optional<uint64_t> bytes = getByteSize(alloc.getType());
    if (!bytes)
      return "its destination's size is not known statically";
    unsigned slot = *slots.getSlotNumber(alloc.getResult());
    std::string slotName = "slot " + std::to_string(slot);
    if (std::string reason = checkBufferUses(copy, alloc, slotName);
        !reason.empty())
      return reason;
    if (failed(collectSourceSlice(copy, result.sourceSlice)))
      return "its source is computed inside the loop by an op with effects";
    Value hostRoot = SlotAccessAnalysis::resolveRoot(copy.getSource());
    for (auto [otherIndex, other] :
         llvm::enumerate(loop.getBody()->without_terminator())) {
      const OpFootprint &footprint = footprints[otherIndex];
      if (&other == copy.getOperation())
        continue;
      if (mayWriteHostBuffer(footprint.device, hostRoot, hostAliasing) ||
          mayWriteHostBuffer(footprint.host, hostRoot, hostAliasing))
        return describeOp(&other) + " in the body may write its source";
      if (footprint.device.slots.isUnknown() ||
          footprint.host.slots.isUnknown())
        return describeOp(&other) +
               " in the body may touch any slot, " + slotName + " included";
      if (otherIndex < index && (footprint.device.slots.mayAccess(slot) ||
                                 footprint.host.slots.mayAccess(slot)))
        return describeOp(&other) + " touches " + slotName +
               " before the copy fills it: an iteration sees what the one "
               "before left";
    }
    result.copy = copy;
    result.buffer = alloc;
    result.bytes = *bytes;
    return "";
  }

  /// Checks that every use of the buffer is the copy's, an op in the body
  /// after it, an op before the loop that makes no view of it, or a free.
  std::string checkBufferUses(CopyH2DOp copy, AllocOp alloc,
                              const std::string &slotName) {
    Block *body = loop.getBody();
    for (Operation *user : alloc->getUsers()) {
      if (Operation *inBody = body->findAncestorOpInBlock(*user)) {
        if (inBody != copy.getOperation() && inBody->isBeforeInBlock(copy))
          return describeOp(inBody) + " touches " + slotName +
                 " before the copy fills it: an iteration sees what the one "
                 "before left";
        continue;
      }
      if (isa<DeallocOp>(user))
        continue;
      Operation *outside = loop->getBlock()->findAncestorOpInBlock(*user);
      if (!outside || !outside->isBeforeInBlock(loop))
        return slotName + " is used after the loop, which would have to know "
                          "which rotating buffer the last iteration filled";
      if (user->getNumResults() != 0)
        return describeOp(user) + " before the loop derives a value from " +
               slotName + ", which the loop might use unrenamed";
    }
    return "";
  }

  /// Collects, in body order, the ops of the body that compute the copy's
  /// source; fails if one of them has effects or regions.
  LogicalResult collectSourceSlice(CopyH2DOp copy,
                                   SmallVectorImpl<Operation *> &slice) {
    Block *body = loop.getBody();
    SmallVector<Value> worklist{copy.getSource()};
    llvm::SmallPtrSet<Operation *, 8> seen;
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != body || !seen.insert(def).second)
        continue;
      if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
        return failure();
      slice.push_back(def);
      llvm::append_range(worklist, def->getOperands());
    }
    llvm::sort(slice, [](Operation *lhs, Operation *rhs) {
      return lhs->isBeforeInBlock(rhs);
    });
    return success();
  }

  scf::ForOp loop;
  const SlotAccessAnalysis &slots;
  HostBufferAliasing &hostAliasing;
  /// The footprint of each op of the body, in order.
  std::vector<OpFootprint> footprints;
};

} // namespace

bool pipeline::mayWriteHostBuffer(const SideAccess &side, Value hostRoot,
                                  HostBufferAliasing &hostAliasing) {
  if (side.anyHostWrite)
    return true;
  return llvm::any_of(side.hostWrites, [&](Value written) {
    return written == hostRoot || hostAliasing.mayAlias(written, hostRoot);
  });
}

LoopPrefetchAnalysis pipeline::analyzeLoopPrefetch(
    scf::ForOp loop, const SlotAccessAnalysis &slots,
    HostBufferAliasing &hostAliasing) {
  return PrefetchChecker(loop, slots, hostAliasing).run();
}
