//===- CallArgumentAliasingTest.cpp - Distinct buffers at calls ----------===//

#include "vyre/Analysis/CallArgumentAliasing.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr const char *kProgram = R"mlir(
  memref.global "private" @table : memref<16xf32> = dense<0.0>
  func.func private @ext() -> memref<16xf32>
  func.func private @leaf(%a: memref<16xf32>, %b: memref<16xf32>) {
    %t = memref.get_global @table : memref<16xf32>
    return
  }
  func.func private @middle(%a: memref<16xf32>, %b: memref<16xf32>) {
    call @leaf(%a, %b) : (memref<16xf32>, memref<16xf32>) -> ()
    return
  }
  func.func private @opens(%a: memref<16xf32>, %b: memref<16xf32>) {
    %m = call @ext() : () -> memref<16xf32>
    return
  }
  func.func private @ping(%a: memref<16xf32>, %b: memref<16xf32>) {
    call @pong(%a, %b) : (memref<16xf32>, memref<16xf32>) -> ()
    return
  }
  func.func private @pong(%a: memref<16xf32>, %b: memref<16xf32>) {
    call @ping(%a, %b) : (memref<16xf32>, memref<16xf32>) -> ()
    return
  }
  func.func @main(%arg: memref<16xf32>, %marked: memref<16xf32> {llvm.noalias}) {
    %x = memref.alloc() : memref<16xf32>
    %y = memref.alloc() : memref<16xf32>
    %t = memref.get_global @table : memref<16xf32>
    %xv = memref.cast %x : memref<16xf32> to memref<16xf32>
    call @middle(%x, %y) {case = "two allocations"} : (memref<16xf32>, memref<16xf32>) -> ()
    call @middle(%x, %xv) {case = "one allocation through a view"} : (memref<16xf32>, memref<16xf32>) -> ()
    call @middle(%t, %y) {case = "a global the callee reaches"} : (memref<16xf32>, memref<16xf32>) -> ()
    call @middle(%arg, %x) {case = "an argument of the caller"} : (memref<16xf32>, memref<16xf32>) -> ()
    call @middle(%marked, %arg) {case = "a noalias argument"} : (memref<16xf32>, memref<16xf32>) -> ()
    call @opens(%x, %y) {case = "an open callee"} : (memref<16xf32>, memref<16xf32>) -> ()
    call @ping(%x, %y) {case = "recursion"} : (memref<16xf32>, memref<16xf32>) -> ()
    %e = call @ext() : () -> memref<16xf32>
    call @middle(%x, %e) {case = "a buffer of unknown origin"} : (memref<16xf32>, memref<16xf32>) -> ()
    %big = memref.alloc() : memref<8x16xf32>
    %r0 = memref.subview %big[0, 0] [4, 16] [1, 1] : memref<8x16xf32> to memref<4x16xf32, strided<[16, 1]>>
    %r1 = memref.subview %big[4, 0] [4, 16] [1, 1] : memref<8x16xf32> to memref<4x16xf32, strided<[16, 1], offset: 64>>
    %r2 = memref.subview %big[3, 0] [4, 16] [1, 1] : memref<8x16xf32> to memref<4x16xf32, strided<[16, 1], offset: 48>>
    return
  }
)mlir";

class CallArgumentAliasingTest : public ::testing::Test {
protected:
  CallArgumentAliasingTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  func::FuncOp function(StringRef name) {
    return module->lookupSymbol<func::FuncOp>(name);
  }

  /// The call of @main tagged `name`, and which of its operands are distinct.
  std::vector<bool> distinctAt(StringRef name, const CalleeReach &reach) {
    func::CallOp found;
    module->walk([&](func::CallOp call) {
      if (auto tag = call->getAttrOfType<StringAttr>("case"))
        if (tag.getValue() == name)
          found = call;
    });
    EXPECT_TRUE(found) << name.str();
    if (!found)
      return {};
    DistinctCallArguments result =
        getDistinctCallArguments(found, function(found.getCallee()), reach);
    std::vector<bool> bits;
    for (unsigned index = 0; index < found->getNumOperands(); ++index)
      bits.push_back(result.distinct.test(index));
    if (llvm::is_contained(bits, false)) {
      EXPECT_FALSE(result.whyNot.empty()) << name.str();
    }
    return bits;
  }

  /// The value named by the `n`-th subview of @main.
  Value subview(unsigned n) {
    SmallVector<Value> views;
    function("main").walk(
        [&](memref::SubViewOp view) { views.push_back(view.getResult()); });
    return views[n];
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(CallArgumentAliasingTest, ClosedFunctionsReachTheGlobalsTheirCalleesName) {
  ASSERT_TRUE(module);
  CalleeReach reach(*module);
  StringAttr table = StringAttr::get(&context, "table");
  EXPECT_TRUE(reach.isClosed(function("leaf")));
  EXPECT_TRUE(reach.isClosed(function("middle")));
  EXPECT_TRUE(reach.reachesGlobal(function("middle"), table));
  EXPECT_FALSE(reach.reachesGlobal(function("opens"), table) &&
               reach.isClosed(function("opens")));
  // A call to an external function returning a memref; a cycle of calls.
  EXPECT_FALSE(reach.isClosed(function("opens")));
  EXPECT_FALSE(reach.isClosed(function("ping")));
  EXPECT_FALSE(reach.isClosed(function("pong")));
  // @main calls @ext: it may reach anything.
  EXPECT_FALSE(reach.isClosed(function("main")));
}

TEST_F(CallArgumentAliasingTest, DecidesEachOperandOfACall) {
  ASSERT_TRUE(module);
  CalleeReach reach(*module);
  using Bits = std::vector<bool>;
  EXPECT_EQ(distinctAt("two allocations", reach), (Bits{true, true}));
  EXPECT_EQ(distinctAt("one allocation through a view", reach),
            (Bits{false, false}));
  EXPECT_EQ(distinctAt("a global the callee reaches", reach),
            (Bits{false, true}));
  EXPECT_EQ(distinctAt("an argument of the caller", reach),
            (Bits{false, true}));
  EXPECT_EQ(distinctAt("a noalias argument", reach), (Bits{true, false}));
  EXPECT_EQ(distinctAt("an open callee", reach), (Bits{false, false}));
  EXPECT_EQ(distinctAt("recursion", reach), (Bits{false, false}));
  EXPECT_EQ(distinctAt("a buffer of unknown origin", reach),
            (Bits{false, false}));
}

TEST_F(CallArgumentAliasingTest, StaticSubviewsAreDisjointWhenTheirRangesDoNotMeet) {
  ASSERT_TRUE(module);
  EXPECT_TRUE(areDisjointStaticSubviews(subview(0), subview(1)));
  EXPECT_FALSE(areDisjointStaticSubviews(subview(0), subview(2)));
  EXPECT_FALSE(areDisjointStaticSubviews(subview(1), subview(2)));
  EXPECT_FALSE(areDisjointStaticSubviews(subview(0), subview(0)));
}

TEST_F(CallArgumentAliasingTest, TracesBuffersThroughViewsToTheirOrigin) {
  ASSERT_TRUE(module);
  Value view = subview(1);
  CallBufferOrigin origin = CallBufferOrigin::of(view);
  EXPECT_EQ(origin.kind, CallBufferOrigin::Kind::Allocation);
  EXPECT_EQ(origin.root, view.getDefiningOp<memref::SubViewOp>().getSource());
  func::FuncOp main = function("main");
  EXPECT_EQ(CallBufferOrigin::of(main.getArgument(0)).kind,
            CallBufferOrigin::Kind::Argument);
  EXPECT_EQ(CallBufferOrigin::of(main.getArgument(1)).kind,
            CallBufferOrigin::Kind::NoAliasArgument);
}

} // namespace
