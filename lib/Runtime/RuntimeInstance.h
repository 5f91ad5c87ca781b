//===- RuntimeInstance.h - The process's runtime state ----------*- C++ -*-===//
//
// Shared by the files of one runtime library (CUDA or host): the device it
// drives, defined by that library, and the pooled streams and events over it.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_RUNTIME_RUNTIMEINSTANCE_H
#define VYRE_LIB_RUNTIME_RUNTIMEINSTANCE_H

#include "vyre/Runtime/StreamsAndEvents.h"

namespace vyre::runtime {

/// The device of this runtime library; defined once per library.
DeviceApi &device();

/// The process's pools and counts, created on first use. At exit the pools
/// are drained and, with VYRE_RUNTIME_STATS=1, the counts printed to stderr.
StreamsAndEvents &streamsAndEvents();

} // namespace vyre::runtime

#endif // VYRE_LIB_RUNTIME_RUNTIMEINSTANCE_H
