//===- HostRuntimeTest.cpp - The host runtime's entry points --------------===//
//
// Calls the mgpu* functions of libvyre_host_runtime.so as lowered code does:
// the faults VYRE_RUNTIME_FAIL injects and the message each gives, a failed
// allocation, zero-size allocations, copies and host registrations, and
// exact counts under calls from several threads.
//
//===----------------------------------------------------------------------===//

#include "vyre/Runtime/CudaRuntime.h"
#include "vyre/Runtime/FaultInjection.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace vyre::runtime;

/// Under a sanitizer, an allocation too large to make returns null, as it
/// does without one, instead of ending the process with the sanitizer's
/// report: the runtime's own report is what is tested.
extern "C" const char *__asan_default_options() {
  return "allocator_may_return_null=1";
}
extern "C" const char *__tsan_default_options() {
  return "allocator_may_return_null=1";
}

namespace {

/// More bytes than any allocator gives (4 EiB).
constexpr uint64_t kTooManyBytes = uint64_t(1) << 62;

/// Death tests re-run their test alone in a fresh process; a fault planned
/// in this process is withdrawn after each test.
class HostRuntimeDeathTest : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
  void TearDown() override {
    std::string error;
    EXPECT_TRUE(faultInjection().configure("", error)) << error;
  }
  /// Plans the faults of `spec` (a VYRE_RUNTIME_FAIL value).
  static void plan(const char *spec) {
    std::string error;
    ASSERT_TRUE(faultInjection().configure(spec, error)) << error;
  }
};

/// A ranked memref descriptor: {allocated, aligned, offset, sizes[rank],
/// strides[rank]}.
std::vector<int64_t> memref(void *data, std::vector<int64_t> sizes,
                            std::vector<int64_t> strides) {
  auto address = reinterpret_cast<int64_t>(data);
  std::vector<int64_t> fields = {address, address, 0};
  fields.insert(fields.end(), sizes.begin(), sizes.end());
  fields.insert(fields.end(), strides.begin(), strides.end());
  return fields;
}

void registerMemRef(std::vector<int64_t> &descriptor) {
  int64_t rank = static_cast<int64_t>(descriptor.size() - 3) / 2;
  mgpuMemHostRegisterMemRef(rank, descriptor.data(), sizeof(float));
}

void unregisterMemRef(std::vector<int64_t> &descriptor) {
  int64_t rank = static_cast<int64_t>(descriptor.size() - 3) / 2;
  mgpuMemHostUnregisterMemRef(rank, descriptor.data(), sizeof(float));
}

void launch(void *stream) {
  mgpuLaunchKernel(const_cast<char *>("kernel"), 1, 1, 1, 32, 1, 1, 0, stream,
                   nullptr, nullptr, 0);
}

RuntimeStats readStats() {
  RuntimeStats stats;
  vyreRuntimeStatsRead(&stats);
  return stats;
}

TEST_F(HostRuntimeDeathTest, AnAllocFaultFailsThePlannedAllocation) {
  plan("alloc:3");
  void *first = mgpuMemAlloc(16, nullptr, false);
  ASSERT_NE(first, nullptr);
  // A zero-byte allocation is a call too.
  EXPECT_EQ(mgpuMemAlloc(0, nullptr, false), nullptr);
  EXPECT_DEATH(mgpuMemAlloc(16, nullptr, false),
               "^vyre runtime: mgpuMemAlloc failed: injected fault alloc:3 "
               "\\(VYRE_RUNTIME_FAIL\\)\n$");
  mgpuMemFree(first, nullptr);
}

TEST_F(HostRuntimeDeathTest, AStreamFaultFailsThePlannedStreamCreate) {
  plan("stream:2");
  void *stream = mgpuStreamCreate();
  EXPECT_DEATH(mgpuStreamCreate(),
               "^vyre runtime: mgpuStreamCreate failed: injected fault "
               "stream:2 \\(VYRE_RUNTIME_FAIL\\)\n$");
  mgpuStreamDestroy(stream);
}

TEST_F(HostRuntimeDeathTest, AnEventFaultFailsThePlannedEventCreate) {
  plan("event:2");
  void *event = mgpuEventCreate();
  EXPECT_DEATH(mgpuEventCreate(),
               "^vyre runtime: mgpuEventCreate failed: injected fault "
               "event:2 \\(VYRE_RUNTIME_FAIL\\)\n$");
  mgpuEventDestroy(event);
}

TEST_F(HostRuntimeDeathTest, AMemcpyFaultFailsThePlannedCopy) {
  plan("memcpy:2");
  char source[4] = "abc", target[4] = {};
  mgpuMemcpy(target, source, sizeof(source), nullptr);
  EXPECT_STREQ(target, "abc");
  EXPECT_DEATH(mgpuMemcpy(target, source, sizeof(source), nullptr),
               "^vyre runtime: mgpuMemcpy failed: injected fault memcpy:2 "
               "\\(VYRE_RUNTIME_FAIL\\)\n$");
}

TEST_F(HostRuntimeDeathTest, ALaunchFaultFailsThePlannedLaunch) {
  plan("launch:1");
  EXPECT_DEATH(launch(nullptr),
               "^vyre runtime: mgpuLaunchKernel failed: injected fault "
               "launch:1 \\(VYRE_RUNTIME_FAIL\\)\n$");
}

TEST_F(HostRuntimeDeathTest, TheEnvironmentPlansTheFaults) {
  // The child runs this test alone, in a fresh process: its runtime starts
  // after the variable is set.
  EXPECT_DEATH(
      {
        setenv("VYRE_RUNTIME_FAIL", "memcpy:9,launch:2", 1);
        mgpuModuleLoad(nullptr, 0);
        launch(nullptr);
        launch(nullptr);
      },
      "^vyre runtime: mgpuLaunchKernel failed: injected fault launch:2 "
      "\\(VYRE_RUNTIME_FAIL\\)\n$");
}

TEST_F(HostRuntimeDeathTest, AMalformedVariableIsReportedWhenTheRuntimeStarts) {
  EXPECT_DEATH(
      {
        setenv("VYRE_RUNTIME_FAIL", "launch:two", 1);
        mgpuModuleLoad(nullptr, 0);
      },
      "^vyre runtime: VYRE_RUNTIME_FAIL='launch:two' is malformed: call "
      "number 'two' is not a decimal number \\(expected KIND:N");
}

TEST_F(HostRuntimeDeathTest, AFailedAllocationIsReportedNotReturned) {
  EXPECT_DEATH(mgpuMemAlloc(kTooManyBytes, nullptr, false),
               "vyre runtime: mgpuMemAlloc failed: out of host memory "
               "\\(4611686018427387904 bytes\\)");
  EXPECT_DEATH(vyreAllocPinnedHost(kTooManyBytes),
               "vyre runtime: vyreAllocPinnedHost failed: out of host memory "
               "\\(4611686018427387904 bytes\\)");
}

TEST(HostRuntime, AllocationsAreZeroFilled) {
  auto *bytes = static_cast<unsigned char *>(mgpuMemAlloc(64, nullptr, false));
  ASSERT_NE(bytes, nullptr);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(bytes[i], 0);
  std::memset(bytes, 0xab, 64);
  mgpuMemFree(bytes, nullptr);
}

TEST(HostRuntime, ZeroBytesAreNullAndCopyNothing) {
  vyreProfileReset();
  vyreProfileEnable(true);
  RuntimeStats before = readStats();
  void *buffer = mgpuMemAlloc(0, nullptr, false);
  EXPECT_EQ(buffer, nullptr);
  mgpuMemcpy(buffer, buffer, 0, nullptr);
  char source[2] = "x", target[2] = "y";
  mgpuMemcpy(target, source, 0, nullptr);
  EXPECT_STREQ(target, "y");
  mgpuMemFree(buffer, nullptr);
  RuntimeStats counted = runtimeStatsSince(before, readStats());
  EXPECT_EQ(counted.memcpys, 2) << "zero-byte copies are counted";
  EXPECT_EQ(counted.hostSynchronizations, 1) << "the free's wait";
  double copyMicros, kernelMicros;
  int64_t copies, kernels;
  vyreProfileTotals(&copyMicros, &kernelMicros, &copies, &kernels);
  vyreProfileEnable(false);
  EXPECT_EQ(copies, 0) << "nor profiled";

  EXPECT_EQ(vyreAllocPinnedHost(0), nullptr);
  vyreFreePinnedHost(nullptr);
}

TEST(HostRuntime, ATileCopyMovesRowsAPitchApart) {
  // A 3x4 tile of a 5x8 array (rows 8 floats apart) into a packed 3x4
  // buffer (rows 4 floats apart), and back into another array's tile.
  float source[5][8], packed[3][4] = {}, target[5][8] = {};
  for (int row = 0; row < 5; ++row)
    for (int column = 0; column < 8; ++column)
      source[row][column] = float(row * 10 + column);
  RuntimeStats before = readStats();
  void *stream = mgpuStreamCreate();
  EXPECT_EQ(vyreMemcpy2DAsync(packed, 4 * sizeof(float), &source[1][2],
                              8 * sizeof(float), 4 * sizeof(float), 3, stream),
            stream)
      << "returns its stream";
  vyreMemcpy2DAsync(&target[1][2], 8 * sizeof(float), packed,
                    4 * sizeof(float), 4 * sizeof(float), 3, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  for (int row = 0; row < 3; ++row)
    for (int column = 0; column < 4; ++column)
      EXPECT_EQ(packed[row][column], source[row + 1][column + 2]);
  for (int row = 0; row < 5; ++row)
    for (int column = 0; column < 8; ++column) {
      bool inTile = row >= 1 && row < 4 && column >= 2 && column < 6;
      EXPECT_EQ(target[row][column], inTile ? source[row][column] : 0.0f)
          << "row " << row << ", column " << column;
    }
  EXPECT_EQ(runtimeStatsSince(before, readStats()).memcpys, 2);
  // No rows, or rows of no bytes, copy nothing.
  vyreMemcpy2DAsync(target, 0, nullptr, 0, 16, 0, nullptr);
  vyreMemcpy2DAsync(target, 0, nullptr, 0, 0, 3, nullptr);
}

TEST_F(HostRuntimeDeathTest, ATileCopyOfOverlappingRowsFails) {
  float data[16] = {};
  EXPECT_DEATH(vyreMemcpy2DAsync(data, 4, data + 8, 16, 16, 2, nullptr),
               "^vyre runtime: vyreMemcpy2DAsync failed: a pitch is smaller "
               "than a row \\(16 bytes per row, pitches 4 and 16\\)\n$");
}

TEST_F(HostRuntimeDeathTest, AMemcpyFaultCountsTileCopies) {
  plan("memcpy:2");
  char source[4] = "abc", target[4] = {};
  mgpuMemcpy(target, source, sizeof(source), nullptr);
  EXPECT_DEATH(vyreMemcpy2DAsync(target, 4, source, 4, 4, 1, nullptr),
               "^vyre runtime: vyreMemcpy2DAsync failed: injected fault "
               "memcpy:2 \\(VYRE_RUNTIME_FAIL\\)\n$");
}

TEST(HostRuntime, RegistersAndUnregistersHostMemory) {
  float data[16] = {};
  std::vector<int64_t> all = memref(data, {16}, {1});
  registerMemRef(all);
  unregisterMemRef(all);
  // Registered again once unregistered.
  registerMemRef(all);
  unregisterMemRef(all);
}

TEST_F(HostRuntimeDeathTest, RegisteringTwiceOrUnregisteringUnregisteredFails) {
  float data[16] = {};
  std::vector<int64_t> all = memref(data, {4, 4}, {4, 1});
  EXPECT_DEATH(unregisterMemRef(all),
               "^vyre runtime: mgpuMemHostUnregisterMemRef failed: memory at "
               "0x[0-9a-f]+ is not registered\n$");
  registerMemRef(all);
  EXPECT_DEATH(registerMemRef(all),
               "^vyre runtime: mgpuMemHostRegisterMemRef failed: memory at "
               "0x[0-9a-f]+ is already registered\n$");
  unregisterMemRef(all);
}

TEST_F(HostRuntimeDeathTest, AZeroSizeMemRefIsNeverRegistered) {
  float data[16] = {};
  std::vector<int64_t> all = memref(data, {16}, {1});
  // Empty views of `data`, one whose strides reach past its first element.
  std::vector<std::vector<int64_t>> empties = {memref(data, {0}, {1}),
                                               memref(data, {0, 8}, {16, 1}),
                                               memref(data, {4, 0}, {0, 1})};
  for (std::vector<int64_t> &empty : empties) {
    // Both calls do nothing, in either order and any number of times.
    unregisterMemRef(empty);
    registerMemRef(empty);
    registerMemRef(empty);
    unregisterMemRef(empty);
  }
  // Registering an empty view registered nothing...
  registerMemRef(empties[0]);
  EXPECT_DEATH(unregisterMemRef(all),
               "memory at 0x[0-9a-f]+ is not registered");
  // ...and unregistering one unregisters nothing.
  registerMemRef(all);
  unregisterMemRef(empties[1]);
  EXPECT_DEATH(registerMemRef(all),
               "memory at 0x[0-9a-f]+ is already registered");
  unregisterMemRef(all);
}

TEST(HostRuntime, CountsExactlyFromManyThreads) {
  constexpr int kThreads = 8, kCalls = 2000;
  vyreProfileReset();
  vyreProfileEnable(true);
  RuntimeStats before = readStats();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([] {
      float source[16] = {1, 2, 3};
      float data[16] = {};
      std::vector<int64_t> pinned = memref(data, {16}, {1});
      for (int i = 0; i < kCalls; ++i) {
        void *stream = mgpuStreamCreate();
        void *buffer = mgpuMemAlloc(sizeof(source), stream, false);
        mgpuMemcpy(buffer, source, sizeof(source), stream);
        launch(stream);
        void *event = mgpuEventCreate();
        mgpuEventRecord(event, stream);
        mgpuStreamWaitEvent(stream, event);
        mgpuEventSynchronize(event);
        mgpuEventDestroy(event);
        registerMemRef(pinned);
        mgpuMemcpy(data, buffer, sizeof(source), stream);
        unregisterMemRef(pinned);
        mgpuMemFree(buffer, stream);
        mgpuStreamSynchronize(stream);
        mgpuStreamDestroy(stream);
        EXPECT_EQ(data[2], 3);
      }
    });
  // The counts and totals are read while the threads write them.
  int64_t lastKernels = 0;
  for (int i = 0; i < 200; ++i) {
    double copyMicros, kernelMicros;
    int64_t copies, kernels;
    vyreProfileTotals(&copyMicros, &kernelMicros, &copies, &kernels);
    EXPECT_GE(kernels, lastKernels);
    lastKernels = kernels;
    EXPECT_LE(readStats().kernelLaunches - before.kernelLaunches,
              kThreads * kCalls);
  }
  for (std::thread &thread : threads)
    thread.join();
  vyreProfileEnable(false);

  RuntimeStats counted = runtimeStatsSince(before, readStats());
  EXPECT_EQ(counted.kernelLaunches, kThreads * kCalls);
  EXPECT_EQ(counted.memcpys, 2 * kThreads * kCalls);
  EXPECT_EQ(counted.streamsCreated + counted.streamsReused, kThreads * kCalls);
  EXPECT_EQ(counted.eventsCreated + counted.eventsReused, kThreads * kCalls);
  EXPECT_LE(counted.streamsCreated, kThreads) << "at most one per thread";
  // An event wait, the free's wait and the stream wait.
  EXPECT_EQ(counted.hostSynchronizations, 3 * kThreads * kCalls);
  double copyMicros, kernelMicros;
  int64_t copies, kernels;
  vyreProfileTotals(&copyMicros, &kernelMicros, &copies, &kernels);
  EXPECT_EQ(copies, 2 * kThreads * kCalls);
  EXPECT_EQ(kernels, kThreads * kCalls);
  vyreProfileReset();
  vyreProfileTotals(&copyMicros, &kernelMicros, &copies, &kernels);
  EXPECT_EQ(copies + kernels, 0);
}

} // namespace
