//===- PlacementPlanner.h - Where each async copy goes -----------*- C++ -*-===//
//
// The placement step of planning --overlap-copies (PlanPlacement.cpp for
// copies into the device, PlanCopiesToHost.cpp for copies into the host).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_PLACEMENTPLANNER_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_PLACEMENTPLANNER_H

#include "LastAccesses.h"
#include "PlanContext.h"

#include <functional>

namespace mlir::vyre::overlap {

/// An async copy that a planned copy may depend on directly.
struct AsyncCopy {
  PlannedDependency token;
  int64_t stream;
  /// Whether it copies into host memory (another copy engine's stream).
  bool toHost = false;
};

/// What a copy needs, worked out before it is placed.
struct CopyNeeds {
  SmallVector<unsigned> slots;
  /// The copy's source, and the host buffer (or slot) it is a view of.
  Value source;
  Value hostRoot;
  SmallVector<unsigned> sourceSlots;
  /// Argument slots the copy writes.
  SmallVector<Value> targetArguments;
  /// The latest access of the destination's slots, and the latest write of
  /// the source's: of all of them (the limit of the copy's hoisting), and of
  /// each (what it waits for).
  Stamp lastSlotAccess;
  SmallVector<Stamp> slotAccesses;
  Stamp lastSourceWrite;
  SmallVector<Stamp> sourceWrites;
  /// The latest earlier copy, per side stream, whose source may be this
  /// copy's destination or whose destination may be its source, in order.
  SmallVector<Stamp> aliasingCopies;
  std::optional<AsyncCopy> prior;
  int64_t stream = 1;
};

/// Earlier work a copy must wait for. Main-stream ops run in order, so the
/// latest of them stands for all. A copy on another stream stands for the
/// copies before it there, but the main-stream ops after it did not all wait
/// for it: it is followed through its token.
struct WorkToFollow {
  Stamp mainStream;
  /// The latest async copy on each stream.
  SmallVector<std::pair<AsyncCopy, Stamp>, 2> copies;
};

/// Plans the placement of the copies of one function.
class PlacementPlanner {
public:
  PlacementPlanner(PlanContext &context, const PlanOptions &options)
      : context(context), plan(context.plan), slots(context.slots),
        options(options) {}

  void planBlock(Block &block) { planBlock(block, nullptr); }

private:
  /// The block being planned.
  struct BlockState {
    Block *block = nullptr;
    /// For a block of an scf.if (it runs at most once where the scf.if
    /// stands), the state of the block holding the scf.if, as it is there:
    /// a copy into a slot nothing in the branch touched before follows the
    /// main-stream work issued up to the last access there, not all of it.
    BlockState *enclosing = nullptr;
    LastAccesses last;
    /// How many ops are planned after each op (null: the block's start),
    /// and whether a vyre.record is among them.
    DenseMap<Operation *, unsigned> insertedAfter;
    DenseMap<Operation *, bool> recordAfter;
    DenseMap<int64_t, Stamp> lastCopyOnStream;
  };

  void planBlock(Block &block, BlockState *enclosing);
  FailureOr<std::optional<PlannedDependency>>
  findEnclosingDependency(Value target, const CopyNeeds &needs,
                          BlockState &inner, Location loc);
  PlanPoint insertAfter(BlockState &state, const Stamp &after);
  PlannedDependency recordAfter(BlockState &state, const Stamp &op,
                                Location loc);
  std::optional<AsyncCopy> asyncCopyAt(const Stamp &stamp) const;
  /// Adds the op at `stamp` to `work`.
  void follow(WorkToFollow &work, const Stamp &stamp) const;
  /// The dependencies that order a copy after `work`: the tokens of its
  /// copies, and a record after its main-stream op.
  void addDependencies(const WorkToFollow &work, BlockState &state,
                       Location loc,
                       SmallVectorImpl<PlannedDependency> &dependencies);
  /// Whether the op at `stamp` may put work on a stream (an op of unknown
  /// effect may).
  bool mayHaveDeviceWork(const Stamp &stamp) const;
  /// Whether an op writes only bytes of the copy's host buffer other than
  /// its source's (a copy back into other rows of the array it reads).
  std::function<Operation *(const Stamp &)>
  writesOtherBytes(const CopyNeeds &needs);
  bool slotMayBeBusyAtStart(Block &block, Value target,
                            ArrayRef<unsigned> copySlots);
  bool hostBufferMayBeBusyAtStart(Block &block, Value hostRoot);
  OrderReason reasonToStayBelow(const Stamp &stamp,
                                ArrayRef<unsigned> copySlots);

  bool planCopy(CopyH2DOp copy, const Stamp &previous, BlockState &state);
  bool planCopyToHost(CopyD2HOp copy, const Stamp &previous,
                      BlockState &state);
  int64_t chooseCopyToHostStream(ArrayRef<PlannedDependency> dependencies);
  SmallVector<PlannedDependency>
  findCopyToHostDependencies(CopyD2HOp copy, ArrayRef<unsigned> sourceSlots,
                             Value hostRoot, const Stamp &previous,
                             BlockState &state);
  CopyNeeds findNeeds(CopyH2DOp copy, ArrayRef<unsigned> copySlots,
                      BlockState &state);
  std::pair<Stamp, OrderReason> findLimit(CopyH2DOp copy,
                                          const CopyNeeds &needs,
                                          const Stamp &previous,
                                          BlockState &state);
  SmallVector<PlannedDependency> findDependencies(CopyH2DOp copy,
                                                  const CopyNeeds &needs,
                                                  BlockState &state);
  void notePlacedCopy(const CopyNeeds &needs, const Stamp &placed,
                      BlockState &state);
  /// Adds `planned`, just filled in, to the plan's insertions.
  void addToPlan(PlannedCopy &planned, BlockState &state);
  /// `dependencies`, each once, in order.
  static SmallVector<PlannedDependency>
  unique(ArrayRef<PlannedDependency> dependencies);

  PlanContext &context;
  CopyPlan &plan;
  const SlotAccessAnalysis &slots;
  const PlanOptions &options;
  unsigned nextStream = 0;
  /// The D2H stream the next independent copy into the host takes.
  unsigned nextD2HStream = 0;
};

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_PLACEMENTPLANNER_H
