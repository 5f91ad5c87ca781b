//===- OrderCopiesByNeed.h - Copies in the order they are needed -*- C++ -*-===//
//
// Part of --overlap-copies (`order-copies`, on by default). Copies on one
// side stream run in the order they are issued, which is their order in the
// input. Where the input lists copies one after another that nothing orders
// among themselves, that order is the author's, not a constraint: a model
// load that copies hundreds of parameters and then the input makes the
// first layer, which needs the input and its own parameters, wait for every
// parameter. Before planning, such runs of copies are put in the order their
// first consumers come in.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_ORDERCOPIESBYNEED_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_ORDERCOPIESBYNEED_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::vyre {
class SlotAccessAnalysis;
} // namespace mlir::vyre

namespace mlir::vyre::overlap {

/// Reorders each run of consecutive `vyre.copy_h2d` ops in the host blocks
/// of `function` so that a copy whose first consumer (the first later op of
/// the block that reads or writes its destination's slots, or may touch
/// anything) comes earlier is issued earlier. Two copies
/// keep their order where one writes a slot the other touches. A copy into
/// an argument (which may be host memory another copy reads), or with
/// effects the analysis cannot name, keeps its place and splits the run.
/// Ties keep the input order. One walk back over each block finds every
/// run's consumers: the cost is linear in the function, plus n log n in a
/// run's length. Returns how many copies moved.
unsigned orderCopiesByNeed(FunctionOpInterface function,
                           const SlotAccessAnalysis &slots);

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_ORDERCOPIESBYNEED_H
