//===- SequentialDigest.h - What a sequential program computes --*- C++ -*-===//
//
// Runs a sequential vyre function on symbolic data and digests what the
// caller can see when it returns. Two programs that compute the same thing
// get the same digest; a rewrite that reorders conflicting accesses, or
// gives an iteration a buffer holding another iteration's data, changes it.
// The test half of --vyre-pipeline-loops's proof: the referees check a
// schedule; this checks that the pipelined program computes what the loop
// did.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TEST_VERIFICATION_SEQUENTIALDIGEST_H
#define VYRE_TEST_VERIFICATION_SEQUENTIALDIGEST_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>

namespace mlir::vyre::test {

/// The values the function's scalar arguments take.
struct DigestInputs {
  /// Every `index` argument.
  int64_t index = 3;
  /// Every `i1` argument.
  bool condition = true;
};

/// The digest of what `function` (sequential vyre, its kernels summarized
/// by --vyre-kernel-access) leaves in the buffers its caller can see: its
/// memref arguments, and what it passes to calls of unknown effect.
/// Buffers hold one symbolic value per element; a kernel writes values that
/// depend on what it reads, and, unless its launch declares `overwrite`, on
/// what the written buffer held. Fails, with `reason` set, on what it does
/// not model (an async vyre op, a pointer, a view it cannot resolve).
FailureOr<uint64_t> computeSequentialDigest(func::FuncOp function,
                                            const DigestInputs &inputs,
                                            std::string &reason);

void registerTestSequentialDigestPass();

} // namespace mlir::vyre::test

#endif // VYRE_TEST_VERIFICATION_SEQUENTIALDIGEST_H
