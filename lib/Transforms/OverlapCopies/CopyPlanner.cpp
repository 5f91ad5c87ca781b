//===- CopyPlanner.cpp - Plan the copies, then revise the plan ---*- C++ -*-===//
//
// Planning places every copy (PlanPlacement.cpp), then plans where later ops
// wait for them (PlanOrdering.cpp). When the cost model leaves some planned
// copies in place, the plan is revised rather than made again: the placement
// is patched (the copies that must now follow a copy left in place move
// below it), and only the waits are planned again, on that placement.
//
//===----------------------------------------------------------------------===//

#include "PlanContext.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <array>

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

namespace {

CopyPlan makeEmptyPlan(FunctionOpInterface function) {
  CopyPlan plan;
  plan.function = function;
  return plan;
}

/// Whether a place just after `anchor` (null: the block's start) comes before
/// the place just after `other`, in one block.
bool isPlaceBefore(Operation *anchor, Operation *other) {
  if (anchor == other || !other)
    return false;
  return !anchor || anchor->isBeforeInBlock(other);
}

} // namespace

struct CopyPlanner::State {
  State(FunctionOpInterface function, const SlotAccessAnalysis &slots)
      : plan(makeEmptyPlan(function)), context(plan, slots) {}

  CopyPlan plan;
  PlanContext context;
  /// The insertions placement planned: the ordering's come after them.
  size_t placementInsertions = 0;

  void moveBelowCopiesLeftInPlace(ArrayRef<bool> leftInPlace);
  void dropInsertionsOf(ArrayRef<bool> leftInPlace);
  void planWaitsAgain();
};

CopyPlanner::CopyPlanner(FunctionOpInterface function,
                         const SlotAccessAnalysis &slots,
                         const PlanOptions &options)
    : state(std::make_unique<State>(function, slots)) {
  // A few insertions per copy at most: room for them up front, so that the
  // list is not moved as it grows (it is large: a copy's record, the copy,
  // and the waits and syncs after it).
  size_t copyOps = 0;
  function->walk([&](Operation *op) {
    if (isa<CopyH2DOp, CopyD2HOp>(op))
      ++copyOps;
  });
  state->plan.insertions.reserve(3 * copyOps);
  state->context.inPlaceCopiesBlockHost = options.inPlaceCopiesBlockHost;
  planPlacement(state->context, options);
  state->placementInsertions = state->plan.insertions.size();
  planOrdering(state->context);
}

CopyPlanner::~CopyPlanner() = default;

const CopyPlan &CopyPlanner::getPlan() const { return state->plan; }

uint64_t CopyPlanner::getSteps() const {
  return state->context.steps + state->context.footprints.getSteps();
}

CopyPlan CopyPlanner::takePlan() {
  state->plan.steps = getSteps();
  return std::move(state->plan);
}

LogicalResult CopyPlanner::leaveCopiesInPlace(ArrayRef<unsigned> copies) {
  CopyPlan &plan = state->plan;
  if (copies.empty())
    return success();
  SmallVector<bool> leftInPlace(plan.copies.size(), false);
  for (unsigned id : copies)
    leftInPlace[id] = true;
  // A copy depends only on copies of its block planned before it, and the
  // side streams hold only planned copies; anything else is not a plan this
  // revision knows how to patch.
  if (state->context.hasInputAsyncCopies)
    return failure();
  for (const PlannedCopy &copy : plan.copies)
    for (const PlannedDependency &dependency : copy.dependencies)
      if (dependency.kind == PlannedDependency::Kind::Copy &&
          (dependency.copy >= copy.id ||
           plan.copies[dependency.copy].block != copy.block))
        return failure();
  state->context.steps += plan.copies.size();
  for (unsigned id : copies) {
    PlannedCopy &copy = plan.copies[id];
    copy.leftInPlace = true;
    state->context.replaced.erase(copy.original);
  }
  state->moveBelowCopiesLeftInPlace(leftInPlace);
  state->dropInsertionsOf(leftInPlace);
  state->planWaitsAgain();
  return success();
}

/// In each block with a copy left in place, in program order: a copy that
/// depended on it, or on a copy moved below one, or that follows it in its
/// direction (the copy engine runs them in order), or that follows a copy
/// moved below one on its side stream (stream order), is placed no earlier
/// than just after it. This is where planning with the copy left in place would
/// have put it. Its dependency on the copy left in place goes (the host
/// waits for that copy where it stands, and so for the main stream's work
/// before it), replaced by what the copy's token also stood for: the copy
/// before it on its side stream (stream order). What the copy itself
/// depended on is done by then: in place, it conflicts with those copies,
/// and the ordering, planned again, makes the main stream wait for them
/// before it.
void CopyPlanner::State::moveBelowCopiesLeftInPlace(
    ArrayRef<bool> leftInPlace) {
  // Per block with a copy left in place: the last one so far, per direction
  // (0: into the device).
  DenseMap<Block *, std::array<Operation *, 2>> lastLeft;
  for (const PlannedCopy &copy : plan.copies)
    if (leftInPlace[copy.id])
      lastLeft.try_emplace(copy.block, std::array<Operation *, 2>{});
  std::vector<Operation *> movedBelow(plan.copies.size(), nullptr);
  // Per copy left in place, the copy a dependency on it also stood for.
  DenseMap<unsigned, SmallVector<unsigned, 1>> standsFor;
  // The last copy still planned on each side stream of a block, so far.
  DenseMap<std::pair<Block *, int64_t>, unsigned> lastOnStream;
  DenseSet<std::pair<Block *, Operation *>> leftAnchors;
  for (PlannedCopy &copy : plan.copies) {
    auto found = lastLeft.find(copy.block);
    if (found == lastLeft.end())
      continue;
    ++context.steps;
    // The copy's dependencies, those on copies left in place replaced.
    SmallVector<PlannedDependency, 2> dependencies;
    auto depend = [&](const PlannedDependency &dependency) {
      if (!llvm::is_contained(dependencies, dependency))
        dependencies.push_back(dependency);
    };
    for (const PlannedDependency &dependency : copy.dependencies) {
      if (dependency.kind != PlannedDependency::Kind::Copy ||
          !leftInPlace[dependency.copy]) {
        depend(dependency);
        continue;
      }
      // (On the copy's own stream, stream order keeps it behind.)
      for (unsigned covered : standsFor.lookup(dependency.copy))
        if (plan.copies[covered].stream != copy.stream)
          depend({PlannedDependency::Kind::Copy, covered, Value(), nullptr});
    }
    context.steps += copy.dependencies.size() + dependencies.size();
    Operation *&lastInDirection = found->second[copy.toHost ? 1 : 0];
    if (leftInPlace[copy.id]) {
      auto before = lastOnStream.find({copy.block, copy.stream});
      if (before != lastOnStream.end())
        standsFor[copy.id].push_back(before->second);
      leftAnchors.insert({copy.block, copy.at.anchor});
      lastInDirection = copy.original;
      continue;
    }
    // The latest place the copy must now follow, and what it follows there.
    Operation *floor = nullptr;
    PlanOp limit;
    OrderReason reason = OrderReason::of(OrderReason::Kind::StreamOrder);
    auto follow = [&](Operation *place, PlanOp what, const PlannedCopy &prior) {
      if (!place || !isPlaceBefore(floor, place))
        return;
      floor = place;
      limit = what;
      reason = OrderReason::of(
          canRunConcurrently(prior.summarize(), copy.summarize())
              .reason.value_or(HazardKind::WriteWrite));
    };
    for (const PlannedDependency &dependency : copy.dependencies)
      if (dependency.kind == PlannedDependency::Kind::Copy &&
          leftInPlace[dependency.copy])
        follow(plan.copies[dependency.copy].original,
               {plan.copies[dependency.copy].original, std::nullopt},
               plan.copies[dependency.copy]);
    for (const PlannedDependency &dependency : dependencies)
      if (dependency.kind == PlannedDependency::Kind::Copy)
        follow(movedBelow[dependency.copy], {nullptr, dependency.copy},
               plan.copies[dependency.copy]);
    if (isPlaceBefore(floor, lastInDirection)) {
      floor = lastInDirection;
      limit = {lastInDirection, std::nullopt};
      reason = OrderReason::of(OrderReason::Kind::StreamOrder);
    }
    // Copies on one side stream keep their program order: the copy stays
    // behind the one before it on its stream, if that one moved down.
    auto before = lastOnStream.find({copy.block, copy.stream});
    if (before != lastOnStream.end() &&
        isPlaceBefore(floor, movedBelow[before->second])) {
      floor = movedBelow[before->second];
      limit = {nullptr, before->second};
      reason = OrderReason::of(OrderReason::Kind::StreamOrder);
    }
    copy.dependencies = std::move(dependencies);
    lastOnStream[{copy.block, copy.stream}] = copy.id;
    if (!floor || !isPlaceBefore(copy.at.anchor, floor))
      continue;
    leftAnchors.insert({copy.block, copy.at.anchor});
    SmallVector<unsigned, 1> &after = context.copiesAfter[{copy.block, floor}];
    after.push_back(copy.id);
    copy.at = {floor, unsigned(after.size())};
    copy.hoistLimit = limit;
    copy.hoistReason = reason;
    movedBelow[copy.id] = floor;
  }
  // The lists of copies after each place the moved copies left, without them.
  for (auto key : leftAnchors) {
    auto it = context.copiesAfter.find(key);
    if (it == context.copiesAfter.end())
      continue;
    context.steps += it->second.size();
    llvm::erase_if(it->second, [&](unsigned id) {
      return plan.copies[id].leftInPlace ||
             plan.copies[id].at.anchor != key.second;
    });
    for (auto [rank, id] : llvm::enumerate(it->second))
      plan.copies[id].at.rank = rank + 1;
  }
  // The moved copies' own insertions follow them.
  for (PlannedInsertion &insertion :
       MutableArrayRef(plan.insertions).take_front(placementInsertions))
    if (insertion.kind == PlannedInsertion::Kind::Copy)
      insertion.anchor = plan.copies[insertion.copy].at.anchor;
}

/// Drops the copies left in place, and the records that only they used, from
/// the placement's insertions, and every insertion of the ordering.
void CopyPlanner::State::dropInsertionsOf(ArrayRef<bool> leftInPlace) {
  DenseSet<std::pair<Block *, Operation *>> recordsUsed;
  for (const PlannedCopy &copy : plan.copies) {
    if (copy.leftInPlace)
      continue;
    for (const PlannedDependency &dependency : copy.dependencies)
      if (dependency.kind == PlannedDependency::Kind::Record)
        recordsUsed.insert({dependency.getRecordBlock(copy.block),
                            dependency.recordAnchor});
  }
  plan.insertions.erase(plan.insertions.begin() + placementInsertions,
                        plan.insertions.end());
  context.steps += plan.insertions.size();
  llvm::erase_if(plan.insertions, [&](const PlannedInsertion &insertion) {
    if (insertion.kind == PlannedInsertion::Kind::Copy)
      return bool(leftInPlace[insertion.copy]);
    return insertion.kind == PlannedInsertion::Kind::Record &&
           !recordsUsed.contains({insertion.block, insertion.anchor});
  });
  placementInsertions = plan.insertions.size();
}

/// Forgets what the ordering decided, and plans it again.
void CopyPlanner::State::planWaitsAgain() {
  for (PlannedCopy &copy : plan.copies) {
    copy.implies.clear();
    copy.subsumed = false;
    copy.deviceCovered = false;
    copy.hostCovered = false;
    copy.coveringWait.reset();
    copy.kernelsBefore = 0;
    copy.firstWaiter = PlanOp();
    copy.waitReason = OrderReason::of(OrderReason::Kind::EndOfBlock);
    copy.kernelsOverlapped = 0;
    copy.kernelsOverlappedBefore = 0;
    copy.overlapsEarlierKernels = false;
  }
  plan.foreignDependencies.clear();
  planOrdering(context);
}
