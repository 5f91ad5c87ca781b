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

namespace mlir::vyre::test {
void registerTestSlotAccessPass();
} // namespace mlir::vyre::test

/// Test-only passes, from test/lib, that print analyses for lit tests.
static void registerTestPasses() {
  mlir::vyre::test::registerTestSlotAccessPass();
}

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::vyre::registerVyrePassesAndPipelines();
  registerTestPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::vyre::registerVyreDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "vyre optimizer driver\n", registry));
}
