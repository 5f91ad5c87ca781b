//===- ContiguousAlias.h - Which view an identity-layout alias points into -===//
//
// Part of --vyre-verify-gpu-streams (ContiguousAlias.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_VERIFICATION_GPUSTREAMS_CONTIGUOUSALIAS_H
#define VYRE_LIB_VERIFICATION_GPUSTREAMS_CONTIGUOUSALIAS_H

#include "mlir/IR/Value.h"

#include <optional>
#include <utility>

namespace mlir::vyre::gpu_streams {

/// If `value` is an identity-layout memref cast from an LLVM descriptor that
/// is computed from one view's aligned pointer and metadata only, that view;
/// otherwise null.
Value viewBehindAlias(Value value);

/// If `pointer` is computed from one view's aligned pointer and metadata
/// only (the first element's address), that view; otherwise null.
Value viewBehindPointer(Value pointer);

/// The buffer `value` names: views and the aliases above resolved to what
/// they view.
Value rootBehindViews(Value value);

/// The bytes of rootBehindViews(value) that `value` may touch, [begin, end),
/// where a `memref.view` at a constant offset, of a static shape (of
/// elements of a power of two bytes), stands between them: the lowering's
/// buffers carved out of one allocation. Above it, subviews, casts, shape
/// changes and the aliases above stay within its bytes, and so does a
/// reinterpret_cast whose elements are its source's; below it, casts and
/// further such memref.views. None otherwise (any byte).
std::optional<std::pair<int64_t, int64_t>> bytesWithinRoot(Value value);

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_CONTIGUOUSALIAS_H
