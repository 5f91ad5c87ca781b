//===- FunctionEffectsTest.cpp - What a call may touch, via the API -*- C++ -*-===//

#include "vyre/Analysis/FunctionEffects.h"
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
  func.func private @declared(memref<16xf32>) attributes {vyre.effects = "arguments"}
  func.func private @unknown()
  func.func @pure(%x: f32) -> f32 {
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
  func.func @writes(%h: memref<16xf32>, %v: f32) {
    %c0 = arith.constant 0 : index
    memref.store %v, %h[%c0] : memref<16xf32>
    return
  }
  func.func @forwards(%h: memref<16xf32>) {
    func.call @declared(%h) : (memref<16xf32>) -> ()
    return
  }
  func.func @opaque() {
    func.call @unknown() : () -> ()
    return
  }
)mlir";

class FunctionEffectsTest : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    module = parseSourceString<ModuleOp>(kProgram, context.get());
    ASSERT_TRUE(module);
  }

  std::optional<FunctionEffects> summarize(StringRef name) {
    auto function = module->lookupSymbol<func::FuncOp>(name);
    return summarizeFunctionBody(function, [](CallOpInterface call) {
      return getCalleeEffects(call);
    });
  }

  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(FunctionEffectsTest, SummarizesBodies) {
  EXPECT_EQ(summarize("pure"), FunctionEffects::None);
  EXPECT_EQ(summarize("writes"), FunctionEffects::Arguments);
  EXPECT_EQ(summarize("forwards"), FunctionEffects::Arguments);
  EXPECT_EQ(summarize("opaque"), std::nullopt);
}

TEST_F(FunctionEffectsTest, ReadsDeclarations) {
  EXPECT_EQ(getDeclaredEffects(module->lookupSymbol("declared")),
            FunctionEffects::Arguments);
  EXPECT_EQ(getDeclaredEffects(module->lookupSymbol("unknown")),
            std::nullopt);
  EXPECT_EQ(summarize("declared"), FunctionEffects::Arguments);
  EXPECT_EQ(stringifyFunctionEffects(FunctionEffects::None), "none");
}

} // namespace
