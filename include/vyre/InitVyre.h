//===- InitVyre.h - Register vyre and what it builds on ---------*- C++ -*-===//
//
// One place that tools and other compilers call to make the vyre dialect, the
// upstream dialects vyre IR uses, and vyre's passes known to MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_INITVYRE_H
#define VYRE_INITVYRE_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::vyre {

/// Adds the vyre dialect and the upstream dialects that vyre programs use
/// (arith, func, gpu, memref, scf, affine, vector, cf, math in kernels, llvm
/// in the lowering's output) to `registry`.
void registerVyreDialects(DialectRegistry &registry);

/// Registers every vyre pass and pipeline with the global pass registry.
void registerVyrePassesAndPipelines();

} // namespace mlir::vyre

#endif // VYRE_INITVYRE_H
