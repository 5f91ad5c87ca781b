//===- VyreDialect.h - The vyre dialect -------------------------*- C++ -*-===//
//
// The vyre dialect and the side-effect resource its stream ops share.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_DIALECT_VYRE_IR_VYREDIALECT_H
#define VYRE_DIALECT_VYRE_IR_VYREDIALECT_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::vyre {

/// The device's work queues. Every op that is enqueued on a stream, or that
/// orders work against one, reads and writes this resource, so generic passes
/// keep such ops in program order.
struct StreamResource : public SideEffects::Resource::Base<StreamResource> {
  StringRef getName() final { return "vyre.stream"; }
};

/// Whether `op`, or any op nested in it, is a vyre op.
bool containsVyreOps(Operation *op);
/// Whether any op in `region` is, or holds, a vyre op.
bool containsVyreOps(Region &region);

/// Whether `op` is a device region: an `scf.for` with one block, or an
/// `scf.if`, that holds vyre ops, each directly in its blocks or in a device
/// region nested in them (no other op there holds vyre ops in a region of
/// its own). The region ops --convert-vyre-to-gpu chains on the device with
/// events, without the host waiting before them or between the iterations
/// of a loop (docs/Lowering.md).
bool isDeviceRegion(Operation *op);

/// Whether `loop` is a device region that is an `scf.for`: a device loop.
bool isDeviceLoop(Operation *loop);

/// Whether `buffer`, or a view or cast of it, is registered with
/// gpu.host_register: the promise that it is pinned host memory.
bool isRegisteredWithGPU(Value buffer);

/// Warns at `function` if it holds upstream gpu host ops (gpu.alloc,
/// gpu.memcpy, gpu.launch_func, ...) and no vyre op: `passArgument`, a vyre
/// pass, would do nothing to it, since --convert-gpu-host-to-vyre did not
/// run. Returns whether it warned.
bool warnIfNotImported(Operation *function, StringRef passArgument);

} // namespace mlir::vyre

#include "vyre/Dialect/Vyre/IR/VyreOpsDialect.h.inc"

#endif // VYRE_DIALECT_VYRE_IR_VYREDIALECT_H
