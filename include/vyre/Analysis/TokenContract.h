//===- TokenContract.h - Waits that take a token for its stream -*- C++ -*-===//
//
// gpu-to-llvm makes a token its CUDA stream: a blocking `gpu.wait [%t]`
// synchronizes the whole stream, work enqueued on it after %t included.
// Upstream's canonicalize and the token contract say otherwise: %t is the
// op that made it, and a wait on it need not wait for later work (a wait on
// a token of a stream without work is erased). A program whose blocking
// wait names an older token of a stream and expects the later work done
// relies on a token being its stream; the pipeline would turn it into a
// program whose later work runs past the wait.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_TOKENCONTRACT_H
#define VYRE_ANALYSIS_TOKENCONTRACT_H

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::vyre {

/// Calls `report(wait, token, later)` for each blocking `gpu.wait` in `root`
/// that waits on `token` while `later`, an async op that runs after it on
/// its stream (it takes `token` as its dependency), was enqueued before the
/// wait, and the wait names no later token of that stream. Linear in the
/// ops of `root`.
void findWaitsOnOlderTokens(
    Operation *root,
    function_ref<void(Operation *wait, Value token, Operation *later)> report);

/// What such a wait relies on, in words, for a diagnostic at the wait.
std::string describeWaitOnOlderToken(Operation *later);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_TOKENCONTRACT_H
