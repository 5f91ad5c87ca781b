//===- VyreAttrs.cpp - Attributes of the vyre dialect -----------*- C++ -*-===//

#include "vyre/Dialect/Vyre/IR/VyreAttrs.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vyre;

#include "vyre/Dialect/Vyre/IR/VyreEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "vyre/Dialect/Vyre/IR/VyreAttrs.cpp.inc"

void VyreDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "vyre/Dialect/Vyre/IR/VyreAttrs.cpp.inc"
      >();
}
