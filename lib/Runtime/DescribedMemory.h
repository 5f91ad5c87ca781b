//===- DescribedMemory.h - The memory a memref descriptor spans -*- C++ -*-===//
//
// `mgpuMemHostRegisterMemRef` and `mgpuMemHostUnregisterMemRef` receive a
// ranked memref descriptor; both runtimes register the bytes it spans.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_RUNTIME_DESCRIBEDMEMORY_H
#define VYRE_LIB_RUNTIME_DESCRIBEDMEMORY_H

#include <cstddef>
#include <cstdint>

namespace vyre::runtime {

/// The bytes of a memref: from `base`, `bytes` long.
struct DescribedMemory {
  void *base;
  size_t bytes;
};

/// The memory that the ranked memref `descriptor` ({allocated, aligned,
/// offset, sizes[rank], strides[rank]}) spans, from its lowest element to
/// its highest. A memref with an empty dimension spans no bytes.
inline DescribedMemory getDescribedMemory(int64_t rank, void *descriptor,
                                          int64_t elementSizeBytes) {
  auto *fields = static_cast<int64_t *>(descriptor);
  auto *aligned = reinterpret_cast<char *>(fields[1]);
  int64_t offset = fields[2];
  // Element offsets from the first element: [low, high].
  int64_t low = 0, high = 0;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t size = fields[3 + dim];
    if (size <= 0)
      return {aligned + offset * elementSizeBytes, 0};
    int64_t reach = (size - 1) * fields[3 + rank + dim];
    (reach < 0 ? low : high) += reach;
  }
  return {aligned + (offset + low) * elementSizeBytes,
          static_cast<size_t>((high - low + 1) * elementSizeBytes)};
}

} // namespace vyre::runtime

#endif // VYRE_LIB_RUNTIME_DESCRIBEDMEMORY_H
