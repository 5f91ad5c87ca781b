//===- SteadyState.h - When a simulated loop repeats itself -----*- C++ -*-===//
//
// --vyre-simulate runs a loop's iterations one by one until they repeat:
// from then on every iteration grows each time the simulation holds by the
// same amount as the last one did, and the simulator adds the remaining
// iterations at once (docs/Simulation.md).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_SIMULATION_STEADYSTATE_H
#define VYRE_LIB_SIMULATION_STEADYSTATE_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::vyre::simulation {

/// What the simulation holds after one iteration of a loop: the times the
/// loop writes (when the host, each stream, engine and token is free or
/// done; the ends of the dependency chains), and the totals (copy and
/// kernel time, host overhead, synchronizations). The same components, in
/// the same order, after every iteration compared.
struct LoopSnapshot {
  std::vector<double> times;
  std::vector<double> totals;
};

/// The maxima (and minima) one iteration took over times, in order: each
/// with its operands and the one that won.
class ChoiceLog {
public:
  void clear();
  /// The times the log holds, over all its choices.
  size_t getNumOperands() const { return operands.size(); }
  /// A maximum over `operands` (a minimum, if `isMinimum`) won by
  /// `operands[winner]`.
  void record(llvm::ArrayRef<double> operands, unsigned winner,
              bool isMinimum);
  /// Whether `next`, the log of the next iteration, took the same choices,
  /// each won by the same operand, and that operand grew from this
  /// iteration to the next at least as fast as every other (at most as
  /// fast, for a minimum): then it keeps winning as the times keep growing.
  bool isKeptBy(const ChoiceLog &next) const;

private:
  std::vector<double> operands;
  /// Per choice: where its operands end in `operands`, its winner, and
  /// whether it is a minimum.
  std::vector<uint32_t> ends;
  std::vector<uint32_t> winners;
  std::vector<bool> minimums;
};

/// What every iteration adds once the loop is steady, per component of a
/// snapshot.
struct LoopPeriod {
  LoopSnapshot growth;
};

/// Finds the steady state of one run of a loop, from the snapshot and the
/// choice log of each iteration. The loop is steady once two iterations in
/// a row grew every component of the snapshot by the same amount and took
/// the same choices, each won by an operand growing at least as fast as the
/// others. The simulator computes every time from earlier times by maxima,
/// minima and sums with constants: with every input growing by a constant
/// amount per iteration and every choice won by the same operand, whose
/// lead does not shrink, each later iteration takes the same choices and
/// grows every time by the same amount again (by induction on the
/// iterations). A time from before the loop that the loop does not write
/// is an operand that grows by 0.
class SteadyStateDetector {
public:
  /// Forgets the iterations so far: the components changed.
  void reset();
  /// Takes the snapshot and the choices of the next iteration; returns the
  /// period if the loop is now steady.
  std::optional<LoopPeriod> add(LoopSnapshot snapshot, ChoiceLog choices);

private:
  std::vector<LoopSnapshot> snapshots;
  std::optional<ChoiceLog> lastChoices;
};

} // namespace mlir::vyre::simulation

#endif // VYRE_LIB_SIMULATION_STEADYSTATE_H
