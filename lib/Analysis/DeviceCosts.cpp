//===- DeviceCosts.cpp - What a program says about its device work --------===//

#include "vyre/Analysis/DeviceCosts.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

std::optional<double> vyre::getDeclaredKernelMicros(Operation *dispatch) {
  if (auto attr = dispatch->getAttrOfType<FloatAttr>(kKernelCostAttrName))
    return attr.getValueAsDouble();
  return std::nullopt;
}

std::optional<uint64_t> vyre::getElementBytes(Type type, Operation *at) {
  if (auto vector = dyn_cast<VectorType>(type); vector && vector.isScalable())
    return std::nullopt;
  if (!isa<IntegerType, FloatType, IndexType, ComplexType, VectorType>(type))
    return std::nullopt;
  return DataLayout::closest(at).getTypeSize(type).getFixedValue();
}

std::optional<uint64_t> vyre::getCopyBytes(Value buffer, Operation *at,
                                           bool *overflows) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  std::optional<uint64_t> elementBytes =
      getElementBytes(type.getElementType(), at);
  if (!elementBytes)
    return std::nullopt;
  // The shape's product can pass 2^63 (memref<1073741824x1073741824xf32>
  // verifies), where getNumElements wraps.
  uint64_t bytes = *elementBytes;
  for (int64_t dimension : type.getShape()) {
    bool overflowed = false;
    bytes = llvm::SaturatingMultiply(bytes, uint64_t(dimension), &overflowed);
    if (overflowed) {
      if (overflows)
        *overflows = true;
      return std::nullopt;
    }
  }
  return bytes;
}
