//===- VersionAliasingTest.cpp - Run-time versions through the C++ API ---===//

#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/InitVyre.h"
#include "vyre/Simulation/SimulateFunction.h"
#include "vyre/Transforms/Passes.h"
#include "vyre/Transforms/VersionAliasing/DisjointnessCheck.h"
#include "vyre/Transforms/VersionAliasing/FunctionVersions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr const char *kProgram = R"mlir(
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      gpu.return
    }
  }
  func.func @batch(%in: memref<262144xf32>, %out: memref<262144xf32>,
                   %n: index) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %in to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<262144xf32>)
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    return
  }
  func.func @dynamic(%in: memref<?xf32> {llvm.noalias}, %n: index) {
    %a = vyre.alloc(%n) : memref<?xf32>
    vyre.copy_h2d %in to %a : memref<?xf32> to memref<?xf32>
    vyre.dealloc %a : memref<?xf32>
    return
  }
)mlir";

class VersionAliasingTest : public ::testing::Test {
protected:
  VersionAliasingTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.disableMultithreading();
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(VersionAliasingTest, VersionsNameTheirCopiesAndArguments) {
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.addPass(createVersionAliasingPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  ASSERT_TRUE(succeeded(verify(*module)));

  SymbolTable symbols(*module);
  auto batch = symbols.lookup<func::FuncOp>("batch");
  std::optional<FunctionVersions> versions =
      FunctionVersions::of(batch, symbols);
  ASSERT_TRUE(versions);
  EXPECT_EQ(versions->arguments, (SmallVector<int64_t>{0, 1}));
  EXPECT_EQ(versions->describeArguments(), "0, 1");
  EXPECT_EQ(versions->disjoint.getSymName(), "batch_disjoint");
  EXPECT_EQ(versions->mayAlias.getSymName(), "batch_may_alias");
  EXPECT_TRUE(versions->disjoint.isPrivate());
  EXPECT_TRUE(versions->disjoint.getArgAttr(0, "llvm.noalias"));
  EXPECT_TRUE(versions->disjoint.getArgAttr(1, "llvm.noalias"));
  EXPECT_FALSE(versions->mayAlias.getArgAttr(0, "llvm.noalias"));
  // The index argument is passed on, not checked.
  EXPECT_FALSE(versions->disjoint.getArgAttr(2, "llvm.noalias"));

  // The dispatcher branches on the check and calls each copy once.
  auto branch = *batch.getOps<scf::IfOp>().begin();
  auto thenCall = *branch.thenBlock()->getOps<func::CallOp>().begin();
  auto elseCall = *branch.elseBlock()->getOps<func::CallOp>().begin();
  EXPECT_EQ(thenCall.getCallee(), "batch_disjoint");
  EXPECT_EQ(elseCall.getCallee(), "batch_may_alias");

  // One argument, marked already, is not versioned.
  EXPECT_FALSE(FunctionVersions::of(symbols.lookup<func::FuncOp>("dynamic"),
                                    symbols));

  // Once forgotten, the dispatcher names no versions.
  versions->forget();
  EXPECT_FALSE(FunctionVersions::of(batch, symbols));
  versions->record();
  EXPECT_TRUE(FunctionVersions::of(batch, symbols));
}

TEST_F(VersionAliasingTest, FewerThanTwoBuffersAreDisjoint) {
  ASSERT_TRUE(module);
  auto batch = module->lookupSymbol<func::FuncOp>("batch");
  OpBuilder builder = OpBuilder::atBlockBegin(&batch.getBody().front());
  for (unsigned count : {0u, 1u}) {
    SmallVector<Value> buffers(batch.getArguments().take_front(count));
    Value check = emitDisjointnessCheck(builder, batch.getLoc(), buffers);
    EXPECT_TRUE(check.getType().isInteger(1));
    EXPECT_TRUE(matchPattern(check, m_One())) << count;
  }
  Value check = emitDisjointnessCheck(builder, batch.getLoc(),
                                      batch.getArguments().take_front(2));
  EXPECT_TRUE(check.getType().isInteger(1));
  EXPECT_FALSE(matchPattern(check, m_Constant()));
}

TEST_F(VersionAliasingTest, SimulateFunctionTimesASchedule) {
  ASSERT_TRUE(module);
  auto batch = module->lookupSymbol<func::FuncOp>("batch");
  SlotAccessAnalysis slots(batch);
  FailureOr<SimulatedRun> run = simulateFunction(batch, slots, EngineModel());
  ASSERT_TRUE(succeeded(run));
  // 1 MiB each way at 55 GB/s plus 2 us of latency each, and a 10 us
  // kernel, one after another on the main stream.
  double copyUs = 1048576 / 55e3 + 2.0;
  EXPECT_NEAR(run->deviceTimeUs, 2 * copyUs + 10.0, 1e-6);
  // Each waits for the one before it: the longest path is all of them. The
  // bound adds the host's time in which the device has nothing to run: the
  // first launch, the free (its synchronization, then the free itself) and
  // the return's synchronization.
  EngineModel model;
  EXPECT_NEAR(run->idleForHostUs,
              model.launchUs + 2 * model.hostSyncUs + model.allocFreeUs, 1e-6);
  EXPECT_NEAR(run->boundUs, run->deviceTimeUs + run->idleForHostUs, 1e-6);
  EXPECT_GE(run->makespanUs, run->boundUs);

  // Without the runtime's overheads the bound is the path alone.
  model.launchUs = model.eventUs = model.hostSyncUs = model.allocFreeUs = 0;
  FailureOr<SimulatedRun> withoutOverheads =
      simulateFunction(batch, slots, model);
  ASSERT_TRUE(succeeded(withoutOverheads));
  EXPECT_EQ(withoutOverheads->idleForHostUs, 0.0);
  EXPECT_NEAR(withoutOverheads->boundUs, run->deviceTimeUs, 1e-6);
  EXPECT_GE(withoutOverheads->makespanUs, withoutOverheads->boundUs);

  // A copy of dynamic size cannot be timed: an error at the op, and failure.
  auto dynamic = module->lookupSymbol<func::FuncOp>("dynamic");
  SlotAccessAnalysis dynamicSlots(dynamic);
  std::string error;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    error = diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(simulateFunction(dynamic, dynamicSlots, EngineModel())));
  EXPECT_NE(error.find("dynamic size"), std::string::npos) << error;
}

TEST_F(VersionAliasingTest, SimulateFunctionCountsTheOpsItRuns) {
  ASSERT_TRUE(module);
  auto batch = module->lookupSymbol<func::FuncOp>("batch");
  SlotAccessAnalysis slots(batch);
  uint64_t opsRun = 0;
  ASSERT_TRUE(
      succeeded(simulateFunction(batch, slots, EngineModel(), &opsRun)));
  EXPECT_GT(opsRun, 0u);
  // Exactly that many ops fit in max-ops; one fewer does not, and the count
  // says it went past.
  EngineModel model;
  model.maxOps = opsRun;
  uint64_t again = 0;
  EXPECT_TRUE(succeeded(simulateFunction(batch, slots, model, &again)));
  EXPECT_EQ(again, opsRun);
  model.maxOps = opsRun - 1;
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(simulateFunction(batch, slots, model, &again)));
  EXPECT_GT(again, model.maxOps);
}

} // namespace
