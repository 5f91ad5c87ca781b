//===- VyreOps.h - Operations of the vyre dialect ---------------*- C++ -*-===//

#ifndef VYRE_DIALECT_VYRE_IR_VYREOPS_H
#define VYRE_DIALECT_VYRE_IR_VYREOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "vyre/Dialect/Vyre/IR/VyreAttrs.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Dialect/Vyre/IR/VyreTypes.h"

#define GET_OP_CLASSES
#include "vyre/Dialect/Vyre/IR/VyreOps.h.inc"

#endif // VYRE_DIALECT_VYRE_IR_VYREOPS_H
