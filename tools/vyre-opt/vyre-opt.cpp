//===- vyre-opt.cpp - The vyre optimizer driver -----------------*- C++ -*-===//
//
// mlir-opt with the vyre dialect and passes: parses, verifies, transforms and
// prints vyre programs.
//
//===----------------------------------------------------------------------===//

#include "vyre/InitVyre.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::vyre::registerVyrePassesAndPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::vyre::registerVyreDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "vyre optimizer driver\n", registry));
}
