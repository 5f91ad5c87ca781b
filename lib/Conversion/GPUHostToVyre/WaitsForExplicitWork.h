//===- WaitsForExplicitWork.h - Synchronous ops after explicit work -*- C++ -*-===//
//
// In a function that mixes gpu ops written with tokens and synchronous gpu
// ops, a synchronous op ran, as written, after the explicit work issued
// before it. Once the synchronous op runs on a stream (imported into vyre,
// or on a stream of its own), that order must be made explicit where the two
// touch the same buffers.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_CONVERSION_GPUHOSTTOVYRE_WAITSFOREXPLICITWORK_H
#define VYRE_LIB_CONVERSION_GPUHOSTTOVYRE_WAITSFOREXPLICITWORK_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::vyre {

/// Walks `top` in order, keeping the explicit work in flight (made by a gpu
/// op there, not yet covered by a blocking `gpu.wait`), and makes the host
/// wait for that work just before each op of `top` that holds an op
/// `isSynchronous` accepts, or a call (whose callee may hold one, reading
/// and writing the memrefs it passes), and touches the same buffers (a
/// write on either side; two buffers may overlap unless one is an
/// allocation in the function or an argument marked `llvm.noalias`, or both
/// have the same root). The wait joins the work's tokens
/// (`%j = gpu.wait async [%t, ...]`, a token named twice if alone, which
/// `canonicalize` does not fold; marked `vyre.host_wait_join`) and blocks on
/// the join (`gpu.wait [%j]`), so the explicit streams stay alive for the
/// function's own waits. Returns
/// how many waits it inserted.
unsigned waitForExplicitWorkBeforeSynchronousOps(
    Block &top, llvm::function_ref<bool(Operation *)> isSynchronous);

} // namespace mlir::vyre

#endif // VYRE_LIB_CONVERSION_GPUHOSTTOVYRE_WAITSFOREXPLICITWORK_H
