//===- FillAndDrain.h - An engine's fill and drain --------------*- C++ -*-===//
//
// --vyre-simulate bounds a schedule by each engine's work, plus the least
// time before any of that work can start (its fill) and the least time that
// must follow the last of it (its drain), both along the program's chain of
// conflicting accesses (docs/Simulation.md).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_SIMULATION_FILLANDDRAIN_H
#define VYRE_LIB_SIMULATION_FILLANDDRAIN_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace mlir::vyre::simulation {

/// The fill and drain of one engine: the earliest any of its ops can start
/// after the program starts, and the least time from the end of any of them
/// to the end of the program. An op starts no earlier than its chain of
/// conflicting accesses allows, nor before all the ops it depends on (its
/// ancestors) have run on their engines: their work on one kind of engine,
/// shared among its engines, comes before it. The same holds after it, for
/// the ops that depend on it. The work before and after is counted for the
/// first and the last `kMaxCountedOps` ops recorded (the other ops' ends
/// are their chains').
struct EngineEnds {
  bool used = false;
  double fill = 0, drain = 0;
  /// The most, over a time t, of t and the work of the engine's ops that
  /// cannot start before t (on their chains and after their ancestors'
  /// work), shared among its engines: that work ends no earlier, before the
  /// drain. A kernel that needs two tiles copied in starts after both, and
  /// so do the kernels that accumulate after it, where another kernel that
  /// needs nothing may start at 0 and make the fill 0.
  double lateWork = 0;
};

/// Records the ops of one run on the dependency chain, in program order,
/// then computes each engine's ends.
///
/// The iterations of a loop that the simulator added from its steady state
/// are recorded as copies of the last one run (`repeat`), up to a budget.
/// Past it, the ops recorded stand for the first and the last iterations of
/// each loop (same accesses, same order): the chains among them are chains
/// of the whole run, so each drain found is at most that of the last
/// instance it stands for, and an instance left out in the middle has at
/// least that drain (whatever follows and conflicts with a later instance
/// of an op follows and conflicts with an earlier one). Each fill is the
/// true one (an op's first instance starts earliest). The result stays a
/// lower bound.
class FillAndDrain {
public:
  /// At most this many ops are recorded; past it, the drains are 0.
  explicit FillAndDrain(size_t maxOps = size_t(1) << 22) : maxOps(maxOps) {}

  /// One op on the chain: on engine `engine` (none for a host op), starting
  /// at `start` on the chain and taking `duration`; its accesses to device
  /// slots and to whole host buffers, each with whether it writes.
  void add(std::optional<unsigned> engine, double start, double duration,
           llvm::ArrayRef<std::pair<unsigned, bool>> slots,
           llvm::ArrayRef<std::pair<Value, bool>> hostBuffers);

  /// How many ops are recorded so far (0 once past the limit).
  size_t recordedOps() const { return truncated ? 0 : ops.size(); }

  /// Records the ops from `begin` on (one iteration of a loop) again, up to
  /// `times` more times: the iterations the simulator adds from the loop's
  /// steady state, which have the same accesses and durations. A copy stands
  /// for one of the last iterations, so that the chains through a long loop
  /// are not cut to the iterations simulated one by one. At most 2^20 ops
  /// and accesses are repeated over the whole run; past that, the
  /// iterations left out stand in the middle (see above).
  void repeat(size_t begin, uint64_t times);

  /// Counts the ancestors' work of the ops recorded so far only (the
  /// simulator ends there after a loop's first iteration).
  void endCounting() { countedLimit = std::min(countedLimit, ops.size()); }

  /// The ends of engines 0 .. `enginesPerKind.size()` - 1; engine `e` is
  /// `enginesPerKind[e]` engines that share its work.
  /// Without `countWork`, the ends are those of the chains alone.
  /// `workPerKind` is each engine's work over the whole run.
  llvm::SmallVector<EngineEnds>
  compute(bool countWork, llvm::ArrayRef<unsigned> enginesPerKind,
          llvm::ArrayRef<double> workPerKind) const;

  /// The most ops at the start and at the end of the run whose ancestors'
  /// (descendants') work is counted: a set of ops per op, so quadratic.
  static constexpr size_t kMaxCountedOps = 4096;

private:
  struct Access {
    unsigned slot;
    /// Set for an access to a whole host buffer; `slot` is then unused.
    Value hostBuffer;
    bool write;
  };
  struct Recorded {
    /// The engine's number, or -1 for a host op.
    int engine;
    double duration;
    /// Its accesses: `accesses[begin, end)`.
    uint32_t begin, end;
  };

  size_t maxOps;
  bool truncated = false;
  /// The ops and accesses `repeat` may still add.
  uint64_t repeatBudget = uint64_t(1) << 20;
  std::vector<Recorded> ops;
  std::vector<Access> accesses;
  /// The earliest start of each engine's ops, recorded or not.
  llvm::SmallVector<double> fills;
  /// The ops before `countedLimit` are the run's first ops, in order (no
  /// repeated iteration among them): their ancestors' work is counted, from
  /// their chain starts, `countedStarts`. The earliest chain start of each
  /// engine's ops from there on is `fillsAfterCounted`.
  size_t countedLimit = kMaxCountedOps;
  std::vector<double> countedStarts;
  llvm::SmallVector<double> fillsAfterCounted;

  /// For each of the ops `[begin, end)`, the most work one kind of engine
  /// does for the ops it depends on among them (`forward`), or for those
  /// that depend on it (not `forward`): time that passes before it starts
  /// (after it ends) in every schedule.
  std::vector<double> workAround(llvm::ArrayRef<unsigned> enginesPerKind,
                                 size_t begin, size_t end, bool forward) const;
};

} // namespace mlir::vyre::simulation

#endif // VYRE_LIB_SIMULATION_FILLANDDRAIN_H
