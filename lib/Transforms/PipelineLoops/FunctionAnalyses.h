//===- FunctionAnalyses.h - A function's analyses across rewrites -*- C++
//-*-===//
//
// Part of --vyre-pipeline-loops: the analyses the pass asks about a function
// (slots and launch summaries, host buffer aliasing, op positions, merged
// footprints), kept up to date as its loops are rewritten one by one. Each
// rewrite updates them at the cost of what it changed, so that a function of
// n loops is analysed in time near n, not n^2.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_TRANSFORMS_PIPELINELOOPS_FUNCTIONANALYSES_H
#define VYRE_LIB_TRANSFORMS_PIPELINELOOPS_FUNCTIONANALYSES_H

#include "PipelineLoops.h"

#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace mlir::vyre::pipeline {

/// Where the rewrite of one loop may change its function, recorded before
/// it: the ops in the loop's place (the loop, and all nested in it), and the
/// op of the function's body that holds the loop, around which the rewrite
/// allocates and frees new buffers.
struct LoopRewriteScope {
  explicit LoopRewriteScope(scf::ForOp loop);

  Block *block;
  /// The ops on either side of the loop in its block; null at its ends.
  Operation *before;
  Operation *after;
  /// The op of the function's body that holds the loop (the loop itself,
  /// where it is not nested), and those on either side of it.
  Operation *outermost;
  Operation *beforeOutermost;
  Operation *afterOutermost;
  /// The loop and the ops nested in it, and its slot roots with their ops.
  SmallVector<Operation *> replaced;
  SmallVector<std::pair<Operation *, Value>> replacedRoots;
};

/// The analyses of a function, valid for the function as it is.
struct FunctionAnalyses {
  explicit FunctionAnalyses(func::FuncOp function)
      : function(function), slots(function), positions(function),
        footprints(slots) {
    hostAliasing.emplace(function);
    function.walk([&](Operation *) { ++numOps; });
  }

  /// Brings every analysis up to date after the rewrite `scope` recorded:
  /// at the cost of the ops it put in the loop's place and around the op
  /// that holds the loop, not of the function.
  /// `emittedBeside`: ops the rewrite put away from those places (the
  /// allocs and deallocs emitPipelinedLoop makes beside the buffers they
  /// rotate).
  void update(const LoopRewriteScope &scope,
              ArrayRef<Operation *> emittedBeside = {});

  func::FuncOp function;
  SlotAccessAnalysis slots;
  /// Rebuilt by each update (it keeps nothing but caches).
  std::optional<HostBufferAliasing> hostAliasing;
  OpPositions positions;
  /// A loop's footprint is merged once from its body's, not walked again
  /// for each loop around it.
  OpFootprintCache footprints;
  /// The ops of the function, the function itself included.
  uint64_t numOps = 0;
};

} // namespace mlir::vyre::pipeline

#endif // VYRE_LIB_TRANSFORMS_PIPELINELOOPS_FUNCTIONANALYSES_H
