//===- MgpuStreamsAndEvents.cpp - The mgpu stream and event functions -----===//
//
// The `mgpuStream*` and `mgpuEvent*` entry points of lowered code, and the
// runtime's counts, over the pools of StreamsAndEvents. Linked into each
// runtime library, beside that library's `device()`.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInstance.h"

#include "vyre/Runtime/CudaRuntime.h"
#include "vyre/Runtime/FaultInjection.h"

#include <cstdlib>
#include <cstring>

using namespace vyre::runtime;

namespace {

/// Idle streams (and events) kept per context: VYRE_RUNTIME_POOL_CAPACITY,
/// or 256.
size_t poolCapacity() {
  if (const char *value = std::getenv("VYRE_RUNTIME_POOL_CAPACITY"))
    return static_cast<size_t>(std::strtoull(value, nullptr, 10));
  return 256;
}

struct RuntimeInstance {
  /// A malformed VYRE_RUNTIME_FAIL is reported when the runtime starts, not
  /// at the first call it would count.
  RuntimeInstance() { faultInjection(); }

  StreamsAndEvents pools{device(), poolCapacity()};

  ~RuntimeInstance() {
    pools.drain();
    const char *wanted = std::getenv("VYRE_RUNTIME_STATS");
    if (wanted && std::strcmp(wanted, "0") != 0)
      printRuntimeStats(stderr, pools.stats(), "vyre-runtime: ");
  }
};

} // namespace

StreamsAndEvents &vyre::runtime::streamsAndEvents() {
  static RuntimeInstance instance;
  return instance.pools;
}

extern "C" {

void *mgpuStreamCreate() { return streamsAndEvents().createStream(); }

void mgpuStreamDestroy(void *stream) {
  streamsAndEvents().destroyStream(stream);
}

void mgpuStreamSynchronize(void *stream) {
  streamsAndEvents().synchronizeStream(stream);
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  streamsAndEvents().streamWaitEvent(stream, event);
}

void *mgpuEventCreate() { return streamsAndEvents().createEvent(); }

void mgpuEventDestroy(void *event) { streamsAndEvents().destroyEvent(event); }

void mgpuEventSynchronize(void *event) {
  streamsAndEvents().synchronizeEvent(event);
}

void mgpuEventRecord(void *event, void *stream) {
  streamsAndEvents().recordEvent(event, stream);
}

void vyreRuntimeStatsRead(VyreRuntimeStats *stats) {
  *stats = streamsAndEvents().stats();
}

}
