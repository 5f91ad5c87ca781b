//===- FaultInjection.h - Runtime failures and faults for tests -*- C++ -*-===//
//
// Both runtimes (CudaRuntime.cpp, HostRuntime.cpp) fail the same way: one
// line on stderr, `vyre runtime: <call> failed: <reason>`, then abort.
//
// For tests only, `VYRE_RUNTIME_FAIL` makes a chosen call fail that way:
// `VYRE_RUNTIME_FAIL=alloc:3` fails the third `mgpuMemAlloc`. The kinds are
// `alloc` (mgpuMemAlloc), `stream` (mgpuStreamCreate), `event`
// (mgpuEventCreate), `memcpy` (mgpuMemcpy and
// vyreMemcpy2DAsync, counted together) and `launch` (mgpuLaunchKernel);
// several are separated by commas (`alloc:3,launch:1`). Every call of the
// entry point counts, from the process's first runtime call, and the fault
// fires before the call does anything (in the CUDA runtime, before any
// driver call). A malformed value is reported, with what is wrong, and
// aborts when the runtime starts (its first module load or counted call); an
// empty value injects nothing.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_RUNTIME_FAULTINJECTION_H
#define VYRE_RUNTIME_FAULTINJECTION_H

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace vyre::runtime {

/// Prints `vyre runtime: <message>` to stderr and aborts.
[[noreturn]] void reportFatalError(const std::string &message);

/// Prints `vyre runtime: <call> failed: <reason>` to stderr and aborts. Every
/// failure of either runtime ends here.
[[noreturn]] void reportFailure(const char *call, const std::string &reason);

/// The calls a fault can be injected into.
enum class FaultKind { Alloc, Stream, Event, Memcpy, Launch };
constexpr size_t kNumFaultKinds = 5;

/// The name of `kind` in `VYRE_RUNTIME_FAIL` (`alloc`, ...).
const char *getFaultKindName(FaultKind kind);

/// Which call of each kind fails; 0 where none does.
using FaultPlan = std::array<int64_t, kNumFaultKinds>;

/// Parses a `VYRE_RUNTIME_FAIL` value: `KIND:N[,KIND:N...]`, each KIND at
/// most once and N a decimal number from 1. Returns false, with a message in
/// `error`, when `spec` is malformed.
bool parseFaultPlan(const std::string &spec, FaultPlan &plan,
                    std::string &error);

/// Counts the calls of each kind and fails the planned one. Thread-safe:
/// calls from several threads are counted exactly once each, and exactly one
/// of them is the planned one.
class FaultInjection {
public:
  /// Injects nothing.
  FaultInjection() = default;
  FaultInjection(const FaultInjection &) = delete;
  FaultInjection &operator=(const FaultInjection &) = delete;

  /// Replaces the plan with `spec`'s and restarts the counts; returns false,
  /// changing nothing, when `spec` is malformed. For tests: not to be called
  /// while other threads call the runtime.
  bool configure(const std::string &spec, std::string &error);

  /// Counts a call of `call` (an entry point, e.g. `mgpuMemAlloc`); when it
  /// is the planned call of `kind`, reports it failed and aborts.
  void check(FaultKind kind, const char *call);

  /// The calls of `kind` counted since the last `configure` (only kinds with
  /// a planned fault are counted).
  int64_t getCallCount(FaultKind kind) const;

private:
  std::array<std::atomic<int64_t>, kNumFaultKinds> failAt{};
  std::array<std::atomic<int64_t>, kNumFaultKinds> calls{};
};

/// The process's faults, planned by `VYRE_RUNTIME_FAIL` on first use (which
/// aborts with a message if the value is malformed).
FaultInjection &faultInjection();

} // namespace vyre::runtime

#endif // VYRE_RUNTIME_FAULTINJECTION_H
