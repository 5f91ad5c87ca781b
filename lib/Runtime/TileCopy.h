//===- TileCopy.h - The arguments of a 2-D tile copy ------------*- C++ -*-===//
//
// Shared by both runtimes' `vyreMemcpy2DAsync` (CudaRuntime.h): a tile copy
// whose arguments CUDA would refuse fails the same way in both, before
// anything is copied.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_RUNTIME_TILECOPY_H
#define VYRE_LIB_RUNTIME_TILECOPY_H

#include "vyre/Runtime/FaultInjection.h"

#include <cstdint>
#include <string>

namespace vyre::runtime {

/// Fails (reportFailure) where the rows of a tile copy would overlap on
/// either side (a pitch smaller than a row), or a size is negative.
inline void checkTileCopy(int64_t dstPitch, int64_t srcPitch, int64_t rowBytes,
                          int64_t rows) {
  if (rowBytes < 0 || rows < 0)
    reportFailure("vyreMemcpy2DAsync",
                  "negative size (" + std::to_string(rows) + " rows of " +
                      std::to_string(rowBytes) + " bytes)");
  if (rows > 1 && (dstPitch < rowBytes || srcPitch < rowBytes))
    reportFailure("vyreMemcpy2DAsync",
                  "a pitch is smaller than a row (" + std::to_string(rowBytes) +
                      " bytes per row, pitches " + std::to_string(dstPitch) +
                      " and " + std::to_string(srcPitch) + ")");
}

} // namespace vyre::runtime

#endif // VYRE_LIB_RUNTIME_TILECOPY_H
