//===- PlanContext.h - What both planning steps share -----------*- C++ -*-===//
//
// The state the two planning steps of --overlap-copies share: the plan being
// built, the analyses it rests on, and where planned copies go.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_PLANCONTEXT_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_PLANCONTEXT_H

#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Transforms/OverlapCopies/CopyPlan.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::vyre::overlap {

/// Which host buffers the function may write anywhere.
struct FunctionHostWrites {
  bool anyRoot = false;
  llvm::SetVector<Value> roots;
  bool anyRootByDevice = false;
  llvm::SetVector<Value> rootsByDevice;
};

/// Shared by placement and ordering.
class PlanContext {
public:
  PlanContext(CopyPlan &plan, const SlotAccessAnalysis &slots)
      : plan(plan), slots(slots), hostAliasing(plan.function),
        footprints(slots) {}

  CopyPlan &plan;
  const SlotAccessAnalysis &slots;
  HostBufferAliasing hostAliasing;
  /// What each op touches; planning does not change the IR.
  OpFootprintCache footprints;
  /// Elementary steps of planning (ops visited, entries looked at), for
  /// tests of how the work grows with the program.
  uint64_t steps = 0;
  /// Whether the function has async copies written by hand (placement finds
  /// them): their tokens take part in stream order, which revising a plan
  /// does not follow.
  bool hasInputAsyncCopies = false;
  /// PlanOptions::inPlaceCopiesBlockHost.
  bool inPlaceCopiesBlockHost = true;

  /// The planned copies placed after each op of a block (null: at its
  /// start), in order.
  DenseMap<std::pair<Block *, Operation *>, SmallVector<unsigned, 1>>
      copiesAfter;
  /// The input copies that planned copies replace.
  llvm::DenseSet<Operation *> replaced;

  bool isFunctionEntry(Block &block) const {
    return block.isEntryBlock() && block.getParentOp() == plan.function;
  }

  /// Whether the function may write the host buffer `hostRoot` anywhere.
  bool mayBeWrittenInFunction(Value hostRoot);
  /// Which host buffers the function may write, computed on first use (only
  /// copies in nested or non-entry blocks need it).
  const FunctionHostWrites &getFunctionHostWrites();

private:
  std::optional<FunctionHostWrites> functionHostWrites;
};

/// Step 1: where each copy goes, its stream and its dependencies.
void planPlacement(PlanContext &context, const PlanOptions &options);

/// Step 2: where later ops wait for the copies, on the device or the host.
void planOrdering(PlanContext &context);

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_PLANCONTEXT_H
