//===- DisjointnessCheck.cpp - Buffers that share no byte, at run time ---===//

#include "vyre/Transforms/VersionAliasing/DisjointnessCheck.h"

#include "vyre/Analysis/DeviceCosts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// The byte range one memref spans, and whether it is empty (null: it
/// cannot be, having no dimension).
struct ByteRange {
  Value lo, hi, empty;
};

/// Emits the check's arithmetic, with one constant of each value.
class CheckBuilder {
public:
  CheckBuilder(OpBuilder &builder, Location loc)
      : builder(builder), loc(loc), zero(index(0)), one(index(1)) {}

  ByteRange byteRange(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    uint64_t bytes = *getElementBytes(type.getElementType(),
                                      builder.getBlock()->getParentOp());
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, memref);
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
    // Element offsets of the lowest and the highest element.
    Value low = metadata.getOffset(), high = metadata.getOffset(), empty;
    for (auto [size, stride] :
         llvm::zip(metadata.getSizes(), metadata.getStrides())) {
      Value reach = arith::MulIOp::create(
          builder, loc, arith::SubIOp::create(builder, loc, size, one),
          stride);
      low = arith::AddIOp::create(
          builder, loc, low, arith::MinSIOp::create(builder, loc, reach, zero));
      high = arith::AddIOp::create(
          builder, loc, high,
          arith::MaxSIOp::create(builder, loc, reach, zero));
      empty = either(empty, arith::CmpIOp::create(
                                builder, loc, arith::CmpIPredicate::eq, size,
                                zero));
    }
    high = arith::AddIOp::create(builder, loc, high, one);
    Value scale = index(int64_t(bytes));
    auto address = [&](Value elements) -> Value {
      return arith::AddIOp::create(
          builder, loc, pointer,
          arith::MulIOp::create(builder, loc, elements, scale));
    };
    return {address(low), address(high), empty};
  }

  /// Whether `a` and `b` share no byte.
  Value apart(const ByteRange &a, const ByteRange &b) {
    auto atOrBelow = [&](Value hi, Value lo) -> Value {
      return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule,
                                   hi, lo);
    };
    Value apart = either(atOrBelow(a.hi, b.lo), atOrBelow(b.hi, a.lo));
    return either(either(apart, a.empty), b.empty);
  }

  /// `a` or `b`, where a null value is false.
  Value either(Value a, Value b) {
    if (!a || !b)
      return a ? a : b;
    return arith::OrIOp::create(builder, loc, a, b);
  }
  /// `a` and `b`, where a null value is true.
  Value both(Value a, Value b) {
    if (!a || !b)
      return a ? a : b;
    return arith::AndIOp::create(builder, loc, a, b);
  }
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  Value truth() { return arith::ConstantIntOp::create(builder, loc, 1, 1); }

private:
  OpBuilder &builder;
  Location loc;
  Value zero, one;
};

} // namespace

Value vyre::emitDisjointnessCheck(OpBuilder &builder, Location loc,
                                  ValueRange memrefs) {
  CheckBuilder check(builder, loc);
  SmallVector<ByteRange> ranges;
  for (Value memref : memrefs)
    ranges.push_back(check.byteRange(memref));
  Value all;
  for (size_t i = 0; i < ranges.size(); ++i)
    for (size_t j = i + 1; j < ranges.size(); ++j)
      all = check.both(all, check.apart(ranges[i], ranges[j]));
  return all ? all : check.truth();
}
