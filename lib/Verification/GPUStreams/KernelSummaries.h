//===- KernelSummaries.h - What kernels do with their arguments -----------===//
//
// Part of --vyre-verify-gpu-streams, which shares no code with vyre's own
// analyses: kernel argument accesses are read off the gpu.func bodies here.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_VERIFICATION_GPUSTREAMS_KERNELSUMMARIES_H
#define VYRE_LIB_VERIFICATION_GPUSTREAMS_KERNELSUMMARIES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::vyre::gpu_streams {

/// What a kernel does with one argument.
struct ArgumentUse {
  bool read = false;
  bool write = false;
};

/// Reads, per kernel symbol, what each kernel does with its arguments, from
/// the kernel body: a load reads, a store writes, an atomic does both, and a
/// use it does not understand (a call, an escape) does both.
class KernelSummaries {
public:
  /// The uses of each kernel operand of `launch`, or null when the kernel
  /// cannot be read (no body, a signature that does not match).
  const SmallVector<ArgumentUse> *lookup(gpu::LaunchFuncOp launch);

private:
  DenseMap<Operation *, SmallVector<ArgumentUse>> summaries;
  /// The kernels' symbol tables, built once.
  SymbolTableCollection symbolTables;
};

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_KERNELSUMMARIES_H
