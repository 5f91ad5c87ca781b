//===- FaultInjectionTest.cpp - VYRE_RUNTIME_FAIL and runtime failures ----===//
//
// The parsing and counting shared by both runtimes (FaultInjection.h), and
// the one way they fail: a line on stderr, then abort.
//
//===----------------------------------------------------------------------===//

#include "vyre/Runtime/FaultInjection.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

using namespace vyre::runtime;

namespace {

/// Death tests re-run their test in a fresh process: the runtime's state
/// and the threads of other tests do not leak into the child.
class FaultInjectionDeathTest : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

FaultPlan parse(const std::string &spec) {
  FaultPlan plan{};
  std::string error;
  EXPECT_TRUE(parseFaultPlan(spec, plan, error)) << error;
  return plan;
}

/// What is wrong with `spec`, or "" if it parses.
std::string parseError(const std::string &spec) {
  FaultPlan plan{};
  plan.fill(7);
  std::string error;
  if (parseFaultPlan(spec, plan, error))
    return "";
  for (int64_t callNumber : plan)
    EXPECT_EQ(callNumber, 7) << "a malformed value leaves the plan alone";
  EXPECT_NE(error.find("VYRE_RUNTIME_FAIL='" + spec + "' is malformed: "),
            std::string::npos)
      << error;
  return error;
}

int64_t at(const FaultPlan &plan, FaultKind kind) {
  return plan[static_cast<size_t>(kind)];
}

TEST(FaultInjection, ParsesEachKind) {
  FaultPlan plan = parse("alloc:3");
  EXPECT_EQ(at(plan, FaultKind::Alloc), 3);
  EXPECT_EQ(at(plan, FaultKind::Stream), 0);
  EXPECT_EQ(at(plan, FaultKind::Launch), 0);

  plan = parse("stream:1,event:20,memcpy:300,launch:4,alloc:5");
  EXPECT_EQ(at(plan, FaultKind::Stream), 1);
  EXPECT_EQ(at(plan, FaultKind::Event), 20);
  EXPECT_EQ(at(plan, FaultKind::Memcpy), 300);
  EXPECT_EQ(at(plan, FaultKind::Launch), 4);
  EXPECT_EQ(at(plan, FaultKind::Alloc), 5);
}

TEST(FaultInjection, AnEmptyValueInjectsNothing) {
  for (int64_t callNumber : parse(""))
    EXPECT_EQ(callNumber, 0);
}

TEST(FaultInjection, ReportsWhatIsMalformed) {
  EXPECT_NE(parseError("alloc").find("'alloc' has no ':N'"), std::string::npos);
  EXPECT_NE(parseError("alloc:").find("'alloc:' has no call number"),
            std::string::npos);
  EXPECT_NE(parseError("alloc:0").find("call numbers start at 1"),
            std::string::npos);
  EXPECT_NE(parseError("alloc:-1").find("'-1' is not a decimal number"),
            std::string::npos);
  EXPECT_NE(parseError("alloc:3x").find("'3x' is not a decimal number"),
            std::string::npos);
  EXPECT_NE(parseError("alloc:99999999999999999999").find("is too large"),
            std::string::npos);
  EXPECT_NE(parseError("malloc:1").find("unknown kind 'malloc'"),
            std::string::npos);
  EXPECT_NE(parseError(" alloc:1").find("unknown kind ' alloc'"),
            std::string::npos);
  EXPECT_NE(parseError("alloc:1,alloc:2").find("kind 'alloc' appears twice"),
            std::string::npos);
  EXPECT_NE(parseError("alloc:1,").find("'' has no ':N'"), std::string::npos);
  EXPECT_NE(parseError(",launch:1").find("'' has no ':N'"), std::string::npos);
  // The message says what is expected.
  EXPECT_NE(parseError("x").find("expected KIND:N[,KIND:N...], KIND one of "
                                 "alloc, stream, event, memcpy, launch"),
            std::string::npos);
}

TEST(FaultInjection, AMalformedValueChangesNothing) {
  FaultInjection injection;
  std::string error;
  ASSERT_TRUE(injection.configure("launch:5", error)) << error;
  injection.check(FaultKind::Launch, "mgpuLaunchKernel");
  EXPECT_FALSE(injection.configure("launch:five", error));
  EXPECT_EQ(injection.getCallCount(FaultKind::Launch), 1);
}

TEST(FaultInjection, CountsOnlyPlannedKinds) {
  FaultInjection injection;
  std::string error;
  ASSERT_TRUE(injection.configure("alloc:100", error)) << error;
  for (int i = 0; i < 3; ++i) {
    injection.check(FaultKind::Alloc, "mgpuMemAlloc");
    injection.check(FaultKind::Memcpy, "mgpuMemcpy");
  }
  EXPECT_EQ(injection.getCallCount(FaultKind::Alloc), 3);
  EXPECT_EQ(injection.getCallCount(FaultKind::Memcpy), 0);
  // Configuring again restarts the counts.
  ASSERT_TRUE(injection.configure("alloc:100", error)) << error;
  EXPECT_EQ(injection.getCallCount(FaultKind::Alloc), 0);
}

TEST(FaultInjection, CountsEveryCallFromManyThreadsOnce) {
  constexpr int kThreads = 8, kCalls = 20000;
  FaultInjection injection;
  std::string error;
  // Planned past the last call: none fails, each is counted.
  ASSERT_TRUE(injection.configure(
      "stream:" + std::to_string(kThreads * kCalls + 1), error))
      << error;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i)
        injection.check(FaultKind::Stream, "mgpuStreamCreate");
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(injection.getCallCount(FaultKind::Stream), kThreads * kCalls);
}

TEST_F(FaultInjectionDeathTest, TheOneFailureFormat) {
  EXPECT_DEATH(reportFailure("cuMemAlloc(&pointer, sizeBytes)",
                             "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"),
               "^vyre runtime: cuMemAlloc\\(&pointer, sizeBytes\\) failed: "
               "CUDA_ERROR_OUT_OF_MEMORY \\(out of memory\\)\n$");
}

TEST_F(FaultInjectionDeathTest, FailsThePlannedCallAndNoOther) {
  FaultInjection injection;
  std::string error;
  ASSERT_TRUE(injection.configure("memcpy:3,launch:1", error)) << error;
  injection.check(FaultKind::Memcpy, "mgpuMemcpy");
  injection.check(FaultKind::Memcpy, "mgpuMemcpy");
  EXPECT_EQ(injection.getCallCount(FaultKind::Memcpy), 2);
  EXPECT_DEATH(injection.check(FaultKind::Memcpy, "mgpuMemcpy"),
               "^vyre runtime: mgpuMemcpy failed: injected fault memcpy:3 "
               "\\(VYRE_RUNTIME_FAIL\\)\n$");
  EXPECT_DEATH(injection.check(FaultKind::Launch, "mgpuLaunchKernel"),
               "^vyre runtime: mgpuLaunchKernel failed: injected fault "
               "launch:1 \\(VYRE_RUNTIME_FAIL\\)\n$");
}

TEST_F(FaultInjectionDeathTest, FailsThePlannedCallAmongThreads) {
  FaultInjection injection;
  std::string error;
  ASSERT_TRUE(injection.configure("event:30000", error)) << error;
  EXPECT_DEATH(
      {
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
          threads.emplace_back([&] {
            for (int i = 0; i < 10000; ++i)
              injection.check(FaultKind::Event, "mgpuEventCreate");
          });
        for (std::thread &thread : threads)
          thread.join();
      },
      "vyre runtime: mgpuEventCreate failed: injected fault event:30000 "
      "\\(VYRE_RUNTIME_FAIL\\)");
}

} // namespace
