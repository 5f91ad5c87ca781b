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
//    last iteration's data. A use before the loop in the body of an
//    enclosing loop is a use after it: it runs again in the enclosing loop's
//    next iteration (UsesAroundLoop.cpp);
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
// The destination of a copy whose source the body writes (a host op fills
// a staging buffer, then it is copied in) rotates too, the copy staying in
// place, on the same conditions of where it is used: the copy of iteration
// i + 1 then need not wait for the kernels of iteration i that read the
// buffer of iteration i.
//
// A buffer Y that a launch declares it overwrites (`access [..., overwrite]`)
// rotates too, without a copy, on the same conditions of where Y is used:
// the launch is the first op of the body to touch it, so no iteration sees
// what the one before left in it. Its copy back to the host (a D2H copy
// after the launch) then need not finish before the next iteration's launch.
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
                  HostBufferAliasing &hostAliasing, OpPositions &positions,
                  OpFootprintCache &footprintCache)
      : loop(loop), slots(slots), hostAliasing(hostAliasing),
        positions(positions), footprintCache(footprintCache) {}

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
    // The slots arithmetic is on `index`.
    if (!loop.getInductionVar().getType().isIndex()) {
      result.loopReason = "its induction variable is not an index";
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
      footprints.push_back(footprintCache.get(&op));
      if (footprints.back().unknown && result.loopReason.empty())
        result.loopReason =
            describeOp(&op) + " in the body has effects vyre cannot model";
    }
    if (!result.loopReason.empty())
      return result;
    for (auto [index, op] :
         llvm::enumerate(loop.getBody()->without_terminator())) {
      if (auto dispatch = dyn_cast<DispatchOp>(&op))
        collectOverwritten(dispatch, result);
      auto copy = dyn_cast<CopyH2DOp>(&op);
      if (!copy)
        continue;
      RotatedBuffer rotated;
      bool sourceWritten = false;
      std::string reason = check(copy, index, rotated, sourceWritten);
      if (reason.empty()) {
        result.rotated.push_back(std::move(rotated));
        continue;
      }
      result.rejected.push_back({copy, std::move(reason)});
      if (sourceWritten)
        if (std::optional<RotatedBuffer> inPlace =
                checkRotatesInPlace(copy, index, result))
          result.rotated.push_back(std::move(*inPlace));
    }
    for (auto [index, op] :
         llvm::enumerate(loop.getBody()->without_terminator()))
      if (auto copy = dyn_cast<CopyD2HOp>(&op))
        if (std::optional<DeferredCopy> deferred =
                checkDeferred(copy, index, result))
          result.deferred.push_back(std::move(*deferred));
    return result;
  }

private:
  /// Adds the buffers `dispatch` declares it overwrites that may rotate: a
  /// whole vyre.alloc buffer from outside the loop, which nothing in the body
  /// touches before the dispatch and nothing after the loop uses.
  void collectOverwritten(DispatchOp dispatch, LoopPrefetchAnalysis &result) {
    for (auto [index, operand] :
         llvm::enumerate(dispatch.getKernelOperands())) {
      if (dispatch.getDeclaredAccess(index) != AccessKind::Overwrite)
        continue;
      auto alloc = operand.getDefiningOp<AllocOp>();
      if (!alloc || loop->isAncestor(alloc) ||
          llvm::any_of(result.rotated, [&](const RotatedBuffer &rotated) {
            return rotated.buffer == alloc;
          }))
        continue;
      std::optional<uint64_t> bytes = getByteSize(alloc.getType());
      if (!bytes || !checkBufferUses(dispatch, alloc, "").empty() ||
          llvm::any_of(footprints, [](const OpFootprint &footprint) {
            return footprint.device.slots.isUnknown() ||
                   footprint.host.slots.isUnknown();
          }))
        continue;
      RotatedBuffer rotated;
      rotated.buffer = alloc;
      rotated.bytes = *bytes;
      result.rotated.push_back(std::move(rotated));
    }
  }

  bool mayAliasHost(Value lhs, Value rhs) {
    return lhs == rhs || hostAliasing.mayAlias(lhs, rhs);
  }

  /// Whether `side` may read or write the host buffer `root`.
  bool mayTouchHost(const SideAccess &side, Value root) {
    if (side.anyHostRead || side.anyHostWrite)
      return true;
    auto aliases = [&](Value other) { return mayAliasHost(other, root); };
    return llvm::any_of(side.hostReads, aliases) ||
           llvm::any_of(side.hostWrites, aliases);
  }

  /// The copy back as a deferred copy, if it reads a rotated buffer that a
  /// launch overwrites and may run one iteration late: after the rest of
  /// its body, the fills issued meanwhile and the next iteration's body.
  /// None of those may touch its host destination, and the ops after it in
  /// its own body may not write its source (the next iteration's body uses
  /// the next rotated buffer).
  std::optional<DeferredCopy> checkDeferred(CopyD2HOp copy, unsigned index,
                                            const LoopPrefetchAnalysis &result) {
    auto source = llvm::find_if(result.rotated, [&](const RotatedBuffer &r) {
      AllocOp buffer = r.buffer;
      return !r.fill && buffer.getResult() == copy.getSource();
    });
    if (source == result.rotated.end())
      return std::nullopt;
    AllocOp sourceBuffer = source->buffer;
    DeferredCopy deferred;
    deferred.copy = copy;
    if (failed(collectSlice(copy.getTarget(), deferred.targetSlice)))
      return std::nullopt;
    Value hostRoot = SlotAccessAnalysis::resolveRoot(copy.getTarget());
    std::optional<unsigned> hostSlot = slots.getSlotNumber(hostRoot);
    unsigned sourceSlot = *slots.getSlotNumber(sourceBuffer.getResult());
    for (auto [otherIndex, other] :
         llvm::enumerate(loop.getBody()->without_terminator())) {
      if (&other == copy.getOperation())
        continue;
      const OpFootprint &footprint = footprints[otherIndex];
      if (mayTouchHost(footprint.device, hostRoot) ||
          mayTouchHost(footprint.host, hostRoot))
        return std::nullopt;
      if (hostSlot && (footprint.device.slots.mayAccess(*hostSlot) ||
                       footprint.host.slots.mayAccess(*hostSlot)))
        return std::nullopt;
      if (otherIndex > index && (footprint.device.slots.mayWrite(sourceSlot) ||
                                 footprint.host.slots.mayWrite(sourceSlot)))
        return std::nullopt;
    }
    return deferred;
  }

  /// The destination of `copy`, whose source the body writes, as a buffer
  /// that rotates with the copy in place: a whole vyre.alloc buffer from
  /// outside the loop, not rotated already, which nothing in the body
  /// touches before the copy and nothing after the loop uses, in a body
  /// where every access has a known slot, and where no host op before the
  /// copy waits for what the body's device work writes to the host.
  std::optional<RotatedBuffer>
  checkRotatesInPlace(CopyH2DOp copy, unsigned index,
                      const LoopPrefetchAnalysis &result) {
    auto alloc = copy.getTarget().getDefiningOp<AllocOp>();
    if (!alloc || loop->isAncestor(alloc) ||
        llvm::any_of(result.rotated, [&](const RotatedBuffer &rotated) {
          return rotated.buffer == alloc;
        }))
      return std::nullopt;
    std::optional<uint64_t> bytes = getByteSize(alloc.getType());
    if (!bytes || !checkBufferUses(copy, alloc, "").empty())
      return std::nullopt;
    unsigned slot = *slots.getSlotNumber(alloc.getResult());
    for (auto [otherIndex, footprint] : llvm::enumerate(footprints)) {
      if (footprint.device.slots.isUnknown() ||
          footprint.host.slots.isUnknown())
        return std::nullopt;
      if (otherIndex < index && (footprint.device.slots.mayAccess(slot) ||
                                 footprint.host.slots.mayAccess(slot)))
        return std::nullopt;
    }
    // A host op before the copy that touches what the body's device work
    // writes to the host (a halo copied back, then exchanged) waits for
    // that work: the copy after it could not run beside the kernels before
    // anyway, and the rotation would cost a buffer for nothing.
    for (const OpFootprint &writer : footprints) {
      if (writer.device.anyHostWrite && index != 0)
        return std::nullopt;
      for (Value root : writer.device.hostWrites)
        for (unsigned before = 0; before < index; ++before)
          if (mayTouchHost(footprints[before].host, root))
            return std::nullopt;
    }
    RotatedBuffer rotated;
    rotated.buffer = alloc;
    rotated.bytes = *bytes;
    rotated.inPlaceCopy = copy;
    return rotated;
  }

  /// Why `copy` cannot be issued early, or empty (and `result` filled).
  /// `sourceWritten`: the reason is an op of the body that may write the
  /// copy's source, and the destination is fine.
  std::string check(CopyH2DOp copy, unsigned index, RotatedBuffer &result,
                    bool &sourceWritten) {
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
    if (failed(collectSlice(copy.getSource(), result.sourceSlice)))
      return "its source is computed inside the loop by an op with effects";
    Value hostRoot = SlotAccessAnalysis::resolveRoot(copy.getSource());
    // A source that is a slot too (managed memory, an argument) may be
    // written by device work through that slot.
    std::optional<unsigned> sourceSlot = slots.getSlotNumber(hostRoot);
    // Every writer of the source is looked at: where device work writes it,
    // the copy waits for that work anyway, and rotating its destination
    // gains nothing.
    Operation *writer = nullptr;
    bool deviceWrites = false;
    for (auto [otherIndex, other] :
         llvm::enumerate(loop.getBody()->without_terminator())) {
      const OpFootprint &footprint = footprints[otherIndex];
      if (&other == copy.getOperation())
        continue;
      bool byDevice =
          mayWriteHostBuffer(footprint.device, hostRoot, hostAliasing) ||
          (sourceSlot && footprint.device.slots.mayWrite(*sourceSlot));
      bool byHost =
          mayWriteHostBuffer(footprint.host, hostRoot, hostAliasing) ||
          (sourceSlot && footprint.host.slots.mayWrite(*sourceSlot));
      if (byDevice || byHost) {
        deviceWrites |= byDevice;
        if (!writer)
          writer = &other;
      }
    }
    if (writer) {
      sourceWritten = !deviceWrites;
      return describeOp(writer) + " in the body may write its source";
    }
    for (auto [otherIndex, other] :
         llvm::enumerate(loop.getBody()->without_terminator())) {
      const OpFootprint &footprint = footprints[otherIndex];
      if (&other == copy.getOperation())
        continue;
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
    result.fill = copy;
    result.buffer = alloc;
    result.bytes = *bytes;
    return "";
  }

  /// Checks that every use of the buffer is `first`'s, an op in the body
  /// after it, an op before the loop that makes no view of it, or a free.
  /// Why the buffer `alloc`, filled or overwritten first by `first` in the
  /// body, cannot rotate: a use of it in the body before `first`, or outside
  /// the loop where it would see the wrong rotating buffer; empty if none.
  /// The uses are looked up by their position in the function: those inside
  /// the loop cost nothing, and the uses before the loop are looked at
  /// nearest first, where a nest's enclosing body uses the buffer.
  std::string checkBufferUses(Operation *first, AllocOp alloc,
                              const std::string &slotName) {
    ArrayRef<Operation *> users = positions.getSortedUsers(alloc);
    auto byPosition = [&](Operation *user, unsigned position) {
      return positions.enter(user) < position;
    };
    unsigned loopEnter = positions.enter(loop);
    unsigned loopExit = positions.exit(loop);
    auto inLoop = std::lower_bound(users.begin(), users.end(), loopEnter + 1,
                                   byPosition);
    auto atFirst = std::lower_bound(inLoop, users.end(),
                                    positions.enter(first), byPosition);
    if (atFirst != inLoop) {
      Operation *inBody = loop.getBody()->findAncestorOpInBlock(**inLoop);
      return describeOp(inBody) + " touches " + slotName +
             " before the copy fills it: an iteration sees what the one "
             "before left";
    }
    auto afterLoop = std::lower_bound(atFirst, users.end(), loopExit + 1,
                                      byPosition);
    // After the loop first (one look decides), then before it, nearest
    // first.
    SmallVector<Operation *> outside(afterLoop, users.end());
    for (Operation *user :
         llvm::reverse(ArrayRef<Operation *>(users.begin(), inLoop)))
      outside.push_back(user);
    for (Operation *user : outside) {
      if (isa<DeallocOp>(user))
        continue;
      switch (classifyUseAroundLoop(user, loop, alloc)) {
      case UseAroundLoop::InLoop:
      case UseAroundLoop::Before:
        break;
      case UseAroundLoop::BeforeAndAfter:
        return describeOp(user) + " before the loop uses " + slotName +
               " again after it, in the next run of an enclosing loop, and "
               "would see whichever rotating buffer the last iteration "
               "filled";
      case UseAroundLoop::After:
        return slotName + " is used after the loop, which would have to know "
                          "which rotating buffer the last iteration filled";
      case UseAroundLoop::DerivesBefore:
        return describeOp(user) + " before the loop derives a value from " +
               slotName + ", which the loop might use unrenamed";
      }
    }
    return "";
  }

  /// Collects, in body order, the ops of the body that compute `value`;
  /// fails if one of them has effects or regions.
  LogicalResult collectSlice(Value value, SmallVectorImpl<Operation *> &slice) {
    Block *body = loop.getBody();
    SmallVector<Value> worklist{value};
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
  OpPositions &positions;
  OpFootprintCache &footprintCache;
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
    HostBufferAliasing &hostAliasing, OpPositions &positions,
    OpFootprintCache &footprints) {
  return PrefetchChecker(loop, slots, hostAliasing, positions, footprints)
      .run();
}
