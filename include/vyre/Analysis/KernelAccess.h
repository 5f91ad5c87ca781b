//===- KernelAccess.h - How a kernel accesses its arguments -----*- C++ -*-===//
//
// Infers, from a kernel's body, whether it reads and whether it writes each
// of its memref arguments; reads and writes the `vyre.access` summary that
// records it on the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_KERNELACCESS_H
#define VYRE_ANALYSIS_KERNELACCESS_H

#include "vyre/Dialect/Vyre/IR/VyreAttrs.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::vyre {

/// Whether something reads and whether it writes one buffer.
struct ArgumentAccess {
  bool read = false;
  bool write = false;

  static ArgumentAccess readWrite() { return {true, true}; }
  static ArgumentAccess fromKind(AccessKind kind);
  AccessKind toKind() const;
  ArgumentAccess &operator|=(ArgumentAccess other) {
    read |= other.read;
    write |= other.write;
    return *this;
  }
  bool operator==(ArgumentAccess other) const {
    return read == other.read && write == other.write;
  }
};

/// Per-argument accesses of one kernel, indexed by argument position.
/// Arguments that are not memrefs have no access.
struct KernelAccess {
  llvm::SmallVector<ArgumentAccess> arguments;
  /// Whether the accesses come from the kernel's body. Without one, every
  /// memref argument is read and written.
  bool fromBody = false;
};

/// Computes the accesses of `kernel`, a function-like op (a `gpu.func`, or a
/// bodiless declaration). Loads are reads, stores are writes, atomic
/// read-modify-writes both; views of an argument count as the argument. Any
/// use that is not modelled (a call, an op with unknown effects, the memref
/// escaping into a value or region) is both.
KernelAccess computeKernelAccess(Operation *kernel);

/// The per-argument accesses `kernel` carries in its `vyre.access` summary,
/// or std::nullopt without one.
std::optional<llvm::SmallVector<ArgumentAccess>>
getKernelAccessSummary(Operation *kernel);

/// Sets `kernel`'s `vyre.access` summary to `accesses`, one per argument.
void setKernelAccessSummary(Operation *kernel,
                            llvm::ArrayRef<ArgumentAccess> accesses);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_KERNELACCESS_H
