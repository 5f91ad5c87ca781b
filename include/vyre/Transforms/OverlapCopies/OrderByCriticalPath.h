//===- OrderByCriticalPath.h - Work by critical path ------------*- C++ -*-===//
//
// Part of --overlap-copies (`order-kernels`, on by default). The main stream
// runs kernels in the order they are written, and each copy engine runs its
// copies in the order they are issued. Where the input lists copies and
// kernels that nothing orders among themselves, that order is the author's:
// a kernel written first may need a long copy while a later one, whose copy
// back could run beside that copy, waits behind it. Before planning, each
// straight run of such ops is list-scheduled on the engines the simulator
// models (one per copy direction, one for kernels), longest remaining path
// first, and put in the order the schedule starts them, where that schedule
// is shorter than the input's order.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_ORDERBYCRITICALPATH_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_ORDERBYCRITICALPATH_H

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::vyre {
class SlotAccessAnalysis;
} // namespace mlir::vyre

namespace mlir::vyre::overlap {

/// The device times the ordering estimates with (those of --vyre-simulate).
struct WorkTimes {
  double h2dGBps = 55.0;
  double d2hGBps = 55.0;
  double copyLatencyUs = 2.0;
  double defaultKernelUs = 10.0;
};

/// One run of ops put in a new order.
struct ReorderedRun {
  /// The first op of the run in its new order.
  Operation *first = nullptr;
  unsigned ops = 0;
  /// The run's estimated time on the engines, in the input's order and in
  /// the new one.
  double inputOrderUs = 0;
  double newOrderUs = 0;
};

/// The longest run of ops one list schedule covers; a longer run is split
/// into runs of this many (the schedule is quadratic in a run's length).
constexpr unsigned kMaxCriticalPathRun = 64;

/// Reorders the runs of `vyre.copy_h2d`, `vyre.copy_d2h` and `vyre.dispatch`
/// ops in the host blocks of `function` by a list schedule on the device's
/// engines, where the schedule's estimate, with the ops after the run up to
/// the first op that runs kernels in regions (or a free, the terminator, an
/// op of unknown effect), is shorter than the input order's by more than 1%
/// of the run's own time (and 1 us). A run may hold ops that touch no buffer
/// between them (views, index arithmetic, `vyre.alloc`): they move to the
/// run's start, in their order. Two ops keep their order where one may
/// write what the other reads or writes (slots; host buffers, where a
/// function argument used as a device buffer counts as host memory), and a
/// copy that nothing after it waits for stays before the kernels written
/// after it. Any other op, an op whose effects or copy size the analysis
/// cannot name, a kernel that may touch memory other than through its
/// memref arguments (a global, a call, LLVM pointers), and an op on a
/// buffer chosen at run time (a select) end the run. Returns the runs
/// reordered.
SmallVector<ReorderedRun> orderByCriticalPath(FunctionOpInterface function,
                                              const SlotAccessAnalysis &slots,
                                              const WorkTimes &times);

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_ORDERBYCRITICALPATH_H
