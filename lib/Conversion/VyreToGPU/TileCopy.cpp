//===- TileCopy.cpp - Copies of strided views as 2-D tiles ----------------===//
//
// Part of --convert-vyre-to-gpu. `gpu.memcpy` copies one contiguous range.
// A tile of a larger host array (`memref<64x128xf32, strided<[12288, 1],
// offset: ?>>`: 64 rows of 128 elements, 12288 elements apart) is not one,
// but it is what `cuMemcpy2DAsync` copies: rows of contiguous bytes, each a
// pitch after the last, on both sides. Such a copy becomes a call of vyre's
// runtime entry `vyreMemcpy2DAsync(dst, dstPitch, src, srcPitch, rowBytes,
// rows, stream)` (include/vyre/Runtime/CudaRuntime.h), on the stream the
// copy was given.
//
// A view is a tile when, with its dimensions of size 1 left out, all but the
// outermost form one contiguous run (the innermost has stride 1, each other
// spans the next): the outermost then counts the rows, and its stride is the
// pitch. That stride may be dynamic (read at run time from the view's
// metadata); the shape and the other strides must be static. A contiguous
// side of a copy whose other side is a tile is split into the same rows. A
// strided 1-D view is a tile whose rows are one element each.
//
// The call returns its stream. The copy's token is an
// `unrealized_conversion_cast` of that pointer to `!gpu.async.token`:
// gpu-to-llvm folds it into the stream, so later ops on the token run after
// the copy. A join cannot name such a token (gpu-to-llvm takes a token it
// cannot trace to a stream creation for an event), so the stream's tokens
// are waited for through events from then on (StreamTracker::
// markUntraceable).
//
//===----------------------------------------------------------------------===//

#include "VyreToGPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::vyre_to_gpu;

namespace {

/// A view as the rows of a tile (see the file comment).
struct RowLayout {
  /// Whether the view is one contiguous run.
  bool contiguous = false;
  int64_t rows = 1, rowElements = 1;
  int64_t rowDim = -1, pitch = 0;
};

} // namespace

/// `type` as rows of contiguous elements, if it is a tile.
static std::optional<RowLayout> rowLayoutOf(MemRefType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  SmallVector<int64_t> dims;
  for (int64_t dim = 0, rank = type.getRank(); dim < rank; ++dim)
    if (type.getDimSize(dim) != 1)
      dims.push_back(dim);
  RowLayout layout;
  // The contiguous run at the inside: from `first` on.
  size_t first = dims.size();
  int64_t run = 1;
  while (first > 0 && strides[dims[first - 1]] == run) {
    --first;
    run *= type.getDimSize(dims[first]);
  }
  layout.rowElements = run;
  if (first == 0) {
    layout.contiguous = true;
    return layout;
  }
  if (first != 1)
    return std::nullopt;
  layout.rowDim = dims.front();
  layout.rows = type.getDimSize(layout.rowDim);
  layout.pitch = strides[layout.rowDim];
  return layout;
}

FailureOr<CopyOperands> VyreToGPULowering::copyOperands(Operation *copy,
                                                        Value target,
                                                        Value source) {
  auto targetType = cast<MemRefType>(target.getType());
  auto sourceType = cast<MemRefType>(source.getType());
  auto isContiguous = [](MemRefType type) {
    return type.getLayout().isIdentity() ||
           memref::isStaticShapeAndContiguousRowMajor(type);
  };
  CopyOperands operands;
  if (isContiguous(targetType) && isContiguous(sourceType)) {
    FailureOr<Value> copyTarget = contiguousBuffer(copy, "target", target);
    FailureOr<Value> copySource = contiguousBuffer(copy, "source", source);
    if (failed(copyTarget) || failed(copySource))
      return failure();
    operands.target = *copyTarget;
    operands.source = *copySource;
    return operands;
  }

  std::optional<RowLayout> targetRows = rowLayoutOf(targetType);
  std::optional<RowLayout> sourceRows = rowLayoutOf(sourceType);
  auto refuse = [&](StringRef role, MemRefType type, StringRef why) {
    return copy->emitOpError("cannot be lowered: '")
           << role << "' is a view of type " << type << ", " << why;
  };
  for (auto [role, type, rows] :
       {std::make_tuple(StringRef("target"), targetType, &targetRows),
        std::make_tuple(StringRef("source"), sourceType, &sourceRows)}) {
    if (!*rows && type.getLayout().isIdentity())
      return copy->emitOpError("cannot be lowered: '")
             << role << "' has the dynamic shape of " << type
             << ", and the other side is a strided view, which is copied as "
                "a 2-D tile (vyreMemcpy2DAsync): that needs static sizes";
    if (!*rows)
      return refuse(role, type,
                    "which is neither contiguous nor the rows of a 2-D tile "
                    "(or has a dynamic shape, or dynamic strides inside a "
                    "row); a copy moves one contiguous range (gpu.memcpy) "
                    "or one 2-D tile (vyreMemcpy2DAsync)");
    if (type.getMemorySpace())
      return refuse(role, type, "in a memory space other than the default");
    if (!(*rows)->contiguous && !ShapedType::isDynamic((*rows)->pitch) &&
        (*rows)->rows > 1 && (*rows)->pitch < (*rows)->rowElements)
      return refuse(role, type,
                    "whose rows overlap (a stride smaller than a row)");
  }
  // The tile's rows: those of a strided side. The verifier gave both sides
  // one static shape, so two strided sides have the same rows, and a
  // contiguous side splits into them.
  const RowLayout &tile = targetRows->contiguous ? *sourceRows : *targetRows;
  DataLayout layout = DataLayout::closest(copy);
  uint64_t elementBytes = layout.getTypeSize(targetType.getElementType());
  if (elementBytes == 0)
    return refuse("target", targetType, "whose element type has no size");

  auto sideOf = [&](Value view, const RowLayout &rows) {
    TileSide side;
    side.view = view;
    if (rows.contiguous) {
      side.pitch = tile.rowElements;
    } else {
      side.rowDim = rows.rowDim;
      side.pitch = rows.pitch;
    }
    return side;
  };
  operands.isTile = true;
  operands.target = target;
  operands.source = source;
  operands.targetRows = sideOf(target, *targetRows);
  operands.sourceRows = sideOf(source, *sourceRows);
  operands.rows = tile.rows;
  operands.rowElements = tile.rowElements;
  operands.elementBytes = static_cast<int64_t>(elementBytes);
  return operands;
}

Value VyreToGPULowering::emitCopy(const CopyOperands &operands,
                                  Value dependency, Location loc) {
  if (!operands.isTile)
    return gpu::MemcpyOp::create(builder, loc, tokenType, dependency,
                                 operands.target, operands.source)
        .getAsyncToken();
  Type i64 = builder.getI64Type();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(builder, loc, i64,
                                     builder.getI64IntegerAttr(value));
  };
  int64_t elementBytes = operands.elementBytes;
  auto pitchBytes = [&](const TileSide &side) -> Value {
    if (!ShapedType::isDynamic(side.pitch))
      return constant(side.pitch * elementBytes);
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, side.view);
    Value stride = metadata.getStrides()[side.rowDim];
    Value bytes = arith::MulIOp::create(
        builder, loc, stride,
        arith::ConstantIndexOp::create(builder, loc, elementBytes));
    return arith::IndexCastOp::create(builder, loc, i64, bytes);
  };
  Value dst = firstElementPointer(builder, loc, operands.target, elementBytes);
  Value dstPitch = pitchBytes(operands.targetRows);
  Value src = firstElementPointer(builder, loc, operands.source, elementBytes);
  Value srcPitch = pitchBytes(operands.sourceRows);
  Value stream = runtime.copyTile(
      dst, dstPitch, src, srcPitch,
      constant(operands.rowElements * elementBytes), constant(operands.rows),
      dependency, loc);
  Value token =
      UnrealizedConversionCastOp::create(builder, loc, tokenType, stream)
          .getResult(0);
  runtime.setStreamOf(token, stream);
  return token;
}
