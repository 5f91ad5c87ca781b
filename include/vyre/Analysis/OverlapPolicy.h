//===- OverlapPolicy.h - Overlap and concurrency verdicts -------*- C++ -*-===//
//
// The verdicts every overlap decision asks, in one vocabulary: may a copy
// overlap a kernel, and may two device ops (kernels, copies) run
// concurrently, and if not, which hazard forbids it. --overlap-copies names
// these hazards in its remarks.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_OVERLAPPOLICY_H
#define VYRE_ANALYSIS_OVERLAPPOLICY_H

#include "vyre/Analysis/AccessSummary.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::vyre {

/// Whether a kernel may run while a copy into one slot is in flight.
enum class CopyOverlapDecision { Overlap, Serialize };

/// Why two accesses must stay in order, strongest first.
enum class HazardKind {
  /// Both write a common slot.
  WriteWrite,
  /// The later one reads a slot the earlier one writes.
  ReadAfterWrite,
  /// The later one writes a slot the earlier one reads.
  WriteAfterRead,
  /// A summary is unknown, so nothing can be proved independent.
  UnknownAccess,
  /// The later one writes a host buffer the earlier one still reads (or the
  /// later one reads a host buffer the earlier one may still be writing).
  HostBuffer,
};

/// Whether two device ops may run concurrently and, if not, the strongest
/// hazard between them.
struct Concurrency {
  enum class Decision { Independent, Serialize };
  Decision decision = Decision::Serialize;
  /// Set exactly when `decision` is Serialize.
  std::optional<HazardKind> reason;

  bool isIndependent() const { return decision == Decision::Independent; }
  static Concurrency independent() {
    return {Decision::Independent, std::nullopt};
  }
  static Concurrency serialize(HazardKind kind) {
    return {Decision::Serialize, kind};
  }
};

/// Serialize when the kernel may read or write `slot`, or its summary is
/// unknown; Overlap otherwise. Aliasing is already folded into summaries by
/// the slot access analysis: a kernel that accesses a slot that may alias
/// `slot` lists `slot` too.
CopyOverlapDecision canOverlapCopyWithKernel(unsigned slot,
                                             const AccessSummary &kernel);

/// Whether `later` may run concurrently with `earlier`, two device ops (a
/// kernel, or a copy, which reads its source's slots and writes its
/// destination's). Two reads of a slot are independent. If several hazards hold, the reason is the strongest:
/// WriteWrite, then ReadAfterWrite, then WriteAfterRead.
Concurrency canRunConcurrently(const AccessSummary &earlier,
                                            const AccessSummary &later);

/// The hazard's name as remarks spell it: `write-after-write`,
/// `read-after-write`, `write-after-read`, `unknown-access` or
/// `host-buffer`.
llvm::StringRef stringifyHazardKind(HazardKind kind);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_OVERLAPPOLICY_H
