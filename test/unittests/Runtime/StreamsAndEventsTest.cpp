//===- StreamsAndEventsTest.cpp - The runtime's pools, without a GPU ------===//
//
// Drives HandlePool and StreamsAndEvents through a fake device that counts
// driver calls and knows which streams still have work.
//
//===----------------------------------------------------------------------===//

#include "vyre/Runtime/StreamsAndEvents.h"

#include "vyre/Runtime/FaultInjection.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

using namespace vyre::runtime;

namespace {

/// A device whose streams and events are numbers; a stream has work until
/// synchronized. Counts every driver call and checks that no handle is used
/// after its driver destruction.
class FakeDevice final : public DeviceApi {
public:
  void *enterContext() override { return context; }
  void *createStream() override {
    std::lock_guard<std::mutex> lock(mutex);
    ++streamCreates;
    void *stream = reinterpret_cast<void *>(++next);
    live.insert(stream);
    return stream;
  }
  void destroyStream(void *stream) override {
    std::lock_guard<std::mutex> lock(mutex);
    ++streamDestroys;
    EXPECT_EQ(live.erase(stream), 1u) << "stream destroyed twice";
    // As in CUDA, a stream destroyed with work pending is freed once the
    // work is done.
    busy.erase(stream);
  }
  bool isStreamIdle(void *stream) override {
    std::lock_guard<std::mutex> lock(mutex);
    return !busy.count(stream);
  }
  void synchronizeStream(void *stream) override {
    std::lock_guard<std::mutex> lock(mutex);
    ++streamSyncs;
    busy.erase(stream);
  }
  void *createEvent() override {
    std::lock_guard<std::mutex> lock(mutex);
    ++eventCreates;
    void *event = reinterpret_cast<void *>(++next);
    live.insert(event);
    return event;
  }
  void destroyEvent(void *event) override {
    std::lock_guard<std::mutex> lock(mutex);
    ++eventDestroys;
    EXPECT_EQ(live.erase(event), 1u) << "event destroyed twice";
  }
  void recordEvent(void *event, void *stream) override {
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_TRUE(live.count(event) && live.count(stream));
  }
  void streamWaitEvent(void *stream, void *event) override {
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_TRUE(live.count(event) && live.count(stream));
  }
  void synchronizeEvent(void *) override {}

  /// Work enqueued on `stream` (a kernel, a copy).
  void enqueue(void *stream) {
    std::lock_guard<std::mutex> lock(mutex);
    busy.insert(stream);
  }
  /// The device finishes the work on `stream`.
  void finish(void *stream) {
    std::lock_guard<std::mutex> lock(mutex);
    busy.erase(stream);
  }

  void *context = reinterpret_cast<void *>(0xc0);
  int streamCreates = 0, streamDestroys = 0, streamSyncs = 0;
  int eventCreates = 0, eventDestroys = 0;
  std::set<void *> live, busy;

private:
  std::mutex mutex;
  uintptr_t next = 0x1000;
};

/// The stream and event calls, in order, of `@mlp` in
/// examples/weight_streaming.mlir after --vyre-to-gpu-pipeline and upstream
/// --gpu-lower-to-nvvm-pipeline (LLVM 22): eight streams (one per join) and
/// fifteen events per call.
const char *kWeightStreamingCalls = R"(
%7 = StreamCreate; %11 = EventCreate; EventRecord %11 %7;
%12 = EventCreate; EventRecord %12 %7; %13 = StreamCreate;
StreamWaitEvent %13 %12; StreamWaitEvent %13 %11; EventDestroy %12;
EventDestroy %11; %14 = EventCreate; EventRecord %14 %13; %15 = EventCreate;
EventRecord %15 %13; %19 = EventCreate; EventRecord %19 %7;
%20 = StreamCreate; StreamWaitEvent %20 %15; StreamWaitEvent %20 %19;
EventDestroy %15; EventDestroy %19; %21 = EventCreate; EventRecord %21 %20;
%22 = EventCreate; EventRecord %22 %20; %24 = EventCreate;
EventRecord %24 %7; %25 = StreamCreate; StreamWaitEvent %25 %22;
StreamWaitEvent %25 %24; EventDestroy %22; EventDestroy %24;
%26 = EventCreate; EventRecord %26 %25; %29 = EventCreate;
EventRecord %29 %7; %30 = StreamCreate; StreamWaitEvent %30 %29;
StreamWaitEvent %30 %14; StreamWaitEvent %30 %21; EventDestroy %29;
EventDestroy %14; EventDestroy %21; %31 = EventCreate; EventRecord %31 %30;
%32 = StreamCreate; StreamWaitEvent %32 %31; StreamWaitEvent %32 %26;
EventDestroy %31; EventDestroy %26; %33 = EventCreate; EventRecord %33 %32;
%34 = EventCreate; EventRecord %34 %32; %35 = StreamCreate;
StreamWaitEvent %35 %34; StreamWaitEvent %35 %33; EventDestroy %34;
EventDestroy %33; %36 = EventCreate; EventRecord %36 %35; %37 = EventCreate;
EventRecord %37 %32; %38 = StreamCreate; StreamWaitEvent %38 %37;
StreamWaitEvent %38 %36; EventDestroy %37; EventDestroy %36;
StreamSynchronize %7; StreamDestroy %7; StreamSynchronize %13;
StreamDestroy %13; StreamSynchronize %20; StreamDestroy %20;
StreamSynchronize %25; StreamDestroy %25; StreamSynchronize %30;
StreamDestroy %30; StreamSynchronize %32; StreamDestroy %32;
StreamSynchronize %35; StreamDestroy %35; StreamSynchronize %38;
StreamDestroy %38;
)";

/// Replays `calls` (as above) once, as one call of the lowered function.
/// Every stream gets work right after it is created or waits, as the copies
/// and kernels between these calls give it.
void replay(const char *calls, StreamsAndEvents &runtime, FakeDevice &device) {
  std::map<std::string, void *> values;
  std::istringstream text(calls);
  std::string statement;
  while (std::getline(text, statement, ';')) {
    std::istringstream words(statement);
    std::string first, second, third;
    words >> first >> second >> third;
    if (first.empty())
      continue;
    if (second == "=") {
      void *handle = third == "StreamCreate" ? runtime.createStream()
                                             : runtime.createEvent();
      values[first] = handle;
      if (third == "StreamCreate")
        device.enqueue(handle);
      continue;
    }
    ASSERT_TRUE(first == "StreamSynchronize" || first == "StreamDestroy" ||
                first == "EventDestroy" || first == "EventRecord" ||
                first == "StreamWaitEvent")
        << first;
    void *a = values.at(second);
    if (first == "StreamSynchronize")
      runtime.synchronizeStream(a);
    else if (first == "StreamDestroy")
      runtime.destroyStream(a);
    else if (first == "EventDestroy")
      runtime.destroyEvent(a);
    else if (first == "EventRecord")
      runtime.recordEvent(a, values.at(third));
    else
      runtime.streamWaitEvent(a, values.at(third));
  }
}

TEST(HandlePool, ReusesWhatWasReleased) {
  FakeDevice device;
  StreamsAndEvents runtime(device, 8);
  void *first = runtime.createStream();
  runtime.destroyStream(first);
  EXPECT_EQ(runtime.createStream(), first);
  RuntimeStats stats = runtime.stats();
  EXPECT_EQ(stats.streamsCreated, 1);
  EXPECT_EQ(stats.streamsReused, 1);
  EXPECT_EQ(stats.streamsDestroyed, 0);
  EXPECT_EQ(device.streamCreates, 1);
}

TEST(HandlePool, StaysWithinItsCapacity) {
  FakeDevice device;
  StreamsAndEvents runtime(device, 2);
  void *events[5];
  for (void *&event : events)
    event = runtime.createEvent();
  for (void *event : events)
    runtime.destroyEvent(event);
  EXPECT_EQ(device.eventCreates, 5);
  EXPECT_EQ(device.eventDestroys, 3) << "two kept, three destroyed";
  EXPECT_EQ(runtime.stats().eventsDestroyed, 3);
  runtime.drain();
  EXPECT_EQ(device.eventDestroys, 5);
  EXPECT_TRUE(device.live.empty());
}

TEST(HandlePool, ABusyStreamGoesBackWithoutAWaitAndIsReusedOnceIdle) {
  FakeDevice device;
  StreamsAndEvents runtime(device, 8);
  void *stream = runtime.createStream();
  device.enqueue(stream);
  runtime.destroyStream(stream);
  EXPECT_EQ(device.streamSyncs, 0) << "the host does not wait for it";
  EXPECT_EQ(runtime.stats().hostSynchronizations, 0);

  // While its work is pending it is not handed out again.
  void *other = runtime.createStream();
  EXPECT_NE(other, stream);
  runtime.destroyStream(other);
  EXPECT_EQ(runtime.createStream(), other);

  // Once the work is done, it is.
  device.finish(stream);
  EXPECT_EQ(runtime.createStream(), stream);
  EXPECT_EQ(device.streamCreates, 2);
}

TEST(HandlePool, DrainingWaitsForStreamsWithWorkPending) {
  FakeDevice device;
  StreamsAndEvents runtime(device, 8);
  void *stream = runtime.createStream();
  device.enqueue(stream);
  runtime.destroyStream(stream);
  runtime.drain();
  EXPECT_EQ(device.streamSyncs, 1);
  EXPECT_TRUE(device.live.empty());
}

TEST(HandlePool, ContextsHaveTheirOwnPools) {
  FakeDevice device;
  StreamsAndEvents runtime(device, 8);
  void *stream = runtime.createStream();
  runtime.destroyStream(stream);
  device.context = reinterpret_cast<void *>(0xc1);
  EXPECT_NE(runtime.createStream(), stream);
  EXPECT_EQ(device.streamCreates, 2);
}

TEST(HandlePool, IsThreadSafe) {
  FakeDevice device;
  StreamsAndEvents runtime(device, 4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        void *stream = runtime.createStream();
        void *event = runtime.createEvent();
        runtime.recordEvent(event, stream);
        runtime.destroyEvent(event);
        runtime.destroyStream(stream);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  RuntimeStats stats = runtime.stats();
  EXPECT_EQ(stats.streamsCreated + stats.streamsReused, 8000);
  EXPECT_LE(stats.streamsCreated, 4) << "at most one per thread at a time";
  runtime.drain();
  EXPECT_TRUE(device.live.empty());
  EXPECT_EQ(device.streamCreates, device.streamDestroys);
  EXPECT_EQ(device.eventCreates, device.eventDestroys);
}

TEST(StreamsAndEvents, CountsExactlyFromManyThreads) {
  constexpr int kThreads = 8, kCalls = 5000;
  FakeDevice device;
  StreamsAndEvents runtime(device, 4);
  RuntimeStats before = runtime.stats();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      void *stream = runtime.createStream();
      void *event = runtime.createEvent();
      for (int i = 0; i < kCalls; ++i) {
        runtime.countKernelLaunch();
        runtime.countMemcpy();
        runtime.countMemcpy();
        runtime.countHostSynchronization();
        runtime.synchronizeStream(stream);
        runtime.synchronizeEvent(event);
        // The counts are read while the others write them.
        if (i % 512 == 0) {
          EXPECT_LE(runtime.stats().kernelLaunches, kThreads * kCalls);
        }
      }
      runtime.destroyEvent(event);
      runtime.destroyStream(stream);
    });
  for (std::thread &thread : threads)
    thread.join();
  RuntimeStats counted = runtimeStatsSince(before, runtime.stats());
  EXPECT_EQ(counted.kernelLaunches, kThreads * kCalls);
  EXPECT_EQ(counted.memcpys, 2 * kThreads * kCalls);
  EXPECT_EQ(counted.hostSynchronizations, 3 * kThreads * kCalls);
  EXPECT_EQ(counted.streamsCreated + counted.streamsReused, kThreads);
  EXPECT_EQ(counted.eventsCreated + counted.eventsReused, kThreads);
  runtime.drain();
  EXPECT_TRUE(device.live.empty());
}

/// Re-runs the test in a fresh process, so that the fault planned for the
/// child never reaches the other tests.
class StreamsAndEventsDeathTest : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(StreamsAndEventsDeathTest, StreamAndEventFaultsFireBeforeThePools) {
  FakeDevice device;
  StreamsAndEvents runtime(device, 8);
  // The second create fails, though the pool holds a stream (or event) for
  // it: the calls are counted, not the driver's creations.
  EXPECT_DEATH(
      {
        std::string error;
        if (!faultInjection().configure("stream:2", error))
          reportFatalError(error);
        runtime.destroyStream(runtime.createStream());
        runtime.createStream();
      },
      "vyre runtime: mgpuStreamCreate failed: injected fault stream:2 "
      "\\(VYRE_RUNTIME_FAIL\\)");
  EXPECT_DEATH(
      {
        std::string error;
        if (!faultInjection().configure("event:2", error))
          reportFatalError(error);
        runtime.destroyEvent(runtime.createEvent());
        runtime.createEvent();
      },
      "vyre runtime: mgpuEventCreate failed: injected fault event:2 "
      "\\(VYRE_RUNTIME_FAIL\\)");
  // Only the children planned a fault.
  EXPECT_EQ(device.streamCreates + device.eventCreates, 0);
  EXPECT_NE(runtime.createStream(), nullptr);
  EXPECT_NE(runtime.createEvent(), nullptr);
}

TEST(StreamsAndEvents, ASecondCallOfALoweredExampleCreatesNothing) {
  FakeDevice device;
  StreamsAndEvents runtime(device, 256);
  replay(kWeightStreamingCalls, runtime, device);
  RuntimeStats first = runtime.stats();
  EXPECT_EQ(first.streamsCreated, 8);
  EXPECT_EQ(first.eventsCreated, 4) << "events go back at once and are reused";
  EXPECT_EQ(first.streamsDestroyed + first.eventsDestroyed, 0);

  replay(kWeightStreamingCalls, runtime, device);
  RuntimeStats second = runtimeStatsSince(first, runtime.stats());
  EXPECT_EQ(second.streamsCreated, 0);
  EXPECT_EQ(second.eventsCreated, 0);
  EXPECT_EQ(second.streamsReused, 8);
  EXPECT_EQ(second.eventsReused, 15);
  EXPECT_EQ(second.streamsDestroyed + second.eventsDestroyed, 0);
  EXPECT_EQ(second.hostSynchronizations, 8) << "the function's own waits only";
  EXPECT_EQ(device.streamCreates, 8);
  EXPECT_EQ(device.eventCreates, 4);

  runtime.drain();
  EXPECT_TRUE(device.live.empty());
}

TEST(StreamsAndEvents, WithoutRoomToKeepThemEveryCallCreates) {
  FakeDevice device;
  StreamsAndEvents runtime(device, 0);
  replay(kWeightStreamingCalls, runtime, device);
  RuntimeStats first = runtime.stats();
  replay(kWeightStreamingCalls, runtime, device);
  RuntimeStats second = runtimeStatsSince(first, runtime.stats());
  EXPECT_EQ(second.streamsCreated, 8);
  EXPECT_EQ(second.eventsCreated, 15);
  EXPECT_EQ(second.streamsDestroyed, 8);
  EXPECT_TRUE(device.live.empty());
}

} // namespace
