//===- PipelinedLocation.h - Where a pipelined op stands in input order -*- C++ -*-===//
//
// --vyre-pipeline-loops replaces a loop by ops cloned from its body, in a
// new order (a prologue, an unrolled loop, an epilogue). Their source
// positions no longer give their order, which --vyre-verify-schedule needs as
// the input order of --overlap-copies. Each op the rewrite emits therefore
// carries
//
//   loc(fused<["vyre.pipelined", POSITION, LOOP]>[ORIGINAL])
//
// ORIGINAL is the op's own location (diagnostics still point at it), LOOP the
// location of the loop it stands in for, and POSITION its place among the emitted
// ops, in program order. In input order the op stands where LOOP stood,
// after every op with LOOP's own position, ordered by POSITION.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_DIALECT_VYRE_IR_PIPELINEDLOCATION_H
#define VYRE_DIALECT_VYRE_IR_PIPELINEDLOCATION_H

#include "mlir/IR/Location.h"

#include <optional>

namespace mlir::vyre {

/// The loop location and position a pipelined op's location carries.
struct PipelinedPosition {
  Location loop;
  unsigned position;
};

/// `original`, tagged as the op at `position` among those emitted in place of
/// the loop at `loop`.
Location getPipelinedLocation(Location original, Location loop,
                              unsigned position);

/// The tag of `loc`, if it has one.
std::optional<PipelinedPosition> getPipelinedPosition(Location loc);

/// The source position `loc` stands for: the first `file:line:col` in it
/// (a pipelined op's own, not its loop's; a fused location's first; a named
/// or call-site location's), or `loc` itself where it holds none. Output
/// that takes one position reads it from this: YAML remarks, whose DebugLoc
/// is a file, line and column and is empty for a fused location, and the
/// simulator's trace.
Location getSourceLocation(Location loc);

} // namespace mlir::vyre

#endif // VYRE_DIALECT_VYRE_IR_PIPELINEDLOCATION_H
