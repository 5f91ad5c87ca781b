//===- DeviceCosts.h - What a program says about its device work -*- C++ -*-===//
//
// The figures the schedule simulator and --overlap-copies' cost model both
// read off a program: a dispatch's declared kernel time, and how many bytes a
// copy moves.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_ANALYSIS_DEVICECOSTS_H
#define VYRE_ANALYSIS_DEVICECOSTS_H

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <optional>

namespace mlir::vyre {

/// The attribute a dispatch declares its kernel time with, in microseconds
/// (the dialect verifies it).
constexpr llvm::StringLiteral kKernelCostAttrName =
    VyreDialect::getKernelCostAttrName();
/// Beside `vyre.cost_us`: the time is --vyre-estimate-kernel-costs'
/// estimate.
constexpr llvm::StringLiteral kKernelCostEstimatedAttrName =
    "vyre.cost_estimated";
/// Beside `vyre.cost_us`: the time is one a run measured
/// (--vyre-apply-profile).
constexpr llvm::StringLiteral kKernelCostProfiledAttrName = "vyre.cost_profiled";

/// A dispatch's `vyre.cost_us`, if it has one (it may be negative: callers
/// that time it refuse that).
std::optional<double> getDeclaredKernelMicros(Operation *dispatch);

/// The size in memory of one element of `type` under the data layout in
/// scope at `at`, for the types that have one (integers, floats, index,
/// complex numbers and fixed-size vectors of them).
std::optional<uint64_t> getElementBytes(Type type, Operation *at);
/// The same, under `layout`.
std::optional<uint64_t> getElementBytes(Type type, const DataLayout &layout);

/// The bytes a copy of the memref `buffer` moves: its static shape times its
/// element size, computed exactly; none for a dynamic shape, an element
/// without a size, or a size over 2^64 - 1 bytes (then `*overflows` is set,
/// if given).
std::optional<uint64_t> getCopyBytes(Value buffer, Operation *at,
                                     bool *overflows = nullptr);
/// The same, under `layout`.
std::optional<uint64_t> getCopyBytes(Value buffer, const DataLayout &layout,
                                     bool *overflows = nullptr);

/// The data layout in scope at an op, built once per scope (the closest
/// module or op with a data layout): `DataLayout::closest` builds a new one
/// at each call, which costs more than the size asked of it.
class DataLayoutCache {
public:
  const DataLayout &closest(Operation *at);

private:
  llvm::DenseMap<Operation *, std::unique_ptr<DataLayout>> layouts;
};

} // namespace mlir::vyre

#endif // VYRE_ANALYSIS_DEVICECOSTS_H
