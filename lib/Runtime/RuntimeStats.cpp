//===- RuntimeStats.cpp - What the runtime did, counted -------------------===//

#include "vyre/Runtime/RuntimeStats.h"

vyre::runtime::RuntimeStats
vyre::runtime::runtimeStatsSince(const RuntimeStats &earlier,
                                 const RuntimeStats &later) {
  RuntimeStats since;
  since.streamsCreated = later.streamsCreated - earlier.streamsCreated;
  since.streamsReused = later.streamsReused - earlier.streamsReused;
  since.streamsDestroyed = later.streamsDestroyed - earlier.streamsDestroyed;
  since.eventsCreated = later.eventsCreated - earlier.eventsCreated;
  since.eventsReused = later.eventsReused - earlier.eventsReused;
  since.eventsDestroyed = later.eventsDestroyed - earlier.eventsDestroyed;
  since.hostSynchronizations =
      later.hostSynchronizations - earlier.hostSynchronizations;
  since.kernelLaunches = later.kernelLaunches - earlier.kernelLaunches;
  since.memcpys = later.memcpys - earlier.memcpys;
  return since;
}

void vyre::runtime::printRuntimeStats(std::FILE *out, const RuntimeStats &stats,
                                      const char *prefix) {
  auto line = [&](const char *key, int64_t value) {
    std::fprintf(out, "%s%s %lld\n", prefix, key,
                 static_cast<long long>(value));
  };
  line("streams_created", stats.streamsCreated);
  line("streams_reused", stats.streamsReused);
  line("streams_destroyed", stats.streamsDestroyed);
  line("events_created", stats.eventsCreated);
  line("events_reused", stats.eventsReused);
  line("events_destroyed", stats.eventsDestroyed);
  line("host_synchronizations", stats.hostSynchronizations);
  line("kernel_launches", stats.kernelLaunches);
  line("memcpys", stats.memcpys);
}
