//===- PipelineLoops.h - Pieces of --vyre-pipeline-loops --------*- C++ -*-===//
//
// --vyre-pipeline-loops rewrites sequential vyre programs into sequential
// vyre programs (no streams, no tokens) that compute the same thing, in a
// shape --overlap-copies can overlap across loop iterations:
//
//  - a copy every iteration repeats unchanged leaves the loop
//    (HoistInvariantCopies.cpp);
//  - a copy that fills a buffer each iteration is issued `depth - 1`
//    iterations early, into one of `depth` rotating buffers
//    (PrefetchLegality.cpp decides which, PipelinedLoopEmitter.cpp rewrites).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_TRANSFORMS_PIPELINELOOPS_PIPELINELOOPS_H
#define VYRE_LIB_TRANSFORMS_PIPELINELOOPS_PIPELINELOOPS_H

#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>

namespace mlir::vyre {
class SlotAccessAnalysis;
class HostBufferAliasing;
struct SideAccess;
} // namespace mlir::vyre

namespace mlir::vyre::pipeline {

constexpr llvm::StringLiteral kRemarkCategory = "pipeline-loops";

/// A copy that fills `buffer` at the start of every iteration, which the
/// loop may issue early into rotating copies of `buffer`.
struct PrefetchedCopy {
  CopyH2DOp copy;
  AllocOp buffer;
  /// Size of one copy of the buffer.
  uint64_t bytes = 0;
  /// The pure ops of the body that compute the copy's source, in order.
  SmallVector<Operation *> sourceSlice;
};

/// A copy of the loop body that cannot be prefetched, and why.
struct RejectedCopy {
  CopyH2DOp copy;
  std::string reason;
};

/// What the loop allows.
struct LoopPrefetchAnalysis {
  /// Why the loop as a whole cannot be pipelined; empty if it can.
  std::string loopReason;
  SmallVector<PrefetchedCopy> prefetched;
  SmallVector<RejectedCopy> rejected;
};

/// Finds the copies of `loop`'s body that may be issued early into rotating
/// buffers.
LoopPrefetchAnalysis analyzeLoopPrefetch(scf::ForOp loop,
                                         const SlotAccessAnalysis &slots,
                                         HostBufferAliasing &hostAliasing);

/// Whether `side` may write (or free) a host buffer that aliases `hostRoot`.
bool mayWriteHostBuffer(const SideAccess &side, Value hostRoot,
                        HostBufferAliasing &hostAliasing);

/// Rewrites `loop` so that each prefetched copy is issued `depth - 1`
/// iterations ahead into `depth` rotating buffers (the original and
/// `depth - 1` new ones), with a prologue and an epilogue, and erases it.
/// The caller tags what it emitted (tagOpsInPlaceOfLoop).
void emitPipelinedLoop(scf::ForOp loop, ArrayRef<PrefetchedCopy> copies,
                       unsigned depth);

/// Moves the loop-invariant copies out of `loop`, in front of it; returns
/// the copies moved. The caller tags them and the loop.
SmallVector<CopyH2DOp> hoistInvariantCopies(scf::ForOp loop,
                                            const SlotAccessAnalysis &slots,
                                            HostBufferAliasing &hostAliasing);

//===----------------------------------------------------------------------===//
// Index arithmetic shared by the rewrites
//===----------------------------------------------------------------------===//

/// The number of iterations of `loop`, never negative, folded to a constant
/// when the bounds are constants.
Value buildTripCount(OpBuilder &builder, scf::ForOp loop);

/// Runs `body` with the builder inside `if (condition)`, or directly when the
/// condition is the constant true; not at all when it is constant false.
void emitIf(OpBuilder &builder, Location loc, Value condition,
            const std::function<void(OpBuilder &)> &body);

/// Erases the ops in [first, last), nested ones included, whose results
/// nothing uses and that have no effects: constants the index arithmetic
/// folded, views only the moved copies used.
void eraseDeadOps(Block::iterator first, Block::iterator last);

/// Tags the ops in [first, last), nested ones included, as emitted in place
/// of the loop at `loop`, numbered in program order (PipelinedLocation.h):
/// --vyre-verify-schedule takes that order as their input order.
void tagOpsInPlaceOfLoop(Block::iterator first, Block::iterator last,
                         Location loop);

} // namespace mlir::vyre::pipeline

#endif // VYRE_LIB_TRANSFORMS_PIPELINELOOPS_PIPELINELOOPS_H
