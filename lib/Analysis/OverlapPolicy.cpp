//===- OverlapPolicy.cpp - Overlap and concurrency verdicts -----*- C++ -*-===//

#include "vyre/Analysis/OverlapPolicy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir::vyre;

/// Whether two sorted slot sets share a slot.
static bool intersects(llvm::ArrayRef<unsigned> lhs,
                       llvm::ArrayRef<unsigned> rhs) {
  const unsigned *l = lhs.begin(), *r = rhs.begin();
  while (l != lhs.end() && r != rhs.end()) {
    if (*l == *r)
      return true;
    if (*l < *r)
      ++l;
    else
      ++r;
  }
  return false;
}

CopyOverlapDecision mlir::vyre::canOverlapCopyWithKernel(
    unsigned slot, const AccessSummary &kernel) {
  return kernel.mayAccess(slot) ? CopyOverlapDecision::Serialize
                                : CopyOverlapDecision::Overlap;
}

Concurrency
mlir::vyre::canRunConcurrently(const AccessSummary &earlier,
                                    const AccessSummary &later) {
  if (earlier.isUnknown() || later.isUnknown())
    return Concurrency::serialize(HazardKind::UnknownAccess);
  if (intersects(earlier.getWrites(), later.getWrites()))
    return Concurrency::serialize(HazardKind::WriteWrite);
  if (intersects(earlier.getWrites(), later.getReads()))
    return Concurrency::serialize(HazardKind::ReadAfterWrite);
  if (intersects(earlier.getReads(), later.getWrites()))
    return Concurrency::serialize(HazardKind::WriteAfterRead);
  return Concurrency::independent();
}

llvm::StringRef mlir::vyre::stringifyHazardKind(HazardKind kind) {
  switch (kind) {
  case HazardKind::WriteWrite:
    return "write-after-write";
  case HazardKind::ReadAfterWrite:
    return "read-after-write";
  case HazardKind::WriteAfterRead:
    return "write-after-read";
  case HazardKind::UnknownAccess:
    return "unknown-access";
  case HazardKind::HostBuffer:
    return "host-buffer";
  }
  llvm_unreachable("unknown hazard kind");
}
