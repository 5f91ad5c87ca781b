//===- VyreAttrs.h - Attributes of the vyre dialect -------------*- C++ -*-===//

#ifndef VYRE_DIALECT_VYRE_IR_VYREATTRS_H
#define VYRE_DIALECT_VYRE_IR_VYREATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "vyre/Dialect/Vyre/IR/VyreEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "vyre/Dialect/Vyre/IR/VyreAttrs.h.inc"

#endif // VYRE_DIALECT_VYRE_IR_VYREATTRS_H
