//===- SynchronousOpsOnOneStream.h - Synchronous ops beside explicit ones -*- C++ -*-===//
//
// In a function the import leaves as written, because it holds gpu ops
// written with tokens, the synchronous gpu ops still have to run on a
// stream, without touching the explicit tokens (upstream's --gpu-async-region
// would thread its chain through them). They run as upstream's pass runs
// synchronous code: in order, on one stream per block, asynchronous to the
// host, which waits for that stream only where something may need its work.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_CONVERSION_GPUHOSTTOVYRE_SYNCHRONOUSOPSONONESTREAM_H
#define VYRE_LIB_CONVERSION_GPUHOSTTOVYRE_SYNCHRONOUSOPSONONESTREAM_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::vyre {

/// Makes the ops of `block` that `isSynchronous` accepts (gpu ops without
/// tokens) asynchronous on one chain: the first makes a stream
/// (`gpu.wait async`), each takes the previous one's token, and the host
/// waits for the chain (`gpu.wait [%t]`, which also destroys its stream)
/// just before the first later op of the block that may need its work:
///  - an explicit gpu op (one with a token) that touches the chain's buffers
///    (a write on either side, buffers that may overlap), or whose accesses
///    are unknown;
///  - a host op whose memory effects touch them, or are unknown (a call, an
///    op with regions that has effects, an op that declares none);
///  - the block's terminator.
/// Blocking and joining `gpu.wait` ops, and ops free of memory effects, do
/// not need it. A synchronous op after the wait starts a new chain. Returns
/// how many ops were made asynchronous.
unsigned runSynchronousOpsOnOneStream(
    Block &block, llvm::function_ref<bool(Operation *)> isSynchronous);

} // namespace mlir::vyre

#endif // VYRE_LIB_CONVERSION_GPUHOSTTOVYRE_SYNCHRONOUSOPSONONESTREAM_H
