//===- ExplicitAsyncWork.h - Host ops that run gpu work on tokens -*- C++ -*-===//
//
// A function that mixes synchronous gpu host ops with ops written
// asynchronous by hand (`gpu.launch_func async [%t]`, `gpu.memcpy async`,
// `gpu.wait [%t]`, ...) is imported with its explicit ops left as written.
// To vyre's analyses such an op is a host op: at the point the host issues
// it, it touches the buffers it names (as its declared memory effects say;
// read and written where it declares none, as a launch), and a blocking
// `gpu.wait` touches what the work it waits for touches. Together with
// the waits the import inserts (before a synchronous op that touches what
// explicit work still in flight touches), that orders vyre's work with the
// explicit work without ordering the explicit ops among themselves.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_EXPLICITASYNCWORK_H
#define VYRE_ANALYSIS_EXPLICITASYNCWORK_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

#include <optional>

namespace mlir::vyre {

/// One buffer a gpu host op reads or writes (or allocates or frees, which
/// count as writes).
struct GPUBufferAccess {
  Value buffer;
  bool isWrite;
};

/// Whether `op` is a gpu host op written with tokens: one that makes a token,
/// or a blocking `gpu.wait` on tokens.
bool isExplicitAsyncOp(Operation *op);

/// What the gpu host op `op` (no region) touches in the buffers it names:
/// its declared memory effects, or, where it declares none (a launch), a
/// read and a write of each memref operand and result. None when an effect
/// names no buffer, or when an operand reaches a buffer other than as a
/// memref (a sparse handle, a pointer, an address taken from a memref).
std::optional<SmallVector<GPUBufferAccess>> getGPUHostOpAccesses(Operation *op);

/// What the host reaches through `op`, an explicit async op: what it
/// touches itself, or, for a blocking `gpu.wait`, what every op its tokens
/// come after touches. None when that cannot be followed (a token from a
/// block argument or a call, an op with regions, more than
/// kMaxFollowedExplicitOps ops).
std::optional<SmallVector<GPUBufferAccess>>
getExplicitAsyncAccesses(Operation *op);

/// Whether two access lists may conflict: a write on either side, to
/// buffers that may overlap. Two buffers may overlap unless one has a root of
/// its own (an allocation in the function, `gpu.alloc`, `memref.alloc`,
/// `memref.alloca` or `vyre.alloc`, or an argument marked `llvm.noalias`)
/// and the other another known root (an allocation, a global, an argument of
/// the function): a root chosen among buffers (a select, a branch's result, a
/// later block's argument, a call's result) may overlap anything.
bool mayBuffersConflict(ArrayRef<GPUBufferAccess> lhs,
                        ArrayRef<GPUBufferAccess> rhs);

/// Whether an explicit async op names `buffer` or a view of it: the op must
/// then be issued after whatever made the buffer.
bool isUsedByExplicitAsyncOp(Value buffer);

/// The ops whose work a wait on `tokens` waits for: their defining gpu ops
/// and, through their dependencies, every op they come after, except the
/// ops in `done` (work known finished), which are not followed either. None
/// when one cannot be followed, or when there are more than `limit`.
std::optional<SmallVector<Operation *>>
getOpsBeforeTokens(ValueRange tokens,
                   const llvm::SmallPtrSetImpl<Operation *> *done = nullptr,
                   size_t limit = SIZE_MAX);

/// How many ops a blocking wait's work is followed through, at most: past
/// that, what the wait touches is unknown (it orders everything), which
/// keeps the analyses linear in the function.
constexpr size_t kMaxFollowedExplicitOps = 1024;

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_EXPLICITASYNCWORK_H
