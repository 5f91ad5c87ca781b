//===- VyreDialect.cpp - The vyre dialect -----------------------*- C++ -*-===//

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

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
