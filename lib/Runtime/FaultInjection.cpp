//===- FaultInjection.cpp - Runtime failures and faults for tests ---------===//

#include "vyre/Runtime/FaultInjection.h"

#include <cstdio>
#include <cstdlib>

using namespace vyre::runtime;

void vyre::runtime::reportFatalError(const std::string &message) {
  // One write, so that lines from several threads do not interleave.
  std::fprintf(stderr, "vyre runtime: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

void vyre::runtime::reportFailure(const char *call, const std::string &reason) {
  reportFatalError(std::string(call) + " failed: " + reason);
}

static constexpr FaultKind kFaultKinds[] = {FaultKind::Alloc, FaultKind::Stream,
                                            FaultKind::Event, FaultKind::Memcpy,
                                            FaultKind::Launch};
static_assert(sizeof(kFaultKinds) / sizeof(kFaultKinds[0]) == kNumFaultKinds,
              "every fault kind is listed");

const char *vyre::runtime::getFaultKindName(FaultKind kind) {
  switch (kind) {
  case FaultKind::Alloc:
    return "alloc";
  case FaultKind::Stream:
    return "stream";
  case FaultKind::Event:
    return "event";
  case FaultKind::Memcpy:
    return "memcpy";
  case FaultKind::Launch:
    return "launch";
  }
  return "unknown";
}

/// The largest call number accepted: a count never reaches it.
static constexpr int64_t kMaxCallNumber = int64_t(1) << 62;

/// Parses one `KIND:N`; returns an empty string or what is wrong with it.
static std::string parseFault(const std::string &item, FaultPlan &plan) {
  size_t colon = item.find(':');
  if (colon == std::string::npos)
    return "'" + item + "' has no ':N'";
  std::string name = item.substr(0, colon);
  std::string number = item.substr(colon + 1);
  const FaultKind *kind = nullptr;
  for (const FaultKind &candidate : kFaultKinds)
    if (name == getFaultKindName(candidate))
      kind = &candidate;
  if (!kind)
    return "unknown kind '" + name + "'";
  if (number.empty())
    return "'" + item + "' has no call number";
  int64_t value = 0;
  for (char digit : number) {
    if (digit < '0' || digit > '9')
      return "call number '" + number + "' is not a decimal number";
    value = value * 10 + (digit - '0');
    if (value > kMaxCallNumber)
      return "call number '" + number + "' is too large";
  }
  if (value == 0)
    return "call numbers start at 1, not 0";
  int64_t &slot = plan[static_cast<size_t>(*kind)];
  if (slot != 0)
    return "kind '" + name + "' appears twice";
  slot = value;
  return "";
}

bool vyre::runtime::parseFaultPlan(const std::string &spec, FaultPlan &plan,
                                   std::string &error) {
  FaultPlan parsed{};
  if (!spec.empty()) {
    size_t begin = 0;
    while (true) {
      size_t end = spec.find(',', begin);
      std::string item = spec.substr(begin, end - begin);
      std::string problem = parseFault(item, parsed);
      if (!problem.empty()) {
        error = "VYRE_RUNTIME_FAIL='" + spec + "' is malformed: " + problem +
                " (expected KIND:N[,KIND:N...], KIND one of alloc, stream, "
                "event, memcpy, launch, N from 1)";
        return false;
      }
      if (end == std::string::npos)
        break;
      begin = end + 1;
    }
  }
  plan = parsed;
  return true;
}

bool FaultInjection::configure(const std::string &spec, std::string &error) {
  FaultPlan plan;
  if (!parseFaultPlan(spec, plan, error))
    return false;
  for (size_t kind = 0; kind < kNumFaultKinds; ++kind) {
    // Disarmed while its count restarts.
    failAt[kind] = 0;
    calls[kind] = 0;
    failAt[kind] = plan[kind];
  }
  return true;
}

void FaultInjection::check(FaultKind kind, const char *call) {
  auto index = static_cast<size_t>(kind);
  int64_t planned = failAt[index].load(std::memory_order_relaxed);
  if (planned == 0)
    return;
  int64_t number = calls[index].fetch_add(1, std::memory_order_relaxed) + 1;
  if (number != planned)
    return;
  reportFailure(call, "injected fault " + std::string(getFaultKindName(kind)) +
                          ":" + std::to_string(planned) +
                          " (VYRE_RUNTIME_FAIL)");
}

int64_t FaultInjection::getCallCount(FaultKind kind) const {
  return calls[static_cast<size_t>(kind)].load(std::memory_order_relaxed);
}

FaultInjection &vyre::runtime::faultInjection() {
  static FaultInjection *instance = [] {
    // Never destroyed: calls from other threads may outlive static
    // destruction at exit.
    auto *injection = new FaultInjection();
    const char *spec = std::getenv("VYRE_RUNTIME_FAIL");
    std::string error;
    if (spec && !injection->configure(spec, error))
      reportFatalError(error);
    return injection;
  }();
  return *instance;
}
