//===- AsyncInPlaceCopies.h - Copies on the main stream, host goes on -*- C++ -*-===//
//
// A `vyre.copy_h2d` or `vyre.copy_d2h` runs on the main stream and makes the
// host wait until it is done. Most host ops after it never touch its
// buffers, so the host need not wait there. `makeInPlaceCopiesAsync` turns
// each such copy into its asynchronous form on stream 0 (still in the main
// stream's order, between the same kernels) and makes the host wait
// (`vyre.sync`) only before a host op that may touch the copy's host buffer
// or slot, or an op of unknown effect; an asynchronous copy on a side stream
// that conflicts with it takes its token as a dependency instead. That is
// how upstream's --gpu-async-region treats every copy, with fewer waits.
//
// Where a conflict comes after the copy's block (a host op after a loop whose
// body copied, or early in the next iteration of that body), the host waits
// on a `vyre.record` placed just after the loop, or at the top of the body:
// the main stream's progress there covers the copy.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_ASYNCINPLACE_ASYNCINPLACECOPIES_H
#define VYRE_TRANSFORMS_ASYNCINPLACE_ASYNCINPLACECOPIES_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::vyre {

class SlotAccessAnalysis;

struct AsyncInPlaceOptions {
  /// Upstream's rule instead of the conflicts: the host waits before every
  /// host op with memory effects (or of unknown effect), before every op
  /// with regions that holds one, and at the end of every block but the
  /// function's, as --gpu-async-region makes it wait. For comparing with
  /// upstream in the simulator.
  bool waitBeforeAnyEffect = false;
  /// Whether each copy gets its `CopyAsyncInPlace` remark.
  bool emitRemarks = true;
};

/// What `makeInPlaceCopiesAsync` did.
struct AsyncInPlaceResult {
  /// Copies made asynchronous on the main stream.
  unsigned copies = 0;
  /// `vyre.sync` ops it placed, and dependencies it added to copies on side
  /// streams.
  unsigned hostWaits = 0;
  unsigned dependencies = 0;
};

/// Makes every `vyre.copy_h2d` and `vyre.copy_d2h` of `function`'s host code
/// asynchronous on the main stream, with host waits only where a later op
/// needs the copy done (see above). `slots` must describe `function`. Emits
/// an analysis remark `CopyAsyncInPlace` (category `async-in-place`) per
/// copy, naming the op the host first waits before.
AsyncInPlaceResult
makeInPlaceCopiesAsync(FunctionOpInterface function,
                       const SlotAccessAnalysis &slots,
                       const AsyncInPlaceOptions &options = {});

} // namespace mlir::vyre

#endif // VYRE_TRANSFORMS_ASYNCINPLACE_ASYNCINPLACECOPIES_H
