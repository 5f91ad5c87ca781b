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
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/thread.h"

namespace mlir::vyre::test {
void registerTestPlanWorkPass();
void registerTestSlotAccessPass();
void registerTestStreamBalancePass();
void registerTestValueDigestPass();
} // namespace mlir::vyre::test

/// Test-only passes, from test/lib, that print analyses and check upstream's
/// output for lit tests.
static void registerTestPasses() {
  mlir::vyre::test::registerTestPlanWorkPass();
  mlir::vyre::test::registerTestSlotAccessPass();
  mlir::vyre::test::registerTestStreamBalancePass();
  mlir::vyre::test::registerTestValueDigestPass();
}

/// The stack vyre-opt parses and runs on.
static constexpr unsigned kStackBytes = 1u << 30;

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::vyre::registerVyrePassesAndPipelines();
  registerTestPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // So that upstream's --gpu-lower-to-nvvm-pipeline can translate kernels.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::vyre::registerVyreDialects(registry);

  // MLIR's parser recurses once per nesting level of its input: on the
  // default 8 MiB stack, a few thousand nested brackets crash it (found by
  // fuzzing). Parse and run on a thread with a 1 GiB stack instead.
  int result = 1;
  llvm::thread worker(std::optional<unsigned>(kStackBytes), [&] {
    result = mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, "vyre optimizer driver\n", registry));
  });
  worker.join();
  return result;
}
