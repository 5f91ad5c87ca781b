//===- RuntimeEnvironment.cpp - The runtime's settings, parsed strictly ---===//

#include "vyre/Runtime/RuntimeEnvironment.h"

using namespace vyre::runtime;

bool vyre::runtime::parsePoolCapacity(const char *value, size_t &capacity,
                                      std::string &error) {
  capacity = 256;
  if (!value || !*value)
    return true;
  // Digits only; past the largest value, stop before the number overflows.
  size_t parsed = 0;
  bool valid = true;
  for (const char *c = value; *c && valid; ++c) {
    valid = *c >= '0' && *c <= '9';
    parsed = parsed * 10 + size_t(*c - '0');
    valid = valid && parsed <= kMaxPoolCapacity;
  }
  if (!valid) {
    error = "VYRE_RUNTIME_POOL_CAPACITY='" + std::string(value) +
            "': expected a decimal number from 0 (no pooling) to " +
            std::to_string(kMaxPoolCapacity);
    return false;
  }
  capacity = parsed;
  return true;
}

bool vyre::runtime::parseStatsSwitch(const char *value, bool &enabled,
                                     std::string &error) {
  enabled = false;
  if (!value || !*value || std::string(value) == "0")
    return true;
  if (std::string(value) == "1") {
    enabled = true;
    return true;
  }
  error = "VYRE_RUNTIME_STATS='" + std::string(value) +
          "': expected 1 (print the counts at exit) or 0";
  return false;
}
