//===- FillAndDrain.cpp - An engine's fill and drain, for the bound -------===//

#include "FillAndDrain.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::vyre::simulation;

void FillAndDrain::add(std::optional<unsigned> engine, double start,
                       double duration,
                       llvm::ArrayRef<std::pair<unsigned, bool>> slots,
                       llvm::ArrayRef<std::pair<Value, bool>> hostBuffers) {
  if (engine) {
    if (fills.size() <= *engine)
      fills.resize(*engine + 1, std::numeric_limits<double>::infinity());
    fills[*engine] = std::min(fills[*engine], start);
  }
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

llvm::SmallVector<EngineEnds> FillAndDrain::compute(unsigned engines) const {
  llvm::SmallVector<EngineEnds> ends(engines);
  for (unsigned engine = 0; engine < engines && engine < fills.size();
       ++engine) {
    if (fills[engine] == std::numeric_limits<double>::infinity())
      continue;
    ends[engine].used = true;
    ends[engine].fill = fills[engine];
  }
  if (truncated)
    return ends;
  // Backwards over the program: the longest chain after each op, from the
  // longest chain of the later ops that write (or read) what it touches. A
  // read conflicts with a later write; a write with a later read or write.
  llvm::DenseMap<unsigned, double> slotWritten, slotRead;
  llvm::DenseMap<Value, double> hostWritten, hostRead;
  llvm::SmallVector<double> drains(engines,
                                   std::numeric_limits<double>::infinity());
  for (const Recorded &op : llvm::reverse(ops)) {
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
      drains[op.engine] = std::min(drains[op.engine], after);
  }
  for (unsigned engine = 0; engine < engines; ++engine)
    if (ends[engine].used &&
        drains[engine] != std::numeric_limits<double>::infinity())
      ends[engine].drain = drains[engine];
  return ends;
}
