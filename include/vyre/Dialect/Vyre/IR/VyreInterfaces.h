//===- VyreInterfaces.h - Interfaces of the vyre dialect --------*- C++ -*-===//
//
// The stream-op interface and the facts it reports: buffer accesses and the
// kind of device work.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_DIALECT_VYRE_IR_VYREINTERFACES_H
#define VYRE_DIALECT_VYRE_IR_VYREINTERFACES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::vyre {

/// The device work an op enqueues, by the engine that runs it.
enum class DeviceWork { None, Kernel, CopyToDevice, CopyToHost };

/// Where a buffer lives. A function's memref argument may be either; the
/// analyses decide that from the buffer's root, not from this.
enum class BufferSpace { Host, Device };

/// What an op does to one buffer.
enum class BufferEffect { Read, Write, Allocate, Free };

/// One access of a stream op to a buffer operand or result.
struct BufferAccess {
  Value buffer;
  BufferEffect effect;
  BufferSpace space;
  /// For a kernel launch: the position of the buffer among the kernel's
  /// arguments.
  std::optional<unsigned> kernelArgument;
  /// The op does not say: the access is the conservative default (read and
  /// write), which the launched kernel's summary may narrow.
  bool assumed = false;

  bool isWrite() const {
    return effect == BufferEffect::Write || effect == BufferEffect::Free;
  }
};

} // namespace mlir::vyre

#include "vyre/Dialect/Vyre/IR/VyreInterfaces.h.inc"

#endif // VYRE_DIALECT_VYRE_IR_VYREINTERFACES_H
