//===- FillAndDrain.cpp - An engine's fill and drain, for the bound -------===//

#include "FillAndDrain.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::vyre::simulation;

void FillAndDrain::add(std::optional<unsigned> engine, double start,
                       double duration,
                       llvm::ArrayRef<std::pair<unsigned, bool>> slots,
                       llvm::ArrayRef<std::pair<Value, bool>> hostBuffers) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  bool counted = !truncated && ops.size() < countedLimit;
  if (engine) {
    if (fills.size() <= *engine) {
      fills.resize(*engine + 1, kNever);
      fillsAfterCounted.resize(*engine + 1, kNever);
    }
    fills[*engine] = std::min(fills[*engine], start);
    if (!counted)
      fillsAfterCounted[*engine] = std::min(fillsAfterCounted[*engine], start);
  }
  if (counted)
    countedStarts.push_back(start);
  if (truncated || ops.size() >= maxOps ||
      accesses.size() + slots.size() + hostBuffers.size() >= UINT32_MAX) {
    truncated = true;
    ops.clear();
    accesses.clear();
    ops.shrink_to_fit();
    accesses.shrink_to_fit();
    return;
  }
  Recorded op{engine ? int(*engine) : -1, duration, uint32_t(accesses.size()),
              0};
  for (auto [slot, write] : slots)
    accesses.push_back({slot, Value(), write});
  for (auto [buffer, write] : hostBuffers)
    accesses.push_back({0, buffer, write});
  op.end = uint32_t(accesses.size());
  ops.push_back(op);
}

void FillAndDrain::repeat(size_t begin, uint64_t times) {
  if (truncated || begin >= ops.size())
    return;
  size_t end = ops.size();
  // The copies stand for later iterations, after ops left out: the ops
  // whose ancestors are counted end here. Their later instances start no
  // earlier than the ones recorded, among the ops after the counted ones.
  countedLimit = std::min(countedLimit, end);
  for (size_t index = begin; index < std::min(end, countedStarts.size());
       ++index) {
    int engine = ops[index].engine;
    if (times != 0 && engine >= 0)
      fillsAfterCounted[engine] =
          std::min(fillsAfterCounted[engine], countedStarts[index]);
  }
  size_t perCopy = end - begin;
  uint32_t accessesBegin = ops[begin].begin;
  uint32_t accessesEnd = ops[end - 1].end;
  uint64_t perCopyAccesses = accessesEnd - accessesBegin;
  // The budget counts ops and their accesses (a kernel may take hundreds of
  // buffers). Repeats leave room for the ops after the loop: at most half
  // the limit.
  size_t room = maxOps / 2 > ops.size() ? maxOps / 2 - ops.size() : 0;
  uint64_t copies = std::min<uint64_t>(
      times, std::min<uint64_t>(repeatBudget / (perCopy + perCopyAccesses),
                                room / perCopy));
  if (accesses.size() + copies * perCopyAccesses >= UINT32_MAX)
    return;
  ops.reserve(ops.size() + copies * perCopy);
  accesses.reserve(accesses.size() + copies * perCopyAccesses);
  for (uint64_t copy = 0; copy < copies; ++copy) {
    for (size_t index = begin; index < end; ++index) {
      Recorded op = ops[index];
      uint32_t opBegin = uint32_t(accesses.size());
      for (uint32_t access = op.begin; access < op.end; ++access) {
        Access repeated = accesses[access];
        accesses.push_back(repeated);
      }
      op.begin = opBegin;
      op.end = uint32_t(accesses.size());
      ops.push_back(op);
    }
  }
  repeatBudget -= copies * (perCopy + perCopyAccesses);
}

namespace {

/// Sets of ops, by their index among the counted ones, that depend on each
/// other through the slots and host buffers they touch: for each, the set
/// of the ops (with itself) the next op that touches it must count, as
/// `addWorkAround` walks the ops one way or the other.
struct ConflictSets {
  /// The set of the nearest write walked, and the union of those of the
  /// reads walked since.
  llvm::DenseMap<unsigned, llvm::BitVector> slotWrite, slotReads;
  llvm::DenseMap<Value, llvm::BitVector> hostWrite, hostReads;
};

} // namespace

std::vector<double>
FillAndDrain::workAround(llvm::ArrayRef<unsigned> enginesPerKind, size_t begin,
                         size_t end, bool forward) const {
  unsigned kinds = enginesPerKind.size();
  size_t size = end - begin;
  ConflictSets sets;
  std::vector<double> work(size, 0.0);
  for (size_t step = 0; step < size; ++step) {
    size_t self = forward ? step : size - 1 - step;
    const Recorded &op = ops[begin + self];
    llvm::ArrayRef<Access> touched(accesses.data() + op.begin,
                                   accesses.data() + op.end);
    // The ops it conflicts with, walked already, and theirs: a read
    // conflicts with a write, a write with a read or a write.
    llvm::BitVector related(size);
    auto join = [&](auto &map, auto key) {
      auto it = map.find(key);
      if (it != map.end())
        related |= it->second;
    };
    for (const Access &access : touched) {
      if (access.hostBuffer) {
        join(sets.hostWrite, access.hostBuffer);
        if (access.write)
          join(sets.hostReads, access.hostBuffer);
      } else {
        join(sets.slotWrite, access.slot);
        if (access.write)
          join(sets.slotReads, access.slot);
      }
    }
    SmallVector<double, 3> perKind(kinds, 0.0);
    for (unsigned index : related.set_bits()) {
      const Recorded &other = ops[begin + index];
      if (other.engine >= 0 && unsigned(other.engine) < kinds)
        perKind[other.engine] += other.duration;
    }
    for (unsigned kind = 0; kind < kinds; ++kind)
      work[self] =
          std::max(work[self],
                   perKind[kind] / double(std::max(1u, enginesPerKind[kind])));
    // The next op walked that conflicts with this one counts it and what it
    // counts.
    related.set(self);
    auto note = [&](auto &write, auto &reads, auto key, bool writes) {
      if (writes) {
        write[key] = related;
        reads.erase(key);
        return;
      }
      llvm::BitVector &joined = reads[key];
      if (joined.empty())
        joined.resize(size);
      joined |= related;
    };
    for (const Access &access : touched) {
      if (access.hostBuffer)
        note(sets.hostWrite, sets.hostReads, access.hostBuffer, access.write);
      else
        note(sets.slotWrite, sets.slotReads, access.slot, access.write);
    }
  }
  return work;
}

llvm::SmallVector<EngineEnds>
FillAndDrain::compute(bool countWork, llvm::ArrayRef<unsigned> enginesPerKind,
                      llvm::ArrayRef<double> workPerKind) const {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  unsigned engines = enginesPerKind.size();
  llvm::SmallVector<EngineEnds> ends(engines);
  for (unsigned engine = 0; engine < engines && engine < fills.size();
       ++engine) {
    if (fills[engine] == kNever)
      continue;
    ends[engine].used = true;
    ends[engine].fill = fills[engine];
  }
  if (truncated)
    return ends;
  // The first ops start after their ancestors' work too; the others, at
  // their chain starts.
  if (countWork) {
    size_t counted = std::min(countedStarts.size(), ops.size());
    std::vector<double> before =
        workAround(enginesPerKind, 0, counted, /*forward=*/true);
    llvm::SmallVector<double> fillsFound(engines, kNever);
    for (unsigned engine = 0; engine < engines && engine < fills.size();
         ++engine)
      fillsFound[engine] = fillsAfterCounted[engine];
    for (size_t index = 0; index < counted; ++index) {
      int engine = ops[index].engine;
      if (engine >= 0 && unsigned(engine) < engines)
        fillsFound[engine] = std::min(
            fillsFound[engine], std::max(countedStarts[index], before[index]));
    }
    for (unsigned engine = 0; engine < engines; ++engine)
      if (ends[engine].used)
        ends[engine].fill = fillsFound[engine];
    // Whatever time t, the engine's ops that cannot start before t run
    // after it: t plus their work, shared among its engines, is a bound.
    // Over the ops' least starts: a kernel that needs two tiles copied in
    // starts after both, and so do the kernels after it, where a kernel that
    // needs nothing may start at 0 and make the fill 0.
    // The ops after the first ones count as one, at the least start among
    // them, with the rest of the engine's work (the iterations added from
    // a steady state too): so a loop run iteration by iteration and one
    // extrapolated give the same bound.
    llvm::SmallVector<std::vector<std::pair<double, double>>> starts(engines);
    llvm::SmallVector<double> countedWork(engines, 0.0);
    for (size_t index = 0; index < counted; ++index) {
      int engine = ops[index].engine;
      if (engine < 0 || unsigned(engine) >= engines)
        continue;
      starts[engine].push_back(
          {std::max(countedStarts[index], before[index]), ops[index].duration});
      countedWork[engine] += ops[index].duration;
    }
    for (unsigned engine = 0; engine < engines && engine < fills.size();
         ++engine)
      if (fillsAfterCounted[engine] != kNever)
        starts[engine].push_back(
            {fillsAfterCounted[engine],
             std::max(0.0, workPerKind[engine] - countedWork[engine])});
    for (unsigned engine = 0; engine < engines; ++engine) {
      auto &engineStarts = starts[engine];
      llvm::sort(engineStarts, [](const auto &lhs, const auto &rhs) {
        return lhs.first > rhs.first;
      });
      double shared = double(std::max(1u, enginesPerKind[engine]));
      double work = 0;
      for (auto [start, duration] : engineStarts) {
        work += duration;
        ends[engine].lateWork =
            std::max(ends[engine].lateWork, start + work / shared);
      }
    }
  }
  // The last ops are followed by their descendants' work too.
  size_t lastBegin =
      ops.size() - (countWork ? std::min(ops.size(), kMaxCountedOps) : 0);
  std::vector<double> afterWork =
      workAround(enginesPerKind, lastBegin, ops.size(), /*forward=*/false);
  // Backwards over the program: the longest chain after each op, from the
  // longest chain of the later ops that write (or read) what it touches. A
  // read conflicts with a later write; a write with a later read or write.
  llvm::DenseMap<unsigned, double> slotWritten, slotRead;
  llvm::DenseMap<Value, double> hostWritten, hostRead;
  llvm::SmallVector<double> drains(engines,
                                   std::numeric_limits<double>::infinity());
  for (size_t index = ops.size(); index-- > 0;) {
    const Recorded &op = ops[index];
    llvm::ArrayRef<Access> touched(accesses.data() + op.begin,
                                   accesses.data() + op.end);
    double after = 0;
    for (const Access &access : touched) {
      if (access.hostBuffer) {
        after = std::max(after, hostWritten.lookup(access.hostBuffer));
        if (access.write)
          after = std::max(after, hostRead.lookup(access.hostBuffer));
      } else {
        after = std::max(after, slotWritten.lookup(access.slot));
        if (access.write)
          after = std::max(after, slotRead.lookup(access.slot));
      }
    }
    double through = op.duration + after;
    for (const Access &access : touched) {
      double &longest =
          access.hostBuffer
              ? (access.write ? hostWritten : hostRead)[access.hostBuffer]
              : (access.write ? slotWritten : slotRead)[access.slot];
      longest = std::max(longest, through);
    }
    if (op.engine >= 0 && unsigned(op.engine) < engines)
      drains[op.engine] = std::min(
          drains[op.engine], index >= lastBegin
                                 ? std::max(after, afterWork[index - lastBegin])
                                 : after);
  }
  for (unsigned engine = 0; engine < engines; ++engine)
    if (ends[engine].used &&
        drains[engine] != std::numeric_limits<double>::infinity())
      ends[engine].drain = drains[engine];
  return ends;
}
