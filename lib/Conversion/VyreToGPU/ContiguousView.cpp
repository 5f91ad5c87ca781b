//===- ContiguousView.cpp - Copies of contiguous views with an offset -----===//
//
// Upstream's gpu-to-llvm lowers `gpu.memcpy` only for buffers with an
// identity layout: it copies from the descriptor's aligned pointer and
// ignores its offset. A contiguous view with an offset (a row of a host
// array: `memref<256xf32, strided<[1], offset: ?>>`) therefore cannot be
// handed to it as it is. The copy gets an identity-layout alias instead: a
// memref descriptor, built in the LLVM dialect, whose pointers are the view's
// first element (aligned pointer + offset * element size) and whose offset is
// 0. An `unrealized_conversion_cast` makes it a memref again; upstream's
// conversion folds that cast into the descriptor it builds for the memcpy.
// The copy stays a `gpu.memcpy async` on its stream, with its token.
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

Value vyre_to_gpu::firstElementPointer(OpBuilder &builder, Location loc,
                                       Value view, int64_t elementBytes) {
  // Aligned pointer + offset * element size.
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, view);
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, view);
  Value elementSize = arith::ConstantIndexOp::create(builder, loc, elementBytes);
  Value offsetBytes = arith::MulIOp::create(builder, loc, metadata.getOffset(),
                                            elementSize);
  Value address = arith::AddIOp::create(builder, loc, aligned, offsetBytes);
  Value address64 =
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext()),
      address64);
}

/// The alias of `view`, which has a static shape and a contiguous row-major
/// layout, in the default memory space.
static Value buildAlias(OpBuilder &builder, Location loc, Value view,
                        int64_t elementBytes) {
  auto type = cast<MemRefType>(view.getType());
  MLIRContext *context = builder.getContext();
  int64_t rank = type.getRank();
  Type i64 = builder.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  // A 0-d memref's descriptor has no sizes and strides.
  auto arrayType = LLVM::LLVMArrayType::get(i64, rank);
  SmallVector<Type> fields{ptrType, ptrType, i64};
  if (rank != 0)
    fields.append({arrayType, arrayType});
  auto descriptorType = LLVM::LLVMStructType::getLiteral(context, fields);
  Value pointer = firstElementPointer(builder, loc, view, elementBytes);

  llvm::SmallDenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t value) -> Value {
    Value &existing = constants[value];
    if (!existing)
      existing = LLVM::ConstantOp::create(builder, loc, i64,
                                          builder.getI64IntegerAttr(value));
    return existing;
  };
  Value descriptor = LLVM::PoisonOp::create(builder, loc, descriptorType);
  descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor, pointer,
                                           ArrayRef<int64_t>{0});
  descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor, pointer,
                                           ArrayRef<int64_t>{1});
  descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor,
                                           constant(0), ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t dim = rank - 1; dim >= 0; --dim) {
    descriptor = LLVM::InsertValueOp::create(
        builder, loc, descriptor, constant(type.getDimSize(dim)),
        ArrayRef<int64_t>{3, dim});
    descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor,
                                             constant(stride),
                                             ArrayRef<int64_t>{4, dim});
    stride *= type.getDimSize(dim);
  }
  auto identityType = MemRefType::get(type.getShape(), type.getElementType());
  return UnrealizedConversionCastOp::create(builder, loc, identityType,
                                            descriptor)
      .getResult(0);
}

FailureOr<Value> VyreToGPULowering::contiguousBuffer(Operation *copy,
                                                     StringRef role,
                                                     Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getLayout().isIdentity())
    return buffer;
  auto refuse = [&](StringRef why) {
    return copy->emitOpError("cannot be lowered: '")
           << role << "' is a view of type " << type << ", " << why;
  };
  if (!memref::isStaticShapeAndContiguousRowMajor(type))
    return refuse("which is not contiguous (or has a dynamic shape); "
                  "gpu.memcpy copies one contiguous range");
  if (type.getMemorySpace())
    return refuse("in a memory space other than the default");
  DataLayout layout = DataLayout::closest(copy);
  uint64_t elementBytes = layout.getTypeSize(type.getElementType());
  if (elementBytes == 0)
    return refuse("whose element type has no size");
  return buildAlias(builder, copy->getLoc(), buffer,
                    static_cast<int64_t>(elementBytes));
}
