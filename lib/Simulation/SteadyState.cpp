//===- SteadyState.cpp - When a simulated loop repeats itself ---*- C++ -*-===//

#include "SteadyState.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir::vyre::simulation;

/// Whether `lhs` and `rhs`, differences of times up to `scale`, are equal
/// but for rounding: a few units in the last place of the times they were
/// taken from (the times are sums of doubles). No more: an allowance in
/// proportion to the times would let a time that grows faster by less
/// than it pass for one that grows as fast, and at 10^10 us that is
/// microseconds per iteration.
static bool nearlyEqual(double lhs, double rhs, double scale) {
  return std::fabs(lhs - rhs) <=
         64 * std::numeric_limits<double>::epsilon() * std::max(1.0, scale);
}

static double largest(const std::vector<double> &values) {
  double result = 0;
  for (double value : values)
    result = std::max(result, std::fabs(value));
  return result;
}

/// The growth of `after` over `before`, component by component.
static std::vector<double> growth(const std::vector<double> &before,
                                  const std::vector<double> &after) {
  std::vector<double> result(after.size());
  for (size_t i = 0; i < after.size(); ++i)
    result[i] = after[i] - before[i];
  return result;
}

/// Whether the three snapshots of `values` grew by the same amount per
/// component twice in a row; that amount is `later`.
static bool growsEvenly(const std::vector<double> &first,
                        const std::vector<double> &second,
                        const std::vector<double> &third,
                        std::vector<double> &later) {
  std::vector<double> earlier = growth(first, second);
  later = growth(second, third);
  double scale = largest(third);
  for (size_t i = 0; i < later.size(); ++i)
    if (!nearlyEqual(earlier[i], later[i], scale))
      return false;
  return true;
}

void ChoiceLog::clear() {
  operands.clear();
  ends.clear();
  winners.clear();
  minimums.clear();
}

void ChoiceLog::record(llvm::ArrayRef<double> values, unsigned winner,
                       bool isMinimum) {
  operands.insert(operands.end(), values.begin(), values.end());
  ends.push_back(uint32_t(operands.size()));
  winners.push_back(winner);
  minimums.push_back(isMinimum);
}

bool ChoiceLog::isKeptBy(const ChoiceLog &next) const {
  if (ends != next.ends || winners != next.winners ||
      minimums != next.minimums)
    return false;
  double scale = std::max(largest(operands), largest(next.operands));
  uint32_t begin = 0;
  for (size_t choice = 0; choice < ends.size(); ++choice) {
    uint32_t end = ends[choice];
    uint32_t winner = begin + winners[choice];
    double winnerGrowth = next.operands[winner] - operands[winner];
    for (uint32_t i = begin; i < end; ++i) {
      double operandGrowth = next.operands[i] - operands[i];
      double lead = minimums[choice] ? operandGrowth - winnerGrowth
                                     : winnerGrowth - operandGrowth;
      if (lead < 0 && !nearlyEqual(lead, 0, scale))
        return false;
    }
    begin = end;
  }
  return true;
}

void SteadyStateDetector::reset() {
  snapshots.clear();
  lastChoices.reset();
}

std::optional<LoopPeriod> SteadyStateDetector::add(LoopSnapshot snapshot,
                                                   ChoiceLog choices) {
  snapshots.push_back(std::move(snapshot));
  if (snapshots.size() > 3)
    snapshots.erase(snapshots.begin());
  bool kept = lastChoices && lastChoices->isKeptBy(choices);
  lastChoices = std::move(choices);
  if (snapshots.size() < 3 || !kept)
    return std::nullopt;
  LoopPeriod period;
  if (!growsEvenly(snapshots[0].times, snapshots[1].times,
                   snapshots[2].times, period.growth.times) ||
      !growsEvenly(snapshots[0].totals, snapshots[1].totals,
                   snapshots[2].totals, period.growth.totals))
    return std::nullopt;
  return period;
}
