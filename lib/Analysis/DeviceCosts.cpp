//===- DeviceCosts.cpp - What a program says about its device work --------===//

#include "vyre/Analysis/DeviceCosts.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

std::optional<double> vyre::getDeclaredKernelMicros(Operation *dispatch) {
  if (auto attr = dispatch->getAttrOfType<FloatAttr>(kKernelCostAttrName))
    return attr.getValueAsDouble();
  return std::nullopt;
}

/// Whether `type` has a fixed size in memory that the data layout gives.
static bool hasElementSize(Type type) {
  if (auto vector = dyn_cast<VectorType>(type); vector && vector.isScalable())
    return false;
  return isa<IntegerType, FloatType, IndexType, ComplexType, VectorType>(type);
}

std::optional<uint64_t> vyre::getElementBytes(Type type, Operation *at) {
  if (!hasElementSize(type))
    return std::nullopt;
  return getElementBytes(type, DataLayout::closest(at));
}

std::optional<uint64_t> vyre::getElementBytes(Type type,
                                              const DataLayout &layout) {
  if (!hasElementSize(type))
    return std::nullopt;
  return layout.getTypeSize(type).getFixedValue();
}

std::optional<uint64_t> vyre::getCopyBytes(Value buffer, Operation *at,
                                           bool *overflows) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return getCopyBytes(buffer, DataLayout::closest(at), overflows);
}

std::optional<uint64_t> vyre::getCopyBytes(Value buffer,
                                           const DataLayout &layout,
                                           bool *overflows) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  std::optional<uint64_t> elementBytes =
      getElementBytes(type.getElementType(), layout);
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

const DataLayout &vyre::DataLayoutCache::closest(Operation *at) {
  // The scope DataLayout::closest would take: the closest module, or op
  // with a data layout, around `at` (itself included).
  Operation *scope = at;
  while (scope && !isa<ModuleOp, DataLayoutOpInterface>(scope))
    scope = scope->getParentOp();
  std::unique_ptr<DataLayout> &layout = layouts[scope];
  if (!layout)
    layout = std::make_unique<DataLayout>(DataLayout::closest(at));
  return *layout;
}
