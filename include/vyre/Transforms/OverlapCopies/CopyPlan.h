//===- CopyPlan.h - What --overlap-copies will do to a function -*- C++ -*-===//
//
// --overlap-copies works in two steps. Planning decides, for every copy of a
// function, where its asynchronous form goes, which stream it runs on, what it
// depends on, and where later ops wait for it, without changing the IR.
// Applying builds that plan. The plan is a plain data structure: it can be
// printed, inspected from C++, and tested apart from the rewrite.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_COPYPLAN_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_COPYPLAN_H

#include "vyre/Analysis/OverlapPolicy.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/IR/Block.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::vyre {

class SlotAccessAnalysis;

namespace overlap {

/// Why one op must stay after another: a hazard in the verdict API's
/// vocabulary, or an ordering that is not about memory.
struct OrderReason {
  enum class Kind {
    Hazard,
    /// The op defines an operand of the copy.
    OperandDefinition,
    /// Copies on one side stream keep their program order.
    StreamOrder,
    /// Tokens do not outlive their block.
    EndOfBlock,
  };
  Kind kind = Kind::OperandDefinition;
  HazardKind hazard = HazardKind::UnknownAccess;

  static OrderReason of(HazardKind hazard) { return {Kind::Hazard, hazard}; }
  static OrderReason of(Kind kind) { return {kind, HazardKind::UnknownAccess}; }
  bool isHazard() const { return kind == Kind::Hazard; }
  /// `write-after-read`, `host-buffer`, `stream order`, ...
  std::string str() const;
};

/// A place in a block, stable while nothing is inserted: just after `anchor`
/// (null: the block's start), after the first `rank` ops planned there (rank
/// 0: the anchor itself).
struct PlanPoint {
  Operation *anchor = nullptr;
  unsigned rank = 0;

  /// Whether this point comes before `other`, in the same block.
  bool isBefore(const PlanPoint &other) const;
};

/// An op of the input, or a planned copy (by index); neither: none.
struct PlanOp {
  Operation *op = nullptr;
  std::optional<unsigned> copy;

  explicit operator bool() const { return op || copy; }
  /// `'vyre.dispatch'`, or `'vyre.copy_h2d_async'` for a planned copy, or
  /// `none` for neither.
  std::string describe(StringRef none) const;
};

/// What a planned copy waits for before it starts.
struct PlannedDependency {
  enum class Kind {
    /// Another planned copy, by index.
    Copy,
    /// A token the input already had (an async copy written by hand).
    Token,
    /// The main stream's progress up to a point: a `vyre.record` there.
    Record,
  };
  Kind kind;
  unsigned copy = 0;
  Value token;
  Operation *recordAnchor = nullptr;
  /// The block of the record: null for the copy's own block; for a copy in
  /// a branch of an scf.if, the block holding the scf.if (or one around
  /// it), where the main-stream work the copy must follow was issued.
  Block *recordBlock = nullptr;

  /// The block the record is in, for a copy in `copyBlock`.
  Block *getRecordBlock(Block *copyBlock) const {
    return recordBlock ? recordBlock : copyBlock;
  }

  bool operator==(const PlannedDependency &other) const {
    return kind == other.kind && copy == other.copy && token == other.token &&
           recordAnchor == other.recordAnchor &&
           recordBlock == other.recordBlock;
  }
};

/// One synchronous copy (`vyre.copy_h2d`, or `vyre.copy_d2h` with
/// `async-d2h`) and the asynchronous copy planned for it.
struct PlannedCopy {
  /// The copy's index in `CopyPlan::copies`, which is planning order.
  unsigned id = 0;
  Operation *original = nullptr;
  /// Whether it copies into host memory (a `vyre.copy_d2h`).
  bool toHost = false;
  Block *block = nullptr;
  /// Where the async copy goes: after this point's anchor.
  PlanPoint at;
  int64_t stream = 1;
  SmallVector<PlannedDependency, 2> dependencies;

  /// Into the device: the slot of the destination's root, and every slot
  /// that may alias it (sorted); the root of the host buffer read, and its
  /// slots if it is one. Into the host: the slot read (`slot`, and
  /// `sourceSlots`), the root of the host buffer written (`hostRoot`), and
  /// its slots if it is one (`slots`).
  unsigned slot = 0;
  SmallVector<unsigned, 2> slots;
  Value hostRoot;
  SmallVector<unsigned, 2> sourceSlots;

  /// The op the copy could not move above, and why; none if none stopped it.
  PlanOp hoistLimit;
  OrderReason hoistReason;

  /// Filled in when later ops are ordered after the copy.
  /// Copies into the same slots this one depends on: ordering after this
  /// one orders after them too.
  SmallVector<unsigned, 2> implies;
  /// Whether a later copy implies this one for every slot it writes.
  bool subsumed = false;
  /// Whether the main stream, and the host, are ordered after the copy.
  bool deviceCovered = false;
  bool hostCovered = false;
  /// The planned wait (an index into `CopyPlan::insertions`) that ordered
  /// the main stream after the copy.
  std::optional<unsigned> coveringWait;
  /// Kernels before the copy in its block; the first op that waited for it
  /// (none: the end of the block; a later copy that depends on it), and why;
  /// how many kernels were issued after it before the main stream or the
  /// host first waited for it.
  unsigned kernelsBefore = 0;
  PlanOp firstWaiter;
  OrderReason waitReason = OrderReason::of(OrderReason::Kind::EndOfBlock);
  unsigned kernelsOverlapped = 0;
  /// Kernels issued before the copy, in its block, that it may still run
  /// beside: those after the main-stream point its records make it wait
  /// for, and after the last point the host waited for the main stream.
  unsigned kernelsOverlappedBefore = 0;
  /// Whether it may also run beside kernels issued before its block (an
  /// earlier iteration's, or those before the loop or branch), which
  /// nothing orders it after.
  bool overlapsEarlierKernels = false;

  /// Whether the copy may run beside some kernel.
  bool mayOverlapKernels() const {
    return kernelsOverlapped + kernelsOverlappedBefore > 0 ||
           overlapsEarlierKernels;
  }

  /// Whether the cost model left the copy where it is, synchronous, after
  /// planning: nothing is built for it, the input copy stays, and later ops
  /// are ordered after it as after any op (`leaveCopiesInPlace`).
  bool leftInPlace = false;

  bool isOpen() const { return !deviceCovered && !subsumed; }
  /// What the copy does on the device, for the verdict API: it reads its
  /// source's slots and writes its destination's.
  AccessSummary summarize() const { return AccessSummary(sourceSlots, slots); }
};

/// One op the plan inserts. Insertions are built in the order they were
/// planned, each at its place.
struct PlannedInsertion {
  enum class Kind {
    /// A `vyre.record` after `anchor` (null: the block's start).
    Record,
    /// Planned copy `copy`, after `anchor`.
    Copy,
    /// A `vyre.wait` on the tokens of `copies`, before `before`.
    Wait,
    /// A `vyre.sync` on the tokens of `copies`, and on the record after
    /// planned wait `afterWait` if set, before `before` (null: at the end
    /// of the block).
    Sync,
    /// A `vyre.record` right after planned wait `afterWait`.
    RecordAfterWait,
    /// A `vyre.record` and a `vyre.sync` on it, before `before`: the host
    /// waits for the main stream.
    MainStreamSync,
  };
  Kind kind;
  Block *block = nullptr;
  Operation *anchor = nullptr;
  Operation *before = nullptr;
  unsigned copy = 0;
  SmallVector<unsigned, 2> copies;
  std::optional<unsigned> afterWait;
  Location loc;
};

/// Everything --overlap-copies will do to one function.
struct CopyPlan {
  FunctionOpInterface function;
  /// Stable addresses: planning refers to copies by pointer.
  std::deque<PlannedCopy> copies;
  std::vector<PlannedInsertion> insertions;
  /// Async copies the input already had (either direction), and the planned
  /// copies whose tokens each must also wait for.
  SmallVector<std::pair<Operation *, SmallVector<unsigned>>>
      foreignDependencies;
  /// Copies that stay as they are: their device end is not a known slot.
  SmallVector<Operation *> keptInPlace;
  /// Elementary steps planning took (ops visited, entries of its indexes
  /// looked at, footprints merged), for tests of how the work grows with
  /// the program; never a time.
  uint64_t steps = 0;

  /// Prints the plan of copy `index`, one line: where it goes, its stream,
  /// its dependencies, and the first op that waits for it.
  void printCopy(llvm::raw_ostream &os, unsigned index) const;
  /// Prints every copy's plan, one line each (those the cost model left in
  /// place say so), and the copies kept where they are.
  void print(llvm::raw_ostream &os) const;
};

/// Options of the planner; those of --overlap-copies.
struct PlanOptions {
  bool hoist = true;
  unsigned sideStreams = 1;
  /// Whether D2H copies become asynchronous, on streams `sideStreams + 1`
  /// to `sideStreams + d2hStreams`.
  bool asyncD2H = false;
  /// Number of streams asynchronous D2H copies are spread over (one per
  /// device-to-host copy engine).
  unsigned d2hStreams = 1;
  /// Copies to leave as they are (the cost model found they do not pay).
  llvm::SmallPtrSet<Operation *, 4> leaveInPlace;
  /// Whether the copies left on the main stream make the host wait for it
  /// (not with async-in-place). Only the count of the kernels a copy may
  /// run beside reads it: the waits are planned as if they did, and
  /// async-in-place orders what relied on that.
  bool inPlaceCopiesBlockHost = true;
  /// Whether the cost model gives each copy it leaves in place a remark.
  bool emitRemarks = true;
};

/// Plans the copies of `function`. The IR is not changed.
CopyPlan planCopyOverlap(FunctionOpInterface function,
                         const SlotAccessAnalysis &slots,
                         const PlanOptions &options);

/// Plans the copies of a function, and revises that plan without placing
/// every copy again. The IR is not changed.
class CopyPlanner {
public:
  CopyPlanner(FunctionOpInterface function, const SlotAccessAnalysis &slots,
              const PlanOptions &options);
  ~CopyPlanner();

  const CopyPlan &getPlan() const;
  /// Leaves the planned copies `copies` (ids) where they are, synchronous,
  /// as `PlanOptions::leaveInPlace` would have: the copies that depended on
  /// one of them, or that follow it in program order in its direction and
  /// block (a copy engine runs its copies in order), move below it, and
  /// depend on the copy before it on its side stream instead; the waits are
  /// planned again. Fails, changing nothing, where the function has async
  /// copies written by hand (their tokens take part in stream order), or
  /// where a copy depends on a later copy or one in another block (planning
  /// makes neither).
  LogicalResult leaveCopiesInPlace(ArrayRef<unsigned> copies);
  /// The plan, once it is no longer revised.
  CopyPlan takePlan();
  /// Elementary steps of planning so far, as `CopyPlan::steps`.
  uint64_t getSteps() const;

private:
  struct State;
  std::unique_ptr<State> state;
};

/// Builds `plan`: inserts the async copies, records, waits and syncs, and
/// erases the original copies.
void applyCopyPlan(CopyPlan &plan);

} // namespace overlap
} // namespace mlir::vyre

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_COPYPLAN_H
