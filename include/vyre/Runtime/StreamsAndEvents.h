//===- StreamsAndEvents.h - mgpu stream and event calls, pooled -*- C++ -*-===//
//
// What the runtime's `mgpuStream*` and `mgpuEvent*` functions do, apart from
// the driver: streams and events come from per-context pools (HandlePool.h),
// and every call is counted. A `DeviceApi` makes the driver calls; the CUDA
// runtime and the host runtime each provide one, and tests provide their own.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_RUNTIME_STREAMSANDEVENTS_H
#define VYRE_RUNTIME_STREAMSANDEVENTS_H

#include "vyre/Runtime/HandlePool.h"
#include "vyre/Runtime/RuntimeStats.h"

#include <atomic>
#include <map>
#include <memory>

namespace vyre::runtime {

/// The driver calls behind streams and events.
class DeviceApi {
public:
  virtual ~DeviceApi() = default;
  /// Makes the runtime's context current in the calling thread; returns it.
  virtual void *enterContext() = 0;
  virtual void *createStream() = 0;
  virtual void destroyStream(void *stream) = 0;
  virtual bool isStreamIdle(void *stream) = 0;
  virtual void synchronizeStream(void *stream) = 0;
  virtual void *createEvent() = 0;
  virtual void destroyEvent(void *event) = 0;
  virtual void recordEvent(void *event, void *stream) = 0;
  virtual void streamWaitEvent(void *stream, void *event) = 0;
  virtual void synchronizeEvent(void *event) = 0;
};

/// The stream and event calls of lowered code, on pools. A destroyed stream
/// is kept, and handed out again once its work is done (destroying a stream
/// with work pending does not wait for it, as in CUDA); a destroyed event is
/// kept as it is (a stream that waits on an event waits for the record made
/// before the wait, so recording the event again later is safe). Handles go
/// back to the pools of the calling thread's current context. `createStream`
/// and `createEvent` are where VYRE_RUNTIME_FAIL's `stream` and `event` faults
/// fire (FaultInjection.h), before any pool or driver call. Thread-safe.
class StreamsAndEvents {
public:
  /// Each context keeps at most `poolCapacity` idle streams and as many idle
  /// events.
  StreamsAndEvents(DeviceApi &device, size_t poolCapacity);
  StreamsAndEvents(const StreamsAndEvents &) = delete;
  StreamsAndEvents &operator=(const StreamsAndEvents &) = delete;

  void *createStream();
  void destroyStream(void *stream);
  void synchronizeStream(void *stream);
  void *createEvent();
  void destroyEvent(void *event);
  void recordEvent(void *event, void *stream);
  void streamWaitEvent(void *stream, void *event);
  void synchronizeEvent(void *event);

  /// For the runtime's other calls: a host wait (e.g. before a free), a
  /// kernel launch, a memcpy.
  void countHostSynchronization() { ++hostSynchronizations; }
  void countKernelLaunch() { ++kernelLaunches; }
  void countMemcpy() { ++memcpys; }

  /// Counts since the runtime started.
  RuntimeStats stats() const;
  /// Destroys every idle stream and event of every context.
  void drain();

private:
  struct ContextPools {
    ContextPools(DeviceApi &device, size_t capacity);
    HandlePool streams;
    HandlePool events;
  };
  ContextPools &currentPools();

  DeviceApi &device;
  size_t poolCapacity;
  mutable std::mutex mutex;
  std::map<void *, std::unique_ptr<ContextPools>> poolsByContext;
  std::atomic<int64_t> hostSynchronizations{0};
  std::atomic<int64_t> kernelLaunches{0};
  std::atomic<int64_t> memcpys{0};
};

} // namespace vyre::runtime

#endif // VYRE_RUNTIME_STREAMSANDEVENTS_H
