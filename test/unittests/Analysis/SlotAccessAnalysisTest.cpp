//===- SlotAccessAnalysisTest.cpp - The analysis through C++ ----*- C++ -*-===//

#include "vyre/Analysis/OverlapPolicy.h"
#include "vyre/Analysis/Passes.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
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

constexpr const char *kProgram = R"mlir(
  gpu.module @kernels {
    gpu.func @scale(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %in[%i] : memref<16xf32>
      memref.store %v, %out[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @host(%x: memref<16xf32>, %y: memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<16xf32>
    %b = vyre.alloc : memref<16xf32>
    vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>)
    vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %x : memref<16xf32>, memref<16xf32>)
    return
  }
)mlir";

class SlotAccessAnalysisTest : public ::testing::Test {
protected:
  SlotAccessAnalysisTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  /// Runs --vyre-kernel-access, which records each kernel's summary.
  void summarizeKernels() {
    PassManager pm(&context);
    pm.addPass(createKernelAccessPass());
    ASSERT_TRUE(succeeded(pm.run(*module)));
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(SlotAccessAnalysisTest, NumbersArgumentsThenAllocations) {
  ASSERT_TRUE(module);
  auto host = module->lookupSymbol<func::FuncOp>("host");
  SlotAccessAnalysis analysis(host);
  ASSERT_EQ(analysis.getNumSlots(), 4u);
  EXPECT_EQ(analysis.getSlotNumber(host.getArgument(0)), 0u);
  EXPECT_EQ(analysis.getSlotNumber(host.getArgument(1)), 1u);
  // %y is noalias, and allocations alias nothing.
  EXPECT_FALSE(analysis.mayAlias(0, 1));
  EXPECT_FALSE(analysis.mayAlias(0, 2));
  EXPECT_FALSE(analysis.mayAlias(2, 3));
  EXPECT_TRUE(analysis.mayAlias(3, 3));
}

TEST_F(SlotAccessAnalysisTest, SummarizesEachDispatchFromTheKernelSummary) {
  ASSERT_TRUE(module);
  summarizeKernels();
  Operation *kernel = module->lookupSymbol("kernels");
  kernel = SymbolTable::lookupSymbolIn(kernel, "scale");
  std::optional<SmallVector<ArgumentAccess>> access =
      getKernelAccessSummary(kernel);
  ASSERT_TRUE(access.has_value());
  ASSERT_EQ(access->size(), 2u);
  EXPECT_EQ((*access)[0], (ArgumentAccess{true, false}));
  EXPECT_EQ((*access)[1], (ArgumentAccess{false, true}));

  auto host = module->lookupSymbol<func::FuncOp>("host");
  SlotAccessAnalysis analysis(host);
  SmallVector<DispatchOp> dispatches(host.getOps<DispatchOp>());
  ASSERT_EQ(dispatches.size(), 2u);
  EXPECT_EQ(analysis.getSummary(dispatches[0]).str(), "reads [2] writes [3]");
  EXPECT_EQ(analysis.getSummary(dispatches[1]).str(), "reads [3] writes [0]");
  EXPECT_TRUE(analysis.getUnsummarizedKernels().empty());

  // The policy's verdicts on these summaries.
  EXPECT_EQ(canOverlapCopyWithKernel(0, analysis.getSummary(dispatches[0])),
            CopyOverlapDecision::Overlap);
  EXPECT_EQ(canOverlapCopyWithKernel(3, analysis.getSummary(dispatches[0])),
            CopyOverlapDecision::Serialize);
  EXPECT_EQ(canRunConcurrently(analysis.getSummary(dispatches[0]),
                                    analysis.getSummary(dispatches[1]))
                .reason,
            HazardKind::ReadAfterWrite);
}

TEST_F(SlotAccessAnalysisTest, AKernelWithoutSummaryMayTouchEveryArgument) {
  ASSERT_TRUE(module);
  auto host = module->lookupSymbol<func::FuncOp>("host");
  SlotAccessAnalysis analysis(host);
  SmallVector<DispatchOp> dispatches(host.getOps<DispatchOp>());
  ASSERT_EQ(dispatches.size(), 2u);
  // The analysis never looks into the body: both arguments are read and
  // written.
  EXPECT_EQ(analysis.getSummary(dispatches[0]).str(),
            "reads [2, 3] writes [2, 3]");
  ASSERT_EQ(analysis.getUnsummarizedKernels().size(), 1u);
  EXPECT_EQ(analysis.getUnsummarizedKernels()[0], dispatches[0].getKernel());
}

TEST_F(SlotAccessAnalysisTest, AnUnresolvedRootMayBeAnySlot) {
  ASSERT_TRUE(module);
  auto host = module->lookupSymbol<func::FuncOp>("host");
  SlotAccessAnalysis analysis(host);
  bool exact = true;
  // The constant is no buffer root at all.
  Value notASlot = host.getBody().front().front().getResult(0);
  EXPECT_EQ(analysis.getSlotsOf(notASlot, &exact),
            SmallVector<unsigned>({0, 1, 2, 3}));
  EXPECT_FALSE(exact);
  EXPECT_EQ(analysis.getSlotsOf(host.getArgument(1), &exact),
            SmallVector<unsigned>({1}));
  EXPECT_TRUE(exact);
}

TEST_F(SlotAccessAnalysisTest, UpdateFollowsARewrite) {
  ASSERT_TRUE(module);
  auto host = module->lookupSymbol<func::FuncOp>("host");
  SlotAccessAnalysis analysis(host);
  SmallVector<DispatchOp> dispatches(host.getOps<DispatchOp>());
  SmallVector<AllocOp> allocs(host.getOps<AllocOp>());
  ASSERT_EQ(dispatches.size(), 2u);
  ASSERT_EQ(allocs.size(), 2u);
  // Erase %a and its launch; allocate %c and launch on it and %b.
  // %a only names a map entry once erased: its type is read before.
  Value a = allocs[0].getMemref();
  auto type = cast<MemRefType>(a.getType());
  dispatches[0].erase();
  allocs[0].erase();
  OpBuilder builder(dispatches[1]);
  auto c = AllocOp::create(builder, dispatches[1].getLoc(), type, ValueRange{});
  Operation *launch = builder.clone(*dispatches[1]);
  launch->setOperand(launch->getNumOperands() - 1, c.getMemref());
  analysis.update({a}, {c, launch});

  // %a's number is not reused; %c comes after the others.
  EXPECT_FALSE(analysis.getSlots()[2]);
  EXPECT_EQ(analysis.getSlotNumber(c.getMemref()), 4u);
  EXPECT_EQ(analysis.getSlotNumber(allocs[1].getMemref()), 3u);
  // A root that may be any slot is no longer %a.
  Value notASlot = host.getBody().front().front().getResult(0);
  EXPECT_EQ(analysis.getSlotsOf(notASlot), SmallVector<unsigned>({0, 1, 3, 4}));
  // The new launch is summarized (it reads and writes both: the kernel has
  // no summary); the one left keeps its own.
  EXPECT_EQ(analysis.getSummary(launch).str(), "reads [3, 4] writes [3, 4]");
  EXPECT_EQ(analysis.getSummary(dispatches[1]).str(),
            "reads [0, 3] writes [0, 3]");
}

} // namespace
