//===- RuntimeEnvironmentTest.cpp - The runtime's settings, parsed --------===//

#include "vyre/Runtime/RuntimeEnvironment.h"

#include <gtest/gtest.h>

using namespace vyre::runtime;

namespace {

TEST(RuntimeEnvironment, PoolCapacityTakesDecimalNumbersInRange) {
  size_t capacity = 0;
  std::string error;
  ASSERT_TRUE(parsePoolCapacity(nullptr, capacity, error));
  EXPECT_EQ(capacity, 256u) << "unset: the default";
  ASSERT_TRUE(parsePoolCapacity("", capacity, error));
  EXPECT_EQ(capacity, 256u) << "empty: the default";
  ASSERT_TRUE(parsePoolCapacity("0", capacity, error));
  EXPECT_EQ(capacity, 0u);
  ASSERT_TRUE(parsePoolCapacity("1048576", capacity, error));
  EXPECT_EQ(capacity, kMaxPoolCapacity);
}

TEST(RuntimeEnvironment, PoolCapacityRefusesAnythingElse) {
  for (const char *value :
       {"abc", "-1", "+4", "12x", " 8", "1048577", "99999999999999999999999"}) {
    size_t capacity = 7;
    std::string error;
    EXPECT_FALSE(parsePoolCapacity(value, capacity, error)) << value;
    EXPECT_EQ(error, "VYRE_RUNTIME_POOL_CAPACITY='" + std::string(value) +
                         "': expected a decimal number from 0 (no pooling) "
                         "to 1048576");
  }
}

TEST(RuntimeEnvironment, StatsIsOneOrZero) {
  bool enabled = true;
  std::string error;
  ASSERT_TRUE(parseStatsSwitch(nullptr, enabled, error));
  EXPECT_FALSE(enabled);
  ASSERT_TRUE(parseStatsSwitch("0", enabled, error));
  EXPECT_FALSE(enabled);
  ASSERT_TRUE(parseStatsSwitch("1", enabled, error));
  EXPECT_TRUE(enabled);
  for (const char *value : {"yes", "2", "true", "01"}) {
    EXPECT_FALSE(parseStatsSwitch(value, enabled, error)) << value;
    EXPECT_EQ(error, "VYRE_RUNTIME_STATS='" + std::string(value) +
                         "': expected 1 (print the counts at exit) or 0");
  }
}

} // namespace
