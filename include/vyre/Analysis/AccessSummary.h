//===- AccessSummary.h - Which slots an op reads and writes -----*- C++ -*-===//
//
// The `{reads, writes}` summary of a kernel dispatch: two sorted sets of
// unique slot numbers, or "unknown" when nothing can be said.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_ACCESSSUMMARY_H
#define VYRE_ANALYSIS_ACCESSSUMMARY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::vyre {

/// The slot numbers an op reads and writes. Both sets stay sorted and unique
/// whatever order slots are added in. An unknown summary may access every
/// slot, including slots it has no number for.
class AccessSummary {
public:
  AccessSummary() = default;
  AccessSummary(llvm::ArrayRef<unsigned> reads, llvm::ArrayRef<unsigned> writes);

  /// A summary that may read and write anything.
  static AccessSummary unknown();

  void addRead(unsigned slot);
  void addWrite(unsigned slot);
  /// Adds every read and write of `other`; an unknown `other` makes this
  /// summary unknown.
  void merge(const AccessSummary &other);

  bool isUnknown() const { return unknownAccess; }
  bool mayRead(unsigned slot) const;
  bool mayWrite(unsigned slot) const;
  bool mayAccess(unsigned slot) const { return mayRead(slot) || mayWrite(slot); }
  /// Whether the summary accesses nothing at all.
  bool isEmpty() const {
    return !unknownAccess && readSlots.empty() && writeSlots.empty();
  }

  llvm::ArrayRef<unsigned> getReads() const { return readSlots; }
  llvm::ArrayRef<unsigned> getWrites() const { return writeSlots; }

  /// Prints `reads [0, 1] writes [2]`, or `reads [*] writes [*]` if unknown.
  void print(llvm::raw_ostream &os) const;
  std::string str() const;

  bool operator==(const AccessSummary &other) const {
    return unknownAccess == other.unknownAccess &&
           readSlots == other.readSlots && writeSlots == other.writeSlots;
  }
  bool operator!=(const AccessSummary &other) const {
    return !(*this == other);
  }

private:
  llvm::SmallVector<unsigned, 4> readSlots;
  llvm::SmallVector<unsigned, 4> writeSlots;
  bool unknownAccess = false;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const AccessSummary &summary) {
  summary.print(os);
  return os;
}

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_ACCESSSUMMARY_H
