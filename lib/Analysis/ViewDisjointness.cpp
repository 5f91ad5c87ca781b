//===- ViewDisjointness.cpp - Views of one buffer that never meet -*- C++ -*-===//
//
// Compares two subviews of one buffer dimension by dimension: a dimension in
// which both select static, disjoint index ranges separates them.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/ViewDisjointness.h"

#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <optional>

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// The indices [first, last] a subview selects in one dimension of its
/// source, when they are static; nullopt where they are not, and an empty
/// range (first > last) where the size is 0.
struct IndexRange {
  int64_t first, last;
};

std::optional<IndexRange> staticRange(memref::SubViewOp view, unsigned dim) {
  std::optional<int64_t> offset = getConstantIntValue(view.getMixedOffsets()[dim]);
  std::optional<int64_t> size = getConstantIntValue(view.getMixedSizes()[dim]);
  std::optional<int64_t> stride = getConstantIntValue(view.getMixedStrides()[dim]);
  if (!offset || !size || !stride || *offset < 0 || *size < 0 || *stride < 0)
    return std::nullopt;
  if (*size == 0)
    return IndexRange{0, -1};
  // The last index, computed without overflowing: a view past the end of
  // its buffer is undefined anyway, and a range that overflows is not
  // compared.
  int64_t span;
  if (llvm::MulOverflow(*size - 1, *stride, span))
    return std::nullopt;
  int64_t last;
  if (llvm::AddOverflow(*offset, span, last))
    return std::nullopt;
  return IndexRange{*offset, last};
}

} // namespace

/// The subview behind `value`, through memref.cast ops (which change the
/// type, not the elements).
static memref::SubViewOp subviewBehind(Value value) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  return value.getDefiningOp<memref::SubViewOp>();
}

bool mlir::vyre::areDisjointViews(Value lhs, Value rhs) {
  memref::SubViewOp lhsView = subviewBehind(lhs);
  memref::SubViewOp rhsView = subviewBehind(rhs);
  if (!lhsView || !rhsView || lhsView.getSource() != rhsView.getSource())
    return false;
  // With the identity layout, distinct indices are distinct elements.
  auto sourceType = dyn_cast<MemRefType>(lhsView.getSource().getType());
  if (!sourceType || !sourceType.getLayout().isIdentity())
    return false;
  for (unsigned dim = 0, rank = sourceType.getRank(); dim < rank; ++dim) {
    std::optional<IndexRange> lhsRange = staticRange(lhsView, dim);
    std::optional<IndexRange> rhsRange = staticRange(rhsView, dim);
    if (!lhsRange || !rhsRange)
      continue;
    if (lhsRange->first > lhsRange->last || rhsRange->first > rhsRange->last)
      return true;
    if (lhsRange->last < rhsRange->first || rhsRange->last < lhsRange->first)
      return true;
  }
  return false;
}

bool mlir::vyre::touchesOnlyOtherBytes(Operation *op,
                                       const OpFootprint &footprint,
                                       Value view, Value root,
                                       HostBufferAliasing &aliasing) {
  if (footprint.unknown || op->getNumRegions() != 0 ||
      footprint.device.anyHostWrite || footprint.host.anyHostWrite ||
      footprint.device.anyHostRead || footprint.host.anyHostRead)
    return false;
  // Every access of such an op goes through an operand (a kernel reaches no
  // more of a buffer than the view it is given), so the views decide,
  // whether the root is host memory or a slot too.
  if (footprint.device.slots.isUnknown() || footprint.host.slots.isUnknown())
    return false;
  bool touchesRoot = false;
  for (Value operand : op->getOperands()) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    Value operandRoot = SlotAccessAnalysis::resolveRoot(operand);
    if (operandRoot != root) {
      // A buffer vyre.alloc made is device memory of its own.
      if (operandRoot.getDefiningOp<AllocOp>())
        continue;
      if (aliasing.mayAlias(operandRoot, root))
        return false;
      continue;
    }
    if (!areDisjointViews(operand, view))
      return false;
    touchesRoot = true;
  }
  return touchesRoot;
}

/// Whether `op` is a copy, whose only accesses are to its two operands.
static bool isCopy(Operation *op) {
  return isa<CopyH2DOp, CopyD2HOp, CopyH2DAsyncOp, CopyD2HAsyncOp>(op);
}

bool mlir::vyre::copiesTouchOnlyDisjointBytes(Operation *lhs, Operation *rhs,
                                              HostBufferAliasing &aliasing) {
  if (!isCopy(lhs) || !isCopy(rhs))
    return false;
  auto buffers = [](Operation *copy) {
    SmallVector<Value, 2> memrefs;
    for (Value operand : copy->getOperands())
      if (isa<BaseMemRefType>(operand.getType()))
        memrefs.push_back(operand);
    return memrefs;
  };
  for (Value x : buffers(lhs)) {
    Value xRoot = SlotAccessAnalysis::resolveRoot(x);
    for (Value y : buffers(rhs)) {
      Value yRoot = SlotAccessAnalysis::resolveRoot(y);
      if (xRoot == yRoot) {
        if (!areDisjointViews(x, y))
          return false;
        continue;
      }
      // A vyre.alloc buffer is device memory of its own.
      if (xRoot.getDefiningOp<AllocOp>() || yRoot.getDefiningOp<AllocOp>())
        continue;
      if (aliasing.mayAlias(xRoot, yRoot))
        return false;
    }
  }
  return true;
}
