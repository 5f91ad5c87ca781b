//===- DeviceCode.h - Host code and device code -----------------*- C++ -*-===//
//
// Host code may not go into device code, and may not dereference device
// memory. `--overlap-copies` puts its host waits only in host code, and it
// and both referees refuse a host op that touches a device buffer.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_DEVICECODE_H
#define VYRE_ANALYSIS_DEVICECODE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::vyre {

/// Whether the regions of `op` are device code (the body of a non-outlined
/// `gpu.launch`): no host op may be put there.
bool hasDeviceCodeRegions(Operation *op);

/// The blocks of `function`'s regions and of the ops nested in them, in
/// pre-order, without those of device code regions: the host blocks.
SmallVector<Block *> getHostBlocks(Operation *function);

/// Whether `value`, views resolved, is memory only the device may touch: a
/// `vyre.alloc` buffer, or a `gpu.alloc` one that is not `host_shared`.
bool isDeviceOnlyMemory(Value value);

/// Emits an error at each op of `root`'s host code (device code skipped)
/// that reads, writes or frees device-only memory through its declared
/// memory effects; fails if there is one. Vyre ops, and frees and copies in
/// the gpu dialect, are how the host asks the device, and are not host ops
/// here.
LogicalResult diagnoseHostAccessToDeviceMemory(Operation *root);

/// Emits an error at each vyre op in device code in `root` (a `gpu.launch`
/// body): vyre ops are host code that drives the device; fails if there is
/// one.
LogicalResult diagnoseVyreOpsInDeviceCode(Operation *root);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_DEVICECODE_H
