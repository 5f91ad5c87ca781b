//===- KernelSymbolsTest.cpp - The kernels of a module, by symbol ---------===//

#include "vyre/Analysis/KernelSymbols.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr const char *kProgram = R"mlir(
  gpu.module @kernels {
    gpu.func @fill(%x: memref<16xf32>) kernel { gpu.return }
    gpu.func @scale(%x: memref<16xf32>) kernel { gpu.return }
  }
  gpu.module @other {
    gpu.func @fill(%x: memref<16xf32>) kernel { gpu.return }
  }
  func.func @host() { return }
)mlir";

class KernelSymbolsTest : public ::testing::Test {
protected:
  KernelSymbolsTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  SymbolRefAttr reference(StringRef table, StringRef function) {
    return SymbolRefAttr::get(&context, table,
                              {FlatSymbolRefAttr::get(&context, function)});
  }

  /// The kernel `name` of the gpu.module `table`, found by walking.
  Operation *kernel(StringRef table, StringRef name) {
    Operation *found = nullptr;
    module->walk([&](gpu::GPUFuncOp function) {
      if (function.getName() == name &&
          function->getParentOfType<gpu::GPUModuleOp>().getName() == table)
        found = function;
    });
    return found;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(KernelSymbolsTest, FindsEachKernelByItsNestedReference) {
  ASSERT_TRUE(module);
  KernelSymbols symbols(*module);
  EXPECT_EQ(symbols.lookup(reference("kernels", "fill")),
            kernel("kernels", "fill"));
  EXPECT_EQ(symbols.lookup(reference("kernels", "scale")),
            kernel("kernels", "scale"));
  // The same name in another table is another kernel.
  EXPECT_EQ(symbols.lookup(reference("other", "fill")),
            kernel("other", "fill"));
  EXPECT_NE(kernel("kernels", "fill"), kernel("other", "fill"));
}

TEST_F(KernelSymbolsTest, LeavesEverythingElseToTheUsualLookup) {
  ASSERT_TRUE(module);
  KernelSymbols symbols(*module);
  EXPECT_EQ(symbols.lookup(reference("kernels", "missing")), nullptr);
  EXPECT_EQ(symbols.lookup(reference("missing", "fill")), nullptr);
  // A flat reference (a host function) is not a kernel reference.
  EXPECT_EQ(symbols.lookup(FlatSymbolRefAttr::get(&context, "host")), nullptr);
}

} // namespace
