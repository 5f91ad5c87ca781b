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
//    (PrefetchLegality.cpp decides which, PipelinedLoopEmitter.cpp rewrites);
//  - where copies run in front of a loop (those moved out of it, or the
//    fills a pipelined loop issues before its steady-state loop) and its
//    first kernel needs only some of them, its first iteration is written
//    out in front of it, so that each of its kernels waits only for the
//    copies it uses (PeelFirstIteration.cpp).
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
class OpFootprintCache;
struct SideAccess;
} // namespace mlir::vyre

namespace mlir::vyre::pipeline {

constexpr llvm::StringLiteral kRemarkCategory = "pipeline-loops";

/// A buffer whose contents no iteration inherits from the one before, so
/// that each iteration may use its own copy of it: one that a copy fills at
/// the start of every iteration (the copy is then issued early), one that
/// copies in the branches of an scf.if fill before anything else touches it
/// (issued early under the same condition), one that a launch declared to
/// `overwrite` is the first to touch, or one that a copy whose source the
/// body writes is the first to touch.
struct RotatedBuffer {
  AllocOp buffer;
  /// Size of one copy of the buffer.
  uint64_t bytes = 0;
  /// The copy directly in the body that fills it, issued early; null
  /// otherwise.
  CopyH2DOp fill;
  /// For a buffer filled in the branches of an scf.if of the body: that
  /// scf.if, and the copy in each branch that fills it, first to touch it in
  /// that branch (null where the branch does not touch the buffer). Each is
  /// issued early under the condition of its branch.
  scf::IfOp branch;
  CopyH2DOp thenFill, elseFill;
  /// The pure ops of the body, its branches included, that compute the
  /// branch's condition and the fills' sources, by position.
  SmallVector<Operation *> branchSlice;
  /// For a buffer a copy overwrites in place, the copy: its source is
  /// written in the body (a host op produces it), so the copy cannot be
  /// issued early, but with a buffer of its own each iteration it need not
  /// wait for the kernels of the iteration before. Null otherwise.
  CopyH2DOp inPlaceCopy;
  /// The host op of the body that writes the fill's source (a decode call
  /// that fills a staging buffer, then the copy), issued early with the
  /// fill, just before it; null where the body does not write the source.
  Operation *producer = nullptr;
  /// The pure ops of the body that compute the fill's source (and the
  /// producer's operands), in order.
  SmallVector<Operation *> sourceSlice;

  /// Whether a copy fills it early (directly or under a branch).
  bool isFilledEarly() const { return fill || thenFill || elseFill; }
};

/// A copy back to the host from an overwritten rotated buffer, which the
/// rewrite issues one iteration late: after the next iteration's launches,
/// so that it runs beside them.
struct DeferredCopy {
  CopyD2HOp copy;
  /// The pure ops of the body that compute its destination, in order.
  SmallVector<Operation *> targetSlice;
};

/// A copy of the loop body that cannot be issued early, and why.
struct RejectedCopy {
  CopyH2DOp copy;
  std::string reason;
};

/// What the loop allows.
struct LoopPrefetchAnalysis {
  /// Why the loop as a whole cannot be pipelined; empty if it can.
  std::string loopReason;
  SmallVector<RotatedBuffer> rotated;
  SmallVector<DeferredCopy> deferred;
  SmallVector<RejectedCopy> rejected;
};

//===----------------------------------------------------------------------===//
// Where ops are, in one numbering of a function (OpPositions.cpp)
//===----------------------------------------------------------------------===//

/// The ops of a function numbered in pre-order: an op is inside another
/// exactly when its number lies in the other's range, so that telling
/// whether a use is in a loop, or before an op of its body, costs O(1), not
/// the depth of the nest. The users of a value are kept sorted by number,
/// computed on first ask. Numbers leave gaps, so that the ops a rewrite puts
/// in place of others are numbered without renumbering the function
/// (`renumber`).
class OpPositions {
public:
  using Position = uint64_t;

  explicit OpPositions(Operation *root);

  /// The op's number, and the last number inside it.
  Position enter(Operation *op) const { return ranges.lookup(op).first; }
  Position exit(Operation *op) const { return ranges.lookup(op).second; }
  /// The users of `value`, by number.
  ArrayRef<Operation *> getSortedUsers(Value value);

  /// Numbers the ops from `first` up to `last` in their block, and all
  /// nested in them, after a rewrite put them there: in the gap their
  /// neighbours leave, or, where it is too small, by numbering the whole
  /// root again. Forgets `erased`, ops the rewrite erased, whose addresses
  /// new ops may take. The ops around keep their numbers, and the ops that
  /// hold the block widen their ranges to hold the new ones.
  void renumber(Block *block, Block::iterator first, Block::iterator last,
                ArrayRef<Operation *> erased = {});

private:
  /// Numbers the whole root, an op's gap after it.
  void numberAll();
  /// The last number before `first` in `block`, and the first after `last`.
  Position numberBefore(Block *block, Block::iterator first) const;
  Position numberAfter(Block *block, Block::iterator last) const;

  Operation *root;
  DenseMap<Operation *, std::pair<Position, Position>> ranges;
  DenseMap<Value, SmallVector<Operation *>> sortedUsers;
};

/// Finds the buffers of `loop`'s body that may rotate: those filled by a
/// copy that may be issued early, and those a launch overwrites.
/// `footprints` holds those of the function as it is.
LoopPrefetchAnalysis analyzeLoopPrefetch(scf::ForOp loop,
                                         const SlotAccessAnalysis &slots,
                                         HostBufferAliasing &hostAliasing,
                                         OpPositions &positions,
                                         OpFootprintCache &footprints);

/// Whether `side` may write (or free) a host buffer that aliases `hostRoot`.
bool mayWriteHostBuffer(const SideAccess &side, Value hostRoot,
                        HostBufferAliasing &hostAliasing);

/// Rewrites `loop` so that iteration i uses copy i mod `depth` of each
/// rotated buffer (the original and `depth - 1` new ones), each fill issued
/// `depth - 1` iterations ahead and each deferred copy one iteration late,
/// and erases it.
/// The caller tags what it emitted (tagOpsInPlaceOfLoop). Returns the ops
/// emitted away from the loop's place and from the op of the function's
/// body that holds it: the allocs and deallocs of rotating buffers made
/// beside the buffer they rotate (in runs right after its alloc and its
/// dealloc), so that the lowering allocates and frees them as one.
SmallVector<Operation *> emitPipelinedLoop(scf::ForOp loop,
                                           const LoopPrefetchAnalysis &analysis,
                                           unsigned depth);

/// Moves the loop-invariant copies out of `loop`, in front of it; returns
/// the copies moved. The caller tags them and the loop. `footprints` holds
/// those of the function as it is.
SmallVector<CopyH2DOp> hoistInvariantCopies(scf::ForOp loop,
                                            const SlotAccessAnalysis &slots,
                                            HostBufferAliasing &hostAliasing,
                                            OpFootprintCache &footprints);

/// The copies right in front of `loop` in its block (only ops without
/// effects between them and it), nearest first.
SmallVector<CopyH2DOp> copiesInFrontOf(scf::ForOp loop);

/// Whether writing `loop`'s first iteration out in front of it lets the ops
/// of that iteration wait for fewer of the copies in front of it: its trip
/// count is a constant of at least 1, it carries no values, and the first
/// op of its body with device work is a launch or copy that does not use
/// the destination of one of them (PeelFirstIteration.cpp).
bool peelingFirstIterationPays(scf::ForOp loop);

/// Writes `loop`'s first iteration out in front of it and starts the loop
/// one step later, or erases the loop where that was its only iteration.
/// `loop` has a constant trip count of at least 1 and no iter_args. The
/// caller tags what it emitted.
void peelFirstIteration(scf::ForOp loop);

//===----------------------------------------------------------------------===//
// Where a buffer's uses outside a loop run (UsesAroundLoop.cpp)
//===----------------------------------------------------------------------===//

/// Where a use of a buffer, defined outside a loop, runs relative to the loop.
enum class UseAroundLoop {
  /// Inside the loop.
  InLoop,
  /// Before the first iteration of every run of the loop, and never after
  /// one within the buffer's life.
  Before,
  /// Like Before, but the user derives a value (a view) from the buffer,
  /// which later ops might use.
  DerivesBefore,
  /// After the loop: later in the program.
  After,
  /// Before the loop, but in a block that an enclosing op may run again
  /// while the buffer lives (an outer loop's body): so after the loop too.
  BeforeAndAfter,
};

/// Classifies `user`, a user of a value that `definition` defines outside
/// `loop`.
UseAroundLoop classifyUseAroundLoop(Operation *user, scf::ForOp loop,
                                    Operation *definition);

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
/// nothing uses and that have no memory effects at all (constants the index
/// arithmetic folded, views only the moved copies used), and the scf.if ops
/// without results left with empty branches (the fills moved out of them).
void eraseDeadOps(Block::iterator first, Block::iterator last);

/// Tags the ops in [first, last), nested ones included, as emitted in place
/// of the loop at `loop`, numbered in program order (PipelinedLocation.h):
/// --vyre-verify-schedule takes that order as their input order.
void tagOpsInPlaceOfLoop(Block::iterator first, Block::iterator last,
                         Location loop);

} // namespace mlir::vyre::pipeline

#endif // VYRE_LIB_TRANSFORMS_PIPELINELOOPS_PIPELINELOOPS_H
