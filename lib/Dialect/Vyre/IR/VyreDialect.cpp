//===- VyreDialect.cpp - The vyre dialect -----------------------*- C++ -*-===//

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::vyre;

#include "vyre/Dialect/Vyre/IR/VyreOpsDialect.cpp.inc"

void VyreDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "vyre/Dialect/Vyre/IR/VyreOps.cpp.inc"
      >();
}

LogicalResult VyreDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  if (attribute.getName() != getPinnedAttrName())
    return op->emitError("unknown vyre argument attribute '")
           << attribute.getName().getValue() << "' on argument #" << argIndex;
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitError("'")
           << getPinnedAttrName() << "' on argument #" << argIndex
           << " must be a unit attribute";
  Type type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  if (!isa<BaseMemRefType>(type))
    return op->emitError("'")
           << getPinnedAttrName() << "' on argument #" << argIndex
           << " of type " << type << ": only a memref argument can be pinned";
  return success();
}

bool mlir::vyre::containsVyreOps(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<VyreDialect>(nested->getDialect()) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
      })
      .wasInterrupted();
}

bool mlir::vyre::containsVyreOps(Region &region) {
  for (Block &block : region)
    for (Operation &op : block)
      if (containsVyreOps(&op))
        return true;
  return false;
}
