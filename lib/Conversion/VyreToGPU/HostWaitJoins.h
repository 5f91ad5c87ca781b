//===- HostWaitJoins.h - Host waits for one explicit stream -----*- C++ -*-===//
//
// Part of --convert-vyre-to-gpu. Where the host must wait for explicit
// work, the import joins its tokens (`%j = gpu.wait async [%t, %t]`, marked
// `vyre.host_wait_join`) and blocks on the join (`gpu.wait [%j]`): the gpu
// dialect has no op that makes the host wait for a token's stream and keeps
// that stream, and a blocking wait on `%t` itself would destroy a stream its
// author goes on using. gpu-to-llvm makes the join a new stream, with an
// event per token. Where the join's tokens are one token, the host waits
// for that token's stream instead (`mgpuStreamSynchronize`), which waits for
// the same work (the stream's work issued so far) without a stream or event.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_CONVERSION_VYRETOGPU_HOSTWAITJOINS_H
#define VYRE_LIB_CONVERSION_VYRETOGPU_HOSTWAITJOINS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::vyre::vyre_to_gpu {

/// Lowers each `vyre.host_wait_join` join of one token in `module`, with the
/// blocking wait on it, to `mgpuStreamSynchronize` of the token's stream
/// (unless a blocking wait on the token may have destroyed the stream
/// before), and drops the mark from the joins it keeps. Returns whether it changed
/// anything.
bool lowerHostWaitJoins(ModuleOp module);

} // namespace mlir::vyre::vyre_to_gpu

#endif // VYRE_LIB_CONVERSION_VYRETOGPU_HOSTWAITJOINS_H
