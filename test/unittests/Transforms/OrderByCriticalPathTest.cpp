//===- OrderByCriticalPathTest.cpp - Work by critical path, from C++ ------===//

#include "vyre/Transforms/OverlapCopies/OrderByCriticalPath.h"
#include "vyre/Analysis/Passes.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

// b's copy and two kernels on b are written before a's copy, kernel and copy
// back (1 MiB copies: 21.07 us each; kernels of the default time).
constexpr const char *kProgram = R"mlir(
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  func.func @policy(%ha: memref<262144xf32> {llvm.noalias},
                    %hb: memref<262144xf32> {llvm.noalias},
                    %out: memref<262144xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<262144xf32>)
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<262144xf32>)
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<262144xf32>)
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
)mlir";

class OrderByCriticalPathTest : public ::testing::Test {
protected:
  OrderByCriticalPathTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    context.disableMultithreading();
    module = parseSourceString<ModuleOp>(kProgram, &context);
    PassManager summarize(&context);
    summarize.addPass(createKernelAccessPass());
    if (module && succeeded(summarize.run(*module)))
      function = module->lookupSymbol<func::FuncOp>("policy");
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
};

TEST_F(OrderByCriticalPathTest, IssuesTheCopyBackChainFirst) {
  ASSERT_TRUE(function);
  SlotAccessAnalysis slots(function);
  SmallVector<overlap::ReorderedRun> runs =
      overlap::orderByCriticalPath(function, slots, overlap::WorkTimes());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].ops, 6u);
  // 1 MiB at 55 GB/s plus 2 us: 21.065 us a copy, 10 us a kernel. In the
  // input's order a's copy back starts after both copies in and a's kernel:
  // 3 copies + 1 kernel. With a's copy first it runs beside b's copy: 2
  // copies + 2 kernels (a's, then b's two after b's copy).
  double copyUs = 2.0 + 1048576.0 / 55e3;
  EXPECT_NEAR(runs[0].inputOrderUs, 3 * copyUs + 10.0, 1e-6);
  EXPECT_NEAR(runs[0].newOrderUs, 2 * copyUs + 20.0, 1e-6);
  auto first = dyn_cast<CopyH2DOp>(runs[0].first);
  ASSERT_TRUE(first);
  EXPECT_EQ(cast<BlockArgument>(first.getSource()).getArgNumber(), 0u);
  // a's copy, b's copy, a's kernel, a's copy back, b's kernels.
  SmallVector<Operation *> order;
  for (Operation &op : function.getBody().front())
    if (isa<CopyH2DOp, CopyD2HOp, DispatchOp>(op))
      order.push_back(&op);
  ASSERT_EQ(order.size(), 6u);
  Value a = cast<CopyH2DOp>(order[0]).getTarget();
  Value b = cast<CopyH2DOp>(order[1]).getTarget();
  EXPECT_NE(a, b);
  EXPECT_EQ(cast<DispatchOp>(order[2]).getKernelOperands()[0], a);
  EXPECT_EQ(cast<CopyD2HOp>(order[3]).getSource(), a);
  EXPECT_EQ(cast<DispatchOp>(order[4]).getKernelOperands()[0], b);
  EXPECT_EQ(cast<DispatchOp>(order[5]).getKernelOperands()[0], b);
}

TEST_F(OrderByCriticalPathTest,
       KeepsTheInputOrderWhereTheGainIsUnderOnePercent) {
  ASSERT_TRUE(function);
  SlotAccessAnalysis slots(function);
  std::string before;
  llvm::raw_string_ostream beforeStream(before);
  function.print(beforeStream);
  // With 10 ms kernels the 20 us the new order saves is under 1%.
  overlap::WorkTimes times;
  times.defaultKernelUs = 10000.0;
  EXPECT_TRUE(overlap::orderByCriticalPath(function, slots, times).empty());
  std::string after;
  llvm::raw_string_ostream afterStream(after);
  function.print(afterStream);
  EXPECT_EQ(before, after);
}

} // namespace
