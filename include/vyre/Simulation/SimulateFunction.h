//===- SimulateFunction.h - One function on the engine model ----*- C++ -*-===//
//
// The simulator behind --vyre-simulate, for passes that compare schedules:
// runs one function's vyre schedule on a model of the GPU's engines and
// streams and returns its makespan (docs/Simulation.md).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_SIMULATION_SIMULATEFUNCTION_H
#define VYRE_SIMULATION_SIMULATEFUNCTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlir::vyre {

class SlotAccessAnalysis;

/// The machine and runtime the simulator models; the defaults are those of
/// --vyre-simulate, calibrated on an H200 (docs/Simulation.md).
struct EngineModel {
  unsigned computeEngines = 1, h2dEngines = 1, d2hEngines = 1;
  double h2dGBps = 55.0, d2hGBps = 55.0, copyLatencyUs = 2.0,
         defaultKernelUs = 10.0;
  unsigned defaultTripCount = 4;
  uint64_t maxTrips = 1000000;
  /// Whether a loop whose iterations repeat is extrapolated from there.
  bool steadyState = true;
  /// The most ops one function may run, loop iterations included.
  uint64_t maxOps = 10000000;
  /// Whether to keep a span per op for the trace, and at most how many.
  bool keepSpans = false;
  uint64_t maxSpans = 1000000;
  /// Host time of the runtime calls the lowered program makes
  /// (docs/Simulation.md#runtime-overheads).
  double launchUs = 0.85, eventUs = 1.7, streamCreateUs = 0.0,
         hostSyncUs = 1.7, allocFreeUs = 21.5;
  /// Whether the bound counts the work on other engines that the first and
  /// the last ops wait for (quadratic in up to 4096 ops at each end); a
  /// caller that compares makespans alone may leave it out, and its bound
  /// is then that of the chains alone, lower.
  bool countWorkAround = true;
  /// Whether the buffers the lowering allocates and frees as one
  /// (AllocationGroups.h) cost one allocation and one free together, as
  /// vyre's lowering makes them; false for a program lowered otherwise
  /// (upstream's --gpu-async-region frees each).
  bool groupAllocations = true;
};

/// The default model with the cost figures of a pass that has the options
/// of those names (`h2d-gbps`, `launch-us`, ...): its engines, trip counts
/// and limits are the defaults.
template <typename PassT> EngineModel engineModelOf(const PassT &pass) {
  EngineModel model;
  model.h2dGBps = pass.h2dGBps;
  model.d2hGBps = pass.d2hGBps;
  model.copyLatencyUs = pass.copyLatencyUs;
  model.defaultKernelUs = pass.defaultKernelUs;
  model.launchUs = pass.launchUs;
  model.eventUs = pass.eventUs;
  model.hostSyncUs = pass.hostSyncUs;
  model.streamCreateUs = pass.streamCreateUs;
  return model;
}

/// What one simulated run of a function took, in us.
struct SimulatedRun {
  double makespanUs = 0;
  /// The device time: every copy's and kernel's time, summed (what one
  /// stream would take without the runtime's host overheads; not the
  /// makespan of the program run serially, which pays those too).
  double deviceTimeUs = 0;
  /// max(longest dependency path, engine bound) + the host's time in which
  /// the device is idle in every schedule of the function (its frees, its
  /// first launch, the return's first synchronization).
  double boundUs = 0;
  /// The most any kind of engine needs: its work, shared among its engines,
  /// after the earliest any of it can start on the dependency chain and
  /// before the least time the chain needs after any of it.
  double engineBoundUs = 0;
  /// The host's time in which the device is idle, which the bound adds:
  /// each free's synchronization and free (the runtime's free waits for the
  /// whole device), the first launch, and the return's first
  /// synchronization. 0 without the runtime's overheads.
  double idleForHostUs = 0;
};

/// Runs `function`'s schedule on `model`. What the simulator cannot run (a
/// copy of a dynamically sized buffer, a function of several blocks, ...)
/// is an error diagnostic at the op, and failure. `opsRun`, if given, is set
/// to the ops it ran, loop iterations included (past `model.maxOps` where it
/// stopped there), whether it succeeds or not.
FailureOr<SimulatedRun> simulateFunction(func::FuncOp function,
                                         SlotAccessAnalysis &slots,
                                         const EngineModel &model,
                                         uint64_t *opsRun = nullptr);

} // namespace mlir::vyre

#endif // VYRE_SIMULATION_SIMULATEFUNCTION_H
