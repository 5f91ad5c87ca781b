//===- CopyRemarks.h - Why each copy went where it did ----------*- C++ -*-===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_COPYREMARKS_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_COPYREMARKS_H

#include "vyre/Transforms/OverlapCopies/CopyCostModel.h"
#include "vyre/Transforms/OverlapCopies/CopyPlan.h"
#include "vyre/Transforms/OverlapCopies/OrderByCriticalPath.h"

#include "llvm/ADT/StringRef.h"

namespace mlir::vyre::overlap {

/// The remark category of every decision: `--remarks-filter=overlap-copies`.
constexpr llvm::StringLiteral kRemarkCategory = "overlap-copies";
/// The category of the plan, one analysis remark per copy:
/// `--remarks-filter=copy-plan`.
constexpr llvm::StringLiteral kPlanRemarkCategory = "copy-plan";

/// Emits, for each copy of `plan`, whether it overlaps kernels and why it
/// waits where it does, its plan, and whether its host buffer is pinned; and
/// for each copy kept in place, why. Call before `applyCopyPlan`.
void emitPlanRemarks(const CopyPlan &plan);

/// Says that `function` has asynchronous copies written by hand, so its
/// copies into the host stay on the main stream.
void emitHandWrittenAsyncRemark(FunctionOpInterface function);

/// An analysis remark `CopiesOrderedByNeed`: `moved` copies of `function`
/// were issued in the order their first consumers need them.
void emitCopiesOrderedRemark(FunctionOpInterface function, unsigned moved);

/// An analysis remark `WorkOrderedByCriticalPath` at the first op of `run`,
/// with the run's estimates in both orders.
void emitWorkReorderedRemark(FunctionOpInterface function,
                             const ReorderedRun &run);

/// Says that the cost model left `copy` in place, and why.
void emitCopyDeclinedRemark(FunctionOpInterface function, Operation *copy,
                            const CopyCostVerdict &verdict);

/// Says which kernels `slots` took to touch everything for want of a
/// `vyre.access` summary.
void emitKernelSummaryRemarks(FunctionOpInterface function,
                              const SlotAccessAnalysis &slots);

/// Says which calls in `function` may touch any buffer (their callee has no
/// `vyre.effects`), which makes every copy in flight wait before them.
void emitUnknownCallRemarks(FunctionOpInterface function);

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_COPYREMARKS_H
