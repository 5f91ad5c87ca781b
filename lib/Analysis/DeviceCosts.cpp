//===- DeviceCosts.cpp - What a program says about its device work --------===//

#include "vyre/Analysis/DeviceCosts.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

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

std::optional<uint64_t> vyre::getCopyBytes(Value buffer, Operation *at) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  std::optional<uint64_t> elementBytes =
      getElementBytes(type.getElementType(), at);
  if (!elementBytes)
    return std::nullopt;
  return uint64_t(type.getNumElements()) * *elementBytes;
}
