//===- KernelWork.h - What a kernel's threads do, counted -------*- C++ -*-===//
//
// A kernel's work per thread, read off its body: the bytes its loads and
// stores move to and from global memory, and its floating-point operations.
// With a dispatch's grid, a roofline turns it into an estimate of the
// kernel's time, for dispatches that declare none (`vyre.cost_us`).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_KERNELWORK_H
#define VYRE_ANALYSIS_KERNELWORK_H

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::vyre {

/// One thread's work.
struct KernelWork {
  /// Bytes loaded from and stored to global memory (workgroup and private
  /// memory are on the chip: not counted).
  uint64_t bytes = 0;
  /// Floating-point operations (a fused multiply-add counts two).
  uint64_t flops = 0;
};

/// Counts the work of one thread of `kernel` (a `gpu.func`). Loops count
/// their trip count times (it must be a constant), branches their costlier
/// side. None, with the reason in `*whyNot`, where the body holds what is
/// not counted: a loop of unknown trip count, a call, a memory op other than
/// loads, stores and atomics, or more than 2^64 - 1 of either.
std::optional<KernelWork> computeKernelWork(Operation *kernel,
                                            std::string *whyNot = nullptr);

/// The threads a dispatch (`vyre.dispatch`, `gpu.launch_func`) launches:
/// the product of its grid and block sizes, when all six are constants or
/// fold to constants (pure ops of constants, a few deep).
std::optional<uint64_t> getLaunchedThreads(Operation *dispatch);

/// The machine a roofline assumes.
struct Roofline {
  /// Global memory bandwidth, GB/s.
  double memoryGBps = 4800.0;
  /// Floating-point throughput, TFLOP/s.
  double tflops = 67.0;
};

/// The time `threads` threads of `work` take, in microseconds: the longer of
/// moving their bytes at the memory bandwidth and doing their operations at
/// the floating-point throughput.
double estimateKernelMicros(const KernelWork &work, uint64_t threads,
                            const Roofline &roofline);

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_KERNELWORK_H
