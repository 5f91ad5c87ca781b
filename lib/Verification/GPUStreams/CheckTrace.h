//===- CheckTrace.h - Races and leaks in one trace --------------*- C++ -*-===//
//
// Part of --vyre-verify-gpu-streams: builds happens-before over one trace
// and reports races, uses of a buffer before its alloc or after its
// dealloc, device work unfinished at the return, and streams and events
// left alive.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_VERIFICATION_GPUSTREAMS_CHECKTRACE_H
#define VYRE_LIB_VERIFICATION_GPUSTREAMS_CHECKTRACE_H

#include "HappensBefore.h"
#include "Reporter.h"
#include "Trace.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::vyre::gpu_streams {

/// Checks `trace`, a trace of `function` whose return is node `returnNode`
/// and whose happens-before is `before`, and reports what it finds through
/// `reporter`.
void checkTrace(FunctionOpInterface function, const Trace &trace,
                const HappensBefore &before, unsigned returnNode,
                Reporter &reporter);

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_CHECKTRACE_H
