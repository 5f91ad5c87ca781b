//===- DeviceCostsTest.cpp - Copy sizes and the data layout cache -*- C++ -*-===//

#include "vyre/Analysis/DeviceCosts.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr const char *kProgram = R"mlir(
func.func @outer(%a: memref<4x8xf32>, %b: memref<3xindex>) {
  return
}
module @inner {
  func.func @nested(%c: memref<16xi8>) {
    return
  }
}
)mlir";

TEST(DeviceCostsTest, CopyBytesUnderACachedLayoutMatchTheClosestOne) {
  MLIRContext context;
  DialectRegistry registry;
  registerVyreDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kProgram, &context);
  ASSERT_TRUE(module);
  auto outer = module->lookupSymbol<func::FuncOp>("outer");
  auto inner = cast<ModuleOp>(module->lookupSymbol("inner"));
  auto nested = inner.lookupSymbol<func::FuncOp>("nested");
  ASSERT_TRUE(outer && nested);

  DataLayoutCache layouts;
  // One layout per scope: both functions of the top module share one; the
  // nested module is a scope of its own.
  const DataLayout &top = layouts.closest(outer);
  EXPECT_EQ(&top, &layouts.closest(module->getOperation()));
  EXPECT_NE(&top, &layouts.closest(nested));

  for (Value buffer : outer.getArguments())
    EXPECT_EQ(getCopyBytes(buffer, layouts.closest(outer)),
              getCopyBytes(buffer, outer.getOperation()));
  EXPECT_EQ(getCopyBytes(outer.getArgument(0), top), uint64_t(4 * 8 * 4));
  EXPECT_EQ(getCopyBytes(nested.getArgument(0), layouts.closest(nested)),
            uint64_t(16));
}

} // namespace
