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
#include "vyre/Runtime/RuntimeEnvironment.h"

#include <cstdlib>
#include <cstring>

using namespace vyre::runtime;

namespace {

/// Idle streams (and events) kept per context: VYRE_RUNTIME_POOL_CAPACITY,
/// or 256; a malformed value is reported, and the runtime aborts.
size_t poolCapacity() {
  size_t capacity;
  std::string error;
  if (!parsePoolCapacity(std::getenv("VYRE_RUNTIME_POOL_CAPACITY"), capacity,
                         error))
    reportFatalError(error);
  return capacity;
}

/// Whether VYRE_RUNTIME_STATS asks for the counts at exit; a malformed value
/// is reported, and the runtime aborts.
bool statsWanted() {
  bool enabled;
  std::string error;
  if (!parseStatsSwitch(std::getenv("VYRE_RUNTIME_STATS"), enabled, error))
    reportFatalError(error);
  return enabled;
}

struct RuntimeInstance {
  /// A malformed VYRE_RUNTIME_FAIL is reported when the runtime starts, not
  /// at the first call it would count; so are malformed settings.
  RuntimeInstance() { faultInjection(); }

  bool printStats = statsWanted();
  StreamsAndEvents pools{device(), poolCapacity()};

  ~RuntimeInstance() {
    pools.drain();
    if (printStats)
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
