//===- HostEffects.h - What a host op and its regions touch -----*- C++ -*-===//
//
// One rule, shared by --overlap-copies and both referees, for the memory
// effects of a host op: an op with regions (scf.while, scf.index_switch,
// affine.for, affine.if, scf.execute_region, ...) whose effects are those of
// its body touches what the ops in its regions touch, and nothing else; a
// call touches what its callee's `vyre.effects` allows; a gpu op written with
// tokens reads and writes the buffers its work names (ExplicitAsyncWork.h).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_HOSTEFFECTS_H
#define VYRE_ANALYSIS_HOSTEFFECTS_H

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::vyre {

/// Whether `op` has regions and its own effects are exactly those of the
/// ops in them (it has `RecursiveMemoryEffects` and is not a call).
bool hasEffectsOfItsBody(Operation *op);

/// The memory effects of `op` and of every op nested in it. A call has its
/// callee's `vyre.effects`: none, or a read and a write of each memref
/// operand. None when any of them may touch anything: an op that declares no
/// effects, a call whose callee declares none.
std::optional<SmallVector<MemoryEffects::EffectInstance>>
collectHostEffects(Operation *op);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_HOSTEFFECTS_H
