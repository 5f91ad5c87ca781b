//===- RuntimeEnvironment.h - The runtime's settings, parsed strictly -*- C++ -*-===//
//
// Both runtimes read two settings from the environment when they start:
//  - VYRE_RUNTIME_POOL_CAPACITY: the idle streams (and events) each pool
//    keeps, a decimal number from 0 (no pooling) to 1,048,576; unset or
//    empty, 256;
//  - VYRE_RUNTIME_STATS: 1 prints the runtime's counts to stderr at exit, 0
//    (or unset, or empty) does not.
// Any other value (a sign, a letter, a number too large) is reported, with
// the variable, its value and what is accepted, and the runtime aborts when
// it starts (FaultInjection.h's reportFatalError), rather than taking a
// setting nobody asked for. (VYRE_RUNTIME_FAIL is FaultInjection.h's.)
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_RUNTIME_RUNTIMEENVIRONMENT_H
#define VYRE_RUNTIME_RUNTIMEENVIRONMENT_H

#include <cstddef>
#include <string>

namespace vyre::runtime {

/// The largest VYRE_RUNTIME_POOL_CAPACITY.
constexpr size_t kMaxPoolCapacity = size_t(1) << 20;

/// Parses a VYRE_RUNTIME_POOL_CAPACITY value (null: unset). Returns false,
/// with a message in `error`, when it is malformed.
bool parsePoolCapacity(const char *value, size_t &capacity,
                       std::string &error);

/// Parses a VYRE_RUNTIME_STATS value (null: unset). Returns false, with a
/// message in `error`, when it is neither 0 nor 1.
bool parseStatsSwitch(const char *value, bool &enabled, std::string &error);

} // namespace vyre::runtime

#endif // VYRE_RUNTIME_RUNTIMEENVIRONMENT_H
