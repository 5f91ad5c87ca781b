//===- ValueInterpreter.h - What a host program computes --------*- C++ -*-===//
//
// Runs a host function on symbolic data and digests what its caller can see
// when it returns. It runs both levels vyre's passes connect:
//
//  - sequential vyre (`vyre.alloc`, `vyre.copy_h2d`, `vyre.dispatch`, ...)
//    and upstream's synchronous gpu host code (`gpu.memcpy` without a
//    token): each op completes before the next, which is the meaning of the
//    input program;
//  - the lowered gpu dialect as upstream's gpu-to-llvm runs it: a token is
//    its CUDA stream, a join (`gpu.wait async [...]`) is a new stream that
//    waits for each dependency's work up to the op that made the token, a
//    blocking `gpu.wait` synchronizes and destroys the streams of its
//    tokens, and the runtime calls the host code makes itself
//    (`mgpuEventRecord`, `mgpuStreamWaitEvent`, ...) do what CUDA does.
//
// Device work waits in its stream's queue until an interleaving runs it:
// eagerly (as soon as it may run), lazily (only when the host waits for it),
// or at random points in between. A right program leaves the same digest
// under every interleaving, and the same as its input.
//
// The symbolic data: every element of every buffer holds a 64-bit value.
// Memref arguments start with values of their own; buffers the program
// allocates start with one "uninitialized" value per element. A launch
// hashes what it reads (its kernel, its scalar operands, the contents of
// each argument it reads) and writes, to each element of each argument it
// writes, a hash of that, the argument and the element. How it accesses an
// argument comes from the kernel's body (KernelAccess.h), the same at every
// level: an argument the body writes and never reads is taken as written
// whole, so its old contents do not matter. For a kernel without a body (the
// vyre level only), the launch's declared access list says (`write` keeps
// each old element in the hash, `overwrite` does not); without one, every
// argument is read and written. A call runs its callee's body; an external callee
// does what its `vyre.effects` allows: nothing, or read and rewrite its
// memref operands; of unknown effect, it may also read and rewrite the
// caller's memref arguments. Host loads and stores move element values;
// index arithmetic and control flow are concrete.
//
// What the caller sees: the final contents of the memref arguments, what
// the function returns (a memref's contents), and what each call of an
// external function saw. A host allocation the function
// makes itself is not seen: nothing outside can read it (upstream's
// canonicalize rightly erases copies into one that nothing reads).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TEST_VERIFICATION_VALUEINTERPRETER_H
#define VYRE_TEST_VERIFICATION_VALUEINTERPRETER_H

#include "vyre/Analysis/FunctionEffects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mlir::vyre::test {

/// When queued device work runs.
enum class Interleaving {
  /// As soon as it may: when enqueued, or when what it waits for is done.
  Eager,
  /// Only when the host waits for it, and then only what it waits for.
  Lazy,
  /// After each host op, a random number of random work items that may run.
  Random,
};

/// The inputs of one run.
struct ValueRunOptions {
  /// Every `index` argument.
  int64_t index = 3;
  /// Every `i1` argument.
  bool condition = true;
  /// Memref arguments without `llvm.noalias` of one type share one buffer,
  /// as a caller may pass them.
  bool aliasArguments = false;
  Interleaving interleaving = Interleaving::Eager;
  /// The seed of a random interleaving.
  uint64_t seed = 0;
  /// The effects of an external callee without `vyre.effects` of its own
  /// (the lowering drops them); none: unknown.
  std::function<std::optional<FunctionEffects>(StringRef callee)> calleeEffects;
};

/// What one run came to.
struct ValueRun {
  enum class Status {
    /// The function returned; `digest` is what its caller sees.
    Returned,
    /// It does something the interpreter does not model; `message` says
    /// what. Nothing is known about its meaning.
    Unmodelled,
    /// It did something wrong when run: used a freed buffer or a destroyed
    /// stream or event, or returned with device work still queued.
    /// `digest` is what the caller saw at the return, if it got that far.
    Fault,
  };
  Status status = Status::Returned;
  uint64_t digest = 0;
  std::string message;
};

/// Runs `function`, which has a body.
ValueRun runOnSymbolicData(func::FuncOp function,
                           const ValueRunOptions &options);

/// The name of an interleaving, for messages and pass options.
StringRef stringifyInterleaving(Interleaving interleaving);

void registerTestValueDigestPass();

} // namespace mlir::vyre::test

#endif // VYRE_TEST_VERIFICATION_VALUEINTERPRETER_H
