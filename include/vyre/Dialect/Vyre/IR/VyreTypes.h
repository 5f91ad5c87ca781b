//===- VyreTypes.h - Types of the vyre dialect ------------------*- C++ -*-===//

#ifndef VYRE_DIALECT_VYRE_IR_VYRETYPES_H
#define VYRE_DIALECT_VYRE_IR_VYRETYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "vyre/Dialect/Vyre/IR/VyreOpsTypes.h.inc"

#endif // VYRE_DIALECT_VYRE_IR_VYRETYPES_H
