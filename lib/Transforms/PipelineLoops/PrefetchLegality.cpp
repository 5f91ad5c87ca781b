//===- PrefetchLegality.cpp - Which copies a loop may issue early -*- C++
//-*-===//
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
//    rewrite does not rename). One host op P before C may write H (a decode
//    call that fills a staging buffer): P is then issued early with C, just
//    before it, when it has no results or regions, runs no device work,
//    names the host buffers it touches, its operands are computed like C's
//    source, and no other op of the body touches what P writes or writes
//    what P reads: P crosses only ops it commutes with, and keeps its order
//    with C and with its own other iterations;
//  - the body holds no scf.if that an earlier rewrite made (the guard of a
//    pipelined inner loop): the outer rewrite would write the inner
//    pipeline out once per slot.
//
// The early copy then crosses only ops of later iterations that touch
// neither A (renamed per iteration) nor H.
//
// A copy in a branch of an scf.if of the body is a fill too, issued early
// under the same condition, when the condition and the copy's source are
// computed by pure ops from the induction variable and values from outside
// the loop, and every use of A in the body comes after it in its branch
// (or after the other branch's own fill of A; after the scf.if only where
// both branches fill A). An iteration whose condition takes the other
// branch then neither fills nor touches its copy of A.
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

#include "BodyAccesses.h"
#include "PipelineLoops.h"

#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/ViewDisjointness.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
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
    // Each iteration's body is written out 2D + 1 times: a pipelined inner
    // loop's guard would be written out with its whole pipeline each time.
    if (loop.getBody()
            ->walk([](scf::IfOp branch) -> WalkResult {
              return getPipelinedPosition(branch.getLoc())
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted()) {
      result.loopReason =
          "the body holds a loop pipelined already, whose pipeline would be "
          "written out once per iteration the outer rewrite unrolls";
      return result;
    }
    for (Operation &op : loop.getBody()->without_terminator()) {
      bodyOps.push_back(&op);
      footprints.push_back(footprintCache.get(&op));
      if (footprints.back().unknown && result.loopReason.empty())
        result.loopReason =
            describeOp(&op) + " in the body has effects vyre cannot model";
    }
    if (!result.loopReason.empty())
      return result;
    accesses.emplace(footprints);
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
        addRotated(result, std::move(rotated));
        continue;
      }
      result.rejected.push_back({copy, std::move(reason)});
      if (sourceWritten)
        if (std::optional<RotatedBuffer> inPlace =
                checkRotatesInPlace(copy, index, result))
          addRotated(result, std::move(*inPlace));
    }
    for (auto [index, op] :
         llvm::enumerate(loop.getBody()->without_terminator()))
      if (auto branch = dyn_cast<scf::IfOp>(&op)) {
        collectBranchFills(branch, index, result);
        collectBranchOverwrites(branch, index, result);
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
          rotatedAllocs.contains(alloc))
        continue;
      std::optional<uint64_t> bytes = getByteSize(alloc.getType());
      if (!bytes || !checkBufferUses(dispatch, alloc, "").empty() ||
          !accesses->unknownSlots().empty())
        continue;
      RotatedBuffer rotated;
      rotated.buffer = alloc;
      rotated.bytes = *bytes;
      addRotated(result, std::move(rotated));
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
    auto rotatedSource = rotatedAllocs.find(copy.getSource().getDefiningOp());
    if (rotatedSource == rotatedAllocs.end() ||
        result.rotated[rotatedSource->second].isFilledEarly())
      return std::nullopt;
    AllocOp sourceBuffer = result.rotated[rotatedSource->second].buffer;
    DeferredCopy deferred;
    deferred.copy = copy;
    if (failed(collectSlice(copy.getTarget(), deferred.targetSlice)))
      return std::nullopt;
    Value hostRoot = SlotAccessAnalysis::resolveRoot(copy.getTarget());
    SmallVector<unsigned> hostSlots =
        HostBufferAliasing::getSlotsOf(hostRoot, slots);
    unsigned sourceSlot = *slots.getSlotNumber(sourceBuffer.getResult());
    for (unsigned other : accesses->hostTouchers())
      if (other != index && (mayTouchHost(footprints[other].device, hostRoot) ||
                             mayTouchHost(footprints[other].host, hostRoot)))
        return std::nullopt;
    for (unsigned hostSlot : hostSlots)
      for (unsigned other : accesses->accessorsOf(hostSlot))
        if (other != index)
          return std::nullopt;
    for (unsigned other : accesses->writersOf(sourceSlot))
      if (other > index)
        return std::nullopt;
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
        rotatedAllocs.contains(alloc))
      return std::nullopt;
    std::optional<uint64_t> bytes = getByteSize(alloc.getType());
    if (!bytes || !checkBufferUses(copy, alloc, "").empty())
      return std::nullopt;
    unsigned slot = *slots.getSlotNumber(alloc.getResult());
    if (!accesses->unknownSlots().empty() ||
        accesses->firstAccessorBefore(slot, index, index))
      return std::nullopt;
    // A host op before the copy that touches what the body's device work
    // writes to the host (a halo copied back, then exchanged) waits for
    // that work: the copy after it could not run beside the kernels before
    // anyway, and the rotation would cost a buffer for nothing.
    for (unsigned writer : accesses->deviceHostWriters()) {
      const SideAccess &device = footprints[writer].device;
      if (device.anyHostWrite && index != 0)
        return std::nullopt;
      for (Value root : device.hostWrites)
        for (unsigned before : accesses->hostTouchers()) {
          if (before >= index)
            break;
          if (mayTouchHost(footprints[before].host, root))
            return std::nullopt;
        }
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
    bool deviceWrites = false;
    SmallVector<unsigned> writers = findSourceWriters(copy, deviceWrites);
    if (!writers.empty() && deviceWrites)
      return describeOp(bodyOps[writers.front()]) +
             " in the body may write its source";
    // The first op, in order, with slots unknown or touching the slot
    // before the copy.
    std::optional<unsigned> unknown;
    for (unsigned other : accesses->unknownSlots())
      if (other != index) {
        unknown = other;
        break;
      }
    std::optional<unsigned> before =
        accesses->firstAccessorBefore(slot, index, index);
    if (unknown && (!before || *unknown <= *before))
      return describeOp(bodyOps[*unknown]) + " in the body may touch any slot, " +
             slotName + " included";
    if (before)
      return describeOp(bodyOps[*before]) + " touches " + slotName +
             " before the copy fills it: an iteration sees what the one "
             "before left";
    if (!writers.empty()) {
      if (std::string why = checkProducer(index, writers, result);
          !why.empty()) {
        sourceWritten = true;
        return describeOp(bodyOps[writers.front()]) +
               " in the body may write its source, and cannot be issued "
               "early with it: " +
               why;
      }
      result.producer = bodyOps[writers.front()];
    }
    result.fill = copy;
    result.buffer = alloc;
    result.bytes = *bytes;
    return "";
  }

  /// Why the op that writes the source of the copy at `index`, the only one
  /// in `writers`, cannot be issued early with it, just before it; empty if
  /// it can (its operands' ops added to `result`'s source slice). It must
  /// come before the copy (a copy before it reads what the iteration before
  /// wrote), have no results or regions, run no device work, name the host
  /// buffers it touches, and commute with every other op of the body: none
  /// touches what it writes or writes what it reads.
  std::string checkProducer(unsigned index, ArrayRef<unsigned> writers,
                            RotatedBuffer &result) {
    if (writers.size() != 1)
      return "another op of the body writes it too";
    unsigned producerIndex = writers.front();
    Operation *producer = bodyOps[producerIndex];
    if (producerIndex > index)
      return "it comes after the copy, which reads what the iteration before "
             "wrote";
    if (producer->getNumResults() != 0 || producer->getNumRegions() != 0)
      return "it has results or regions";
    const OpFootprint &footprint = footprints[producerIndex];
    if (footprint.numKernels != 0 || !footprint.device.slots.isEmpty() ||
        footprint.device.mayReadHost() || footprint.device.mayWriteHost())
      return "it runs device work";
    if (footprint.host.anyHostRead || footprint.host.anyHostWrite ||
        footprint.host.slots.isUnknown())
      return "it may touch any host buffer";
    for (Value operand : producer->getOperands())
      if (failed(collectSlice(operand, result.sourceSlice)))
        return "its operands are computed inside the loop by an op with "
               "effects";
    // Those that could conflict: the ops touching host memory, and those
    // touching the slots it touches.
    SmallVector<unsigned> others(accesses->hostTouchers());
    for (ArrayRef<unsigned> slotsTouched :
         {footprint.host.slots.getReads(), footprint.host.slots.getWrites()})
      for (unsigned slot : slotsTouched)
        llvm::append_range(others, accesses->accessorsOf(slot));
    for (unsigned other : others) {
      if (other == producerIndex || other == index)
        continue;
      if (sidesMayConflict(footprint.host, footprints[other].host,
                           hostAliasing) ||
          sidesMayConflict(footprint.host, footprints[other].device,
                           hostAliasing))
        return describeOp(bodyOps[other]) +
               " in the body touches what it writes, or writes what it reads";
    }
    return "";
  }

  /// The ops of the body that may write `copy`'s source, other than `copy`
  /// (the scf.if that holds it is looked at: the copy only reads there), in
  /// order; `deviceWrites` is set where device work may write it. Every
  /// writer is looked at: where device work writes the source, the copy
  /// waits for that work anyway, and rotating its destination gains
  /// nothing.
  SmallVector<unsigned> findSourceWriters(CopyH2DOp copy, bool &deviceWrites) {
    Value hostRoot = SlotAccessAnalysis::resolveRoot(copy.getSource());
    // A source that may be a slot too (managed memory, an argument, a buffer
    // of unknown origin) may be written by device work through that slot.
    SmallVector<unsigned> sourceSlots =
        HostBufferAliasing::getSlotsOf(hostRoot, slots);
    // The ops that may write host memory, or the source's slots.
    SmallVector<unsigned> candidates(accesses->hostWriters());
    for (unsigned sourceSlot : sourceSlots) {
      SmallVector<unsigned> slotWriters = accesses->writersOf(sourceSlot);
      SmallVector<unsigned> merged;
      std::set_union(candidates.begin(), candidates.end(),
                     slotWriters.begin(), slotWriters.end(),
                     std::back_inserter(merged));
      candidates = std::move(merged);
    }
    SmallVector<unsigned> writers;
    for (unsigned otherIndex : candidates) {
      Operation &other = *bodyOps[otherIndex];
      const OpFootprint &footprint = footprints[otherIndex];
      if (&other == copy.getOperation() ||
          touchesOnlyOtherBytes(&other, footprint, copy.getSource(), hostRoot,
                                hostAliasing))
        continue;
      auto writesASourceSlot = [&](const SideAccess &side) {
        return llvm::any_of(sourceSlots, [&](unsigned sourceSlot) {
          return side.slots.mayWrite(sourceSlot);
        });
      };
      bool byDevice =
          mayWriteHostBuffer(footprint.device, hostRoot, hostAliasing) ||
          writesASourceSlot(footprint.device);
      bool byHost =
          mayWriteHostBuffer(footprint.host, hostRoot, hostAliasing) ||
          writesASourceSlot(footprint.host);
      if (byDevice || byHost) {
        deviceWrites |= byDevice;
        writers.push_back(otherIndex);
      }
    }
    return writers;
  }

  /// Adds the buffers that copies in the branches of `branch` (the op at
  /// `index` of the body) fill, issued early under the branch's condition;
  /// the copies that cannot be are rejected, with the reason.
  void collectBranchFills(scf::IfOp branch, unsigned index,
                          LoopPrefetchAnalysis &result) {
    // The first copy into each buffer in each branch, by buffer.
    llvm::MapVector<Operation *, std::pair<CopyH2DOp, CopyH2DOp>> fills;
    for (auto [inElse, region] :
         llvm::enumerate(branch->getRegions()))
      for (Block &block : region)
        for (auto copy : block.getOps<CopyH2DOp>()) {
          auto alloc = copy.getTarget().getDefiningOp<AllocOp>();
          if (!alloc) {
            result.rejected.push_back(
                {copy, "its destination is not a whole vyre.alloc buffer "
                       "allocated outside the loop"});
            continue;
          }
          auto &[thenFill, elseFill] = fills[alloc];
          CopyH2DOp &fill = inElse ? elseFill : thenFill;
          if (!fill)
            fill = copy;
        }
    for (auto &[alloc, copies] : fills) {
      RotatedBuffer rotated;
      std::string reason =
          checkBranchFill(branch, index, cast<AllocOp>(alloc), copies.first,
                          copies.second, result, rotated);
      if (reason.empty()) {
        addRotated(result, std::move(rotated));
        continue;
      }
      for (CopyH2DOp copy : {copies.first, copies.second})
        if (copy)
          result.rejected.push_back({copy, reason});
    }
  }

  /// Why `alloc` cannot rotate with `thenFill` and `elseFill` (either may be
  /// null), the copies into it in the branches of `branch`, issued early
  /// under its condition; empty if it can (and `result` filled).
  std::string checkBranchFill(scf::IfOp branch, unsigned index, AllocOp alloc,
                              CopyH2DOp thenFill, CopyH2DOp elseFill,
                              const LoopPrefetchAnalysis &analysis,
                              RotatedBuffer &result) {
    if (std::string reason = checkBranchFirstTouch(branch, index, alloc,
                                                   thenFill, elseFill, analysis);
        !reason.empty())
      return reason;
    for (CopyH2DOp fill : {thenFill, elseFill}) {
      if (!fill)
        continue;
      bool deviceWrites = false;
      if (SmallVector<unsigned> writers = findSourceWriters(fill, deviceWrites);
          !writers.empty())
        return describeOp(bodyOps[writers.front()]) +
               " in the body may write its source";
      if (failed(collectSlice(fill.getSource(), result.branchSlice)))
        return "its source is computed inside the loop by an op with effects";
    }
    if (failed(collectSlice(branch.getCondition(), result.branchSlice)))
      return "the condition of its branch is computed inside the loop by an "
             "op with effects";
    llvm::sort(result.branchSlice, [&](Operation *lhs, Operation *rhs) {
      return positions.enter(lhs) < positions.enter(rhs);
    });
    result.branchSlice.erase(
        std::unique(result.branchSlice.begin(), result.branchSlice.end()),
        result.branchSlice.end());
    result.buffer = alloc;
    result.bytes = *getByteSize(alloc.getType());
    result.branch = branch;
    result.thenFill = thenFill;
    result.elseFill = elseFill;
    return "";
  }

  /// Adds the buffers that launches in the branches of `branch` (the op at
  /// `index` of the body) declare they overwrite, first to touch them there,
  /// as rotated buffers without a copy.
  void collectBranchOverwrites(scf::IfOp branch, unsigned index,
                               LoopPrefetchAnalysis &result) {
    llvm::MapVector<Operation *, std::pair<Operation *, Operation *>> firsts;
    for (auto [inElse, region] : llvm::enumerate(branch->getRegions()))
      for (Block &block : region)
        for (auto dispatch : block.getOps<DispatchOp>())
          for (auto [operandIndex, operand] :
               llvm::enumerate(dispatch.getKernelOperands())) {
            auto alloc = operand.getDefiningOp<AllocOp>();
            if (!alloc ||
                dispatch.getDeclaredAccess(operandIndex) != AccessKind::Overwrite)
              continue;
            auto &[thenFirst, elseFirst] = firsts[alloc];
            Operation *&first = inElse ? elseFirst : thenFirst;
            if (!first)
              first = dispatch;
          }
    for (auto &[alloc, first] : firsts) {
      if (!getByteSize(cast<AllocOp>(alloc).getType()) ||
          !checkBranchFirstTouch(branch, index, cast<AllocOp>(alloc),
                                 first.first, first.second, result)
               .empty())
        continue;
      RotatedBuffer rotated;
      rotated.buffer = cast<AllocOp>(alloc);
      rotated.bytes = *getByteSize(rotated.buffer.getType());
      addRotated(result, std::move(rotated));
    }
  }

  /// Why `alloc` cannot rotate with `thenFirst` and `elseFirst` (either may
  /// be null), ops in the branches of `branch` that fill or overwrite it, as
  /// the ops that start each iteration's use of it; empty if it can. Every
  /// use of it in the body must come after one of them in its branch, or
  /// after `branch` where both branches have one.
  std::string checkBranchFirstTouch(scf::IfOp branch, unsigned index,
                                    AllocOp alloc, Operation *thenFirst,
                                    Operation *elseFirst,
                                    const LoopPrefetchAnalysis &analysis) {
    if (loop->isAncestor(alloc))
      return "its destination is not a whole vyre.alloc buffer allocated "
             "outside the loop";
    if (rotatedAllocs.contains(alloc))
      return "its destination rotates already";
    if (!getByteSize(alloc.getType()))
      return "its destination's size is not known statically";
    unsigned slot = *slots.getSlotNumber(alloc.getResult());
    std::string slotName = "slot " + std::to_string(slot);
    // Where in the body the buffer may be used: after a first toucher, in
    // its branch, and after the scf.if where both branches have one.
    bool both = thenFirst && elseFirst;
    auto afterFill = [&](OpPositions::Position position) {
      for (Operation *first : {thenFirst, elseFirst})
        if (first && position >= positions.enter(first) &&
            position <= positions.exit(&first->getBlock()->back()))
          return true;
      return both && position > positions.exit(branch);
    };
    ArrayRef<Operation *> users = positions.getSortedUsers(alloc);
    for (Operation *user : users) {
      OpPositions::Position position = positions.enter(user);
      if (position <= positions.enter(loop) ||
          position > positions.exit(loop) || afterFill(position))
        continue;
      Operation *inBody = loop.getBody()->findAncestorOpInBlock(*user);
      return describeOp(inBody) + " touches " + slotName +
             " where no copy or overwriting launch of the branch came "
             "first: an iteration would see what the one before left";
    }
    if (std::string reason = checkUsesOutsideLoop(alloc, slotName);
        !reason.empty())
      return reason;
    // What the footprints say (views, calls): nothing touches the slot
    // before a fill, in the body or in a branch.
    if (!accesses->unknownSlots().empty())
      return describeOp(bodyOps[accesses->unknownSlots().front()]) +
             " in the body may touch any slot, " + slotName + " included";
    for (unsigned other : accesses->accessorsOf(slot)) {
      if (other == index || (other > index && both))
        continue;
      return describeOp(bodyOps[other]) + " in the body touches " + slotName +
             " where no copy or overwriting launch of the branch came "
             "first: an iteration would see what the one before left";
    }
    for (auto [region, first] :
         {std::make_pair(&branch.getThenRegion(), thenFirst),
          std::make_pair(&branch.getElseRegion(), elseFirst)}) {
      if (region->empty())
        continue;
      const BranchBlock &block = indexBranchBlock(region->front());
      unsigned end = first ? block.position.lookup(first) : block.ops.size();
      if (std::optional<unsigned> before =
              block.accesses.firstAccessorBefore(slot, end, end))
        return describeOp(block.ops[*before]) + " in the branch touches " +
               slotName +
               " before the op that fills it: an iteration would see what "
               "the one before left";
    }
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
    auto byPosition = [&](Operation *user, OpPositions::Position position) {
      return positions.enter(user) < position;
    };
    OpPositions::Position loopEnter = positions.enter(loop);
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
    return checkUsesOutsideLoop(alloc, slotName);
  }

  /// Why the uses of `alloc` outside the loop keep it from rotating: one
  /// after the loop, or one before it that runs again after it or derives a
  /// view; empty if none.
  std::string checkUsesOutsideLoop(AllocOp alloc, const std::string &slotName) {
    ArrayRef<Operation *> users = positions.getSortedUsers(alloc);
    auto byPosition = [&](Operation *user, OpPositions::Position position) {
      return positions.enter(user) < position;
    };
    auto inLoop = std::lower_bound(users.begin(), users.end(),
                                   positions.enter(loop) + 1, byPosition);
    auto afterLoop = std::lower_bound(inLoop, users.end(),
                                      positions.exit(loop) + 1, byPosition);
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

  /// Collects, in program order, the ops of the loop (its body, or a
  /// branch of the body) that compute `value`; fails if one of them has
  /// effects or regions, or is a block argument other than the induction
  /// variable.
  LogicalResult collectSlice(Value value, SmallVectorImpl<Operation *> &slice) {
    OpPositions::Position loopEnter = positions.enter(loop);
    OpPositions::Position loopExit = positions.exit(loop);
    SmallVector<Value> worklist{value};
    llvm::SmallPtrSet<Operation *, 8> seen(slice.begin(), slice.end());
    while (!worklist.empty()) {
      Value next = worklist.pop_back_val();
      Operation *def = next.getDefiningOp();
      if (!def) {
        Operation *owner = cast<BlockArgument>(next).getOwner()->getParentOp();
        if (owner != loop.getOperation() && loop->isAncestor(owner))
          return failure();
        continue;
      }
      OpPositions::Position position = positions.enter(def);
      if (position <= loopEnter || position > loopExit ||
          !seen.insert(def).second)
        continue;
      if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
        return failure();
      slice.push_back(def);
      llvm::append_range(worklist, def->getOperands());
    }
    llvm::sort(slice, [&](Operation *lhs, Operation *rhs) {
      return positions.enter(lhs) < positions.enter(rhs);
    });
    return success();
  }

  scf::ForOp loop;
  const SlotAccessAnalysis &slots;
  HostBufferAliasing &hostAliasing;
  OpPositions &positions;
  OpFootprintCache &footprintCache;
  /// The ops of the body and their footprints, in order, and the index of
  /// what they touch.
  SmallVector<Operation *> bodyOps;
  std::vector<OpFootprint> footprints;
  std::optional<BodyAccesses> accesses;
  /// The buffers rotated so far, and where they are in the result.
  DenseMap<Operation *, unsigned> rotatedAllocs;

  /// A block of a branch of the body: its ops, where each stands, and the
  /// index of what they touch; built on first ask.
  struct BranchBlock {
    SmallVector<Operation *> ops;
    DenseMap<Operation *, unsigned> position;
    BodyAccesses accesses;
  };
  DenseMap<Block *, std::unique_ptr<BranchBlock>> branchBlocks;

  const BranchBlock &indexBranchBlock(Block &block) {
    std::unique_ptr<BranchBlock> &indexed = branchBlocks[&block];
    if (!indexed) {
      SmallVector<Operation *> ops;
      std::vector<OpFootprint> blockFootprints;
      DenseMap<Operation *, unsigned> position;
      for (Operation &op : block.without_terminator()) {
        position[&op] = ops.size();
        ops.push_back(&op);
        blockFootprints.push_back(footprintCache.get(&op));
      }
      indexed.reset(new BranchBlock{std::move(ops), std::move(position),
                                    BodyAccesses(blockFootprints)});
    }
    return *indexed;
  }

  void addRotated(LoopPrefetchAnalysis &result, RotatedBuffer rotated) {
    rotatedAllocs[rotated.buffer.getOperation()] = result.rotated.size();
    result.rotated.push_back(std::move(rotated));
  }
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
