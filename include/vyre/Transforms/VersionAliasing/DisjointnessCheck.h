//===- DisjointnessCheck.h - Buffers that share no byte, at run time -*- C++ -*-===//
//
// The run-time test behind versioning for aliasing, as LLVM's loop
// versioning builds from LoopAccessAnalysis's pointer checks: each memref's
// bytes lie within [lo, hi) where
//
//   lo = aligned pointer + (offset + sum_k min(0, (size_k - 1) * stride_k)) * e
//   hi = aligned pointer + (offset + sum_k max(0, (size_k - 1) * stride_k) + 1) * e
//
// (e: the element's size in bytes); an empty memref (a size of 0) holds no
// byte. Two memrefs are disjoint when either is empty or their ranges do not
// meet. Interleaved views (even and odd columns) have meeting ranges, so the
// test is conservative: false means "may alias", never "alias".
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_VERSIONALIASING_DISJOINTNESSCHECK_H
#define VYRE_TRANSFORMS_VERSIONALIASING_DISJOINTNESSCHECK_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::vyre {

/// Emits at `builder`'s insertion point an i1 that is true when no two of
/// `memrefs` (ranked memrefs whose element sizes getElementBytes,
/// vyre/Analysis/DeviceCosts.h, knows)
/// share a byte.
Value emitDisjointnessCheck(OpBuilder &builder, Location loc,
                            ValueRange memrefs);

} // namespace mlir::vyre

#endif // VYRE_TRANSFORMS_VERSIONALIASING_DISJOINTNESSCHECK_H
