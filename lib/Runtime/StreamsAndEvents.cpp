//===- StreamsAndEvents.cpp - mgpu stream and event calls, pooled ---------===//

#include "vyre/Runtime/StreamsAndEvents.h"

#include "vyre/Runtime/FaultInjection.h"

using namespace vyre::runtime;

StreamsAndEvents::ContextPools::ContextPools(DeviceApi &device, size_t capacity)
    : streams(HandleDriver{[&device] { return device.createStream(); },
                           [&device](void *s) { device.destroyStream(s); },
                           [&device](void *s) { return device.isStreamIdle(s); },
                           [&device](void *s) { device.synchronizeStream(s); }},
              capacity),
      events(HandleDriver{[&device] { return device.createEvent(); },
                          [&device](void *e) { device.destroyEvent(e); },
                          nullptr, nullptr},
             capacity) {}

StreamsAndEvents::StreamsAndEvents(DeviceApi &device, size_t poolCapacity)
    : device(device), poolCapacity(poolCapacity) {}

StreamsAndEvents::ContextPools &StreamsAndEvents::currentPools() {
  void *context = device.enterContext();
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<ContextPools> &pools = poolsByContext[context];
  if (!pools)
    pools = std::make_unique<ContextPools>(device, poolCapacity);
  return *pools;
}

void *StreamsAndEvents::createStream() {
  faultInjection().check(FaultKind::Stream, "mgpuStreamCreate");
  return currentPools().streams.acquire();
}

void StreamsAndEvents::destroyStream(void *stream) {
  currentPools().streams.release(stream);
}

void StreamsAndEvents::synchronizeStream(void *stream) {
  device.enterContext();
  ++hostSynchronizations;
  device.synchronizeStream(stream);
}

void *StreamsAndEvents::createEvent() {
  faultInjection().check(FaultKind::Event, "mgpuEventCreate");
  return currentPools().events.acquire();
}

void StreamsAndEvents::destroyEvent(void *event) {
  currentPools().events.release(event);
}

void StreamsAndEvents::recordEvent(void *event, void *stream) {
  device.enterContext();
  device.recordEvent(event, stream);
}

void StreamsAndEvents::streamWaitEvent(void *stream, void *event) {
  device.enterContext();
  device.streamWaitEvent(stream, event);
}

void StreamsAndEvents::synchronizeEvent(void *event) {
  device.enterContext();
  ++hostSynchronizations;
  device.synchronizeEvent(event);
}

RuntimeStats StreamsAndEvents::stats() const {
  RuntimeStats stats{};
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto &[context, pools] : poolsByContext) {
      PoolCounts streams = pools->streams.counts();
      PoolCounts events = pools->events.counts();
      stats.streamsCreated += streams.created;
      stats.streamsReused += streams.reused;
      stats.streamsDestroyed += streams.destroyed;
      stats.eventsCreated += events.created;
      stats.eventsReused += events.reused;
      stats.eventsDestroyed += events.destroyed;
    }
  }
  stats.hostSynchronizations = hostSynchronizations;
  stats.kernelLaunches = kernelLaunches;
  stats.memcpys = memcpys;
  return stats;
}

void StreamsAndEvents::drain() {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &[context, pools] : poolsByContext) {
    pools->streams.drain();
    pools->events.drain();
  }
}
