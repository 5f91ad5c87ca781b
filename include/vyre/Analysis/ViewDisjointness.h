//===- ViewDisjointness.h - Views of one buffer that never meet -*- C++ -*-===//
//
// Whether two views of one host buffer touch no element in common, whatever
// their dynamic offsets are: the test that lets a copy into the device be
// issued early while the loop copies back into other bytes of the same host
// array (a KV cache read in rows 0..4095 and written at row 4096).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_VIEWDISJOINTNESS_H
#define VYRE_ANALYSIS_VIEWDISJOINTNESS_H

#include "mlir/IR/Value.h"

namespace mlir::vyre {

class HostBufferAliasing;
struct OpFootprint;

/// Whether `lhs` and `rhs`, each a `memref.subview` (or a `memref.cast` of
/// one) of one buffer with the identity layout, share no element for any values of their dynamic
/// offsets, sizes and strides: in some dimension of the buffer both select
/// a static range of indices (static offset, size and stride), and the two
/// ranges do not meet. The indices a view selects in its other dimensions
/// do not matter then, so the answer holds in every iteration of a loop
/// and across iterations. False whenever it cannot tell (other views, a
/// strided buffer, dynamic ranges).
bool areDisjointViews(Value lhs, Value rhs);

/// Whether `op` (whose footprint is `footprint`), of known effects and
/// without regions, touches the buffer `root` only through views disjoint
/// from `view` (areDisjointViews), and no buffer that may alias `root`:
/// then it never touches `view`'s bytes, as host memory or as a slot. A
/// copy back into another row range of the array a copy in reads.
bool touchesOnlyOtherBytes(Operation *op, const OpFootprint &footprint,
                           Value view, Value root,
                           HostBufferAliasing &aliasing);

/// Whether two copies (`vyre.copy_h2d`, `vyre.copy_d2h` or their
/// asynchronous forms) share no bytes: each pair of their buffers is two
/// distinct buffers that cannot alias (two `vyre.alloc` buffers, one and a
/// host buffer, host buffers that HostBufferAliasing separates) or two
/// disjoint views of one buffer.
bool copiesTouchOnlyDisjointBytes(Operation *lhs, Operation *rhs,
                                  HostBufferAliasing &aliasing);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_VIEWDISJOINTNESS_H
