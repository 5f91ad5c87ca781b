//===- VyreInterfaces.cpp - Interfaces of the vyre dialect ------*- C++ -*-===//

#include "vyre/Dialect/Vyre/IR/VyreInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;

#include "vyre/Dialect/Vyre/IR/VyreInterfaces.cpp.inc"
