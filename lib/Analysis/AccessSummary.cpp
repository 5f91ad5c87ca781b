//===- AccessSummary.cpp - Which slots an op reads and writes ---*- C++ -*-===//

#include "vyre/Analysis/AccessSummary.h"

#include "llvm/ADT/STLExtras.h"

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

void AccessSummary::merge(const AccessSummary &other) {
  unknownAccess |= other.unknownAccess;
  for (unsigned slot : other.readSlots)
    addRead(slot);
  for (unsigned slot : other.writeSlots)
    addWrite(slot);
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
