//===- AccessSummary.cpp - Which slots an op reads and writes ---*- C++ -*-===//

#include "vyre/Analysis/AccessSummary.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <iterator>

using namespace mlir::vyre;

/// Inserts `slot` into the sorted, unique `set`.
static void insertSorted(llvm::SmallVectorImpl<unsigned> &set, unsigned slot) {
  auto it = llvm::lower_bound(set, slot);
  if (it == set.end() || *it != slot)
    set.insert(it, slot);
}

AccessSummary::AccessSummary(llvm::ArrayRef<unsigned> reads,
                             llvm::ArrayRef<unsigned> writes) {
  for (unsigned slot : reads)
    addRead(slot);
  for (unsigned slot : writes)
    addWrite(slot);
}

AccessSummary AccessSummary::unknown() {
  AccessSummary summary;
  summary.unknownAccess = true;
  return summary;
}

void AccessSummary::addRead(unsigned slot) { insertSorted(readSlots, slot); }

void AccessSummary::addWrite(unsigned slot) { insertSorted(writeSlots, slot); }

/// Adds the sorted, unique `other` to the sorted, unique `set`: in place
/// when `other` is a few slots or all after `set`'s, else by one linear
/// merge (inserting each of many slots would shift `set` for each). A large
/// `set` that grows by a few slots at a time (what the main stream still
/// runs, merged op by op) gets only the slots it lacks, each found by binary
/// search, and is not copied where it has them all.
static void mergeSorted(llvm::SmallVectorImpl<unsigned> &set,
                        llvm::ArrayRef<unsigned> other) {
  if (other.empty())
    return;
  if (set.empty() || set.back() < other.front()) {
    set.append(other.begin(), other.end());
    return;
  }
  constexpr size_t kFewSlots = 16;
  if (other.size() <= kFewSlots) {
    for (unsigned slot : other)
      insertSorted(set, slot);
    return;
  }
  llvm::SmallVector<unsigned, 8> merged;
  merged.reserve(set.size() + other.size());
  std::set_union(set.begin(), set.end(), other.begin(), other.end(),
                 std::back_inserter(merged));
  set.assign(merged.begin(), merged.end());
}

void AccessSummary::merge(const AccessSummary &other) {
  unknownAccess |= other.unknownAccess;
  mergeSorted(readSlots, other.readSlots);
  mergeSorted(writeSlots, other.writeSlots);
}

bool AccessSummary::mayRead(unsigned slot) const {
  return unknownAccess || llvm::binary_search(readSlots, slot);
}

bool AccessSummary::mayWrite(unsigned slot) const {
  return unknownAccess || llvm::binary_search(writeSlots, slot);
}

void AccessSummary::print(llvm::raw_ostream &os) const {
  if (unknownAccess) {
    os << "reads [*] writes [*]";
    return;
  }
  os << "reads [";
  llvm::interleaveComma(readSlots, os);
  os << "] writes [";
  llvm::interleaveComma(writeSlots, os);
  os << "]";
}

std::string AccessSummary::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(os);
  return text;
}
