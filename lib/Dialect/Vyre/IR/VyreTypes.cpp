//===- VyreTypes.cpp - Types of the vyre dialect ----------------*- C++ -*-===//

#include "vyre/Dialect/Vyre/IR/VyreTypes.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vyre;

#define GET_TYPEDEF_CLASSES
#include "vyre/Dialect/Vyre/IR/VyreOpsTypes.cpp.inc"

void VyreDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "vyre/Dialect/Vyre/IR/VyreOpsTypes.cpp.inc"
      >();
}
