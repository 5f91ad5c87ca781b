//===- ContiguousAlias.cpp - Which view an identity-layout alias points into
//===//
//
// gpu.memcpy is lowered by upstream for identity layouts only, so a copy of a
// contiguous view with an offset reaches the gpu dialect through an alias: a
// memref descriptor built in the LLVM dialect from the view's aligned pointer
// and offset, cast back to an identity-layout memref with
// `unrealized_conversion_cast`. The referee reads that structure itself: the
// alias touches the view it was computed from. A tile copy
// (vyreMemcpy2DAsync) takes the address of each side's first element, built
// the same way. The buffers the lowering carves out of one allocation are
// `memref.view`s of it at constant offsets: each touches its own bytes of it.
//
//===----------------------------------------------------------------------===//

#include "ContiguousAlias.h"

#include "vyre/Analysis/DeviceCosts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

Value mlir::vyre::gpu_streams::viewBehindAlias(Value value) {
  auto cast = value.getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast || cast->getNumOperands() != 1 || cast->getNumResults() != 1)
    return {};
  return viewBehindPointer(cast->getOperand(0));
}

Value mlir::vyre::gpu_streams::viewBehindPointer(Value pointer) {
  // Every op the value is computed from must be plain arithmetic on one
  // view's metadata: its aligned pointer, its offset, constants.
  Value view;
  auto noteView = [&](Value source) {
    if (view && view != source)
      return false;
    view = source;
    return true;
  };
  SmallVector<Value> work{pointer};
  llvm::DenseSet<Operation *> seen;
  while (!work.empty()) {
    Operation *definer = work.pop_back_val().getDefiningOp();
    if (!definer)
      return {};
    if (!seen.insert(definer).second)
      continue;
    if (auto aligned = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(definer)) {
      if (!noteView(aligned.getSource()))
        return {};
      continue;
    }
    if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(definer)) {
      if (!noteView(metadata.getSource()))
        return {};
      continue;
    }
    if (!isa<LLVM::InsertValueOp, LLVM::IntToPtrOp, LLVM::PoisonOp,
             LLVM::UndefOp, LLVM::ConstantOp, arith::AddIOp, arith::MulIOp,
             arith::IndexCastOp, arith::ConstantOp>(definer))
      return {};
    llvm::append_range(work, definer->getOperands());
  }
  return view;
}

Value mlir::vyre::gpu_streams::rootBehindViews(Value value) {
  while (Operation *definer = value.getDefiningOp()) {
    if (Value aliased = viewBehindAlias(value)) {
      value = aliased;
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(definer);
    if (!view || view.getViewDest() != value)
      break;
    value = view.getViewSource();
  }
  return value;
}

/// Whether the elements `cast` selects, at its static offset, sizes and
/// strides, are elements of its source, a static identity-layout memref of
/// the same element type.
static bool staysWithinSource(memref::ReinterpretCastOp cast) {
  auto source = dyn_cast<MemRefType>(cast.getSource().getType());
  if (!source || !source.hasStaticShape() || !source.getLayout().isIdentity() ||
      source.getElementType() != cast.getType().getElementType())
    return false;
  ArrayRef<int64_t> offsets = cast.getStaticOffsets();
  ArrayRef<int64_t> sizes = cast.getStaticSizes();
  ArrayRef<int64_t> strides = cast.getStaticStrides();
  if (offsets.size() != 1 || ShapedType::isDynamic(offsets.front()))
    return false;
  int64_t low = offsets.front(), high = offsets.front();
  for (auto [size, stride] : llvm::zip_equal(sizes, strides)) {
    if (ShapedType::isDynamic(size) || ShapedType::isDynamic(stride) ||
        size < 0 || std::abs(stride) > (int64_t(1) << 31) ||
        size > (int64_t(1) << 31))
      return false;
    if (size == 0)
      return true;
    int64_t reach = (size - 1) * stride;
    (reach < 0 ? low : high) += reach;
  }
  return low >= 0 && high < source.getNumElements();
}

std::optional<std::pair<int64_t, int64_t>>
mlir::vyre::gpu_streams::bytesWithinRoot(Value value) {
  // Walking down to the root: the first memref.view gives the size, and
  // each adds its offset.
  std::optional<int64_t> size;
  int64_t offset = 0;
  while (Operation *definer = value.getDefiningOp()) {
    if (Value aliased = viewBehindAlias(value)) {
      value = aliased;
      continue;
    }
    if (auto view = dyn_cast<memref::ViewOp>(definer)) {
      APInt shift;
      if (!matchPattern(view.getByteShift(), m_ConstantInt(&shift)) ||
          shift.isNegative() || shift.getActiveBits() > 62)
        return std::nullopt;
      if (!size) {
        // Elements whose LLVM alloc size exceeds their size (i24) reach
        // further than the type's bytes say.
        std::optional<uint64_t> elementBytes = vyre::getElementBytes(
            view.getType().getElementType(), view.getOperation());
        bool overflows = false;
        std::optional<uint64_t> bytes =
            vyre::getCopyBytes(view.getResult(), view, &overflows);
        if (!elementBytes || !llvm::isPowerOf2_64(*elementBytes) || !bytes ||
            overflows || *bytes >= (uint64_t(1) << 62))
          return std::nullopt;
        size = int64_t(*bytes);
      }
      offset += shift.getSExtValue();
      if (offset >= (int64_t(1) << 62))
        return std::nullopt;
      value = view.getSource();
      continue;
    }
    auto viewLike = dyn_cast<ViewLikeOpInterface>(definer);
    if (!viewLike || viewLike.getViewDest() != value)
      break;
    if (size) {
      // Below a memref.view, only a cast keeps the offsets counted so far
      // those of the root.
      if (!isa<memref::CastOp>(definer))
        return std::nullopt;
    } else if (auto cast = dyn_cast<memref::ReinterpretCastOp>(definer)) {
      // Above it, a reinterpret_cast may reach past its source, and counts
      // only where its elements are its source's.
      if (!staysWithinSource(cast))
        return std::nullopt;
    } else if (!isa<memref::SubViewOp, memref::CastOp, memref::CollapseShapeOp,
                    memref::ExpandShapeOp, memref::TransposeOp>(definer)) {
      // A view that selects elements of its source stays within its bytes
      // (reaching past a memref's elements is undefined); any other may not.
      return std::nullopt;
    }
    value = viewLike.getViewSource();
  }
  if (!size)
    return std::nullopt;
  return std::make_pair(offset, offset + *size);
}
