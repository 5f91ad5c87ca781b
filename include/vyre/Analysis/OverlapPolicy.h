//===- OverlapPolicy.h - Overlap and concurrency verdicts -------*- C++ -*-===//
//
// The decision functions of the vyre runtime's policy, in its vocabulary:
// may a copy overlap a kernel, and may two dispatches run concurrently.
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
};

/// Whether two dispatches may run concurrently and, if not, the strongest
/// hazard between them.
struct DispatchConcurrency {
  enum class Decision { Independent, Serialize };
  Decision decision = Decision::Serialize;
  /// Set exactly when `decision` is Serialize.
  std::optional<HazardKind> reason;

  bool isIndependent() const { return decision == Decision::Independent; }
  static DispatchConcurrency independent() {
    return {Decision::Independent, std::nullopt};
  }
  static DispatchConcurrency serialize(HazardKind kind) {
    return {Decision::Serialize, kind};
  }
};

/// Serialize when the kernel may read or write `slot`, or its summary is
/// unknown; Overlap otherwise. Aliasing is already folded into summaries by
/// the slot access analysis: a kernel that accesses a slot that may alias
/// `slot` lists `slot` too.
CopyOverlapDecision canOverlapCopyWithKernel(unsigned slot,
                                             const AccessSummary &kernel);

/// Whether `later` may run concurrently with `earlier`. Two reads of a slot
/// are independent. If several hazards hold, the reason is the strongest:
/// WriteWrite, then ReadAfterWrite, then WriteAfterRead.
DispatchConcurrency canDispatchConcurrently(const AccessSummary &earlier,
                                            const AccessSummary &later);

/// The hazard's name as remarks spell it: `write-after-write`,
/// `read-after-write`, `write-after-read` or `unknown-access`.
llvm::StringRef stringifyHazardKind(HazardKind kind);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_OVERLAPPOLICY_H
