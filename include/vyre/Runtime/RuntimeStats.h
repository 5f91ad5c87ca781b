//===- RuntimeStats.h - What the runtime did, counted -----------*- C++ -*-===//
//
// Counts of the runtime's driver work, for `VYRE_RUNTIME_STATS=1` (printed at
// exit) and `vyre-gpu-driver --profile`. A plain C struct: the drivers read
// it through `vyreRuntimeStatsRead` (CudaRuntime.h).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_RUNTIME_RUNTIMESTATS_H
#define VYRE_RUNTIME_RUNTIMESTATS_H

#include <cstdint>
#include <cstdio>

extern "C" {

typedef struct VyreRuntimeStats {
  /// Driver creations, handles served from a pool, driver destructions.
  int64_t streamsCreated, streamsReused, streamsDestroyed;
  int64_t eventsCreated, eventsReused, eventsDestroyed;
  /// Times the host blocked on the device: stream and event synchronizations,
  /// and the wait before a free.
  int64_t hostSynchronizations;
  int64_t kernelLaunches, memcpys;
} VyreRuntimeStats;
}

namespace vyre::runtime {

using RuntimeStats = VyreRuntimeStats;

/// What happened between two reads: `later - earlier`, field by field.
RuntimeStats runtimeStatsSince(const RuntimeStats &earlier,
                               const RuntimeStats &later);

/// Prints `stats` as `key value` lines, each key prefixed with `prefix`.
void printRuntimeStats(std::FILE *out, const RuntimeStats &stats,
                       const char *prefix);

} // namespace vyre::runtime

#endif // VYRE_RUNTIME_RUNTIMESTATS_H
