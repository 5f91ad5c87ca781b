//===- VyreDialectTest.cpp - Build vyre IR through the C++ API --*- C++ -*-===//

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

class VyreDialectTest : public ::testing::Test {
protected:
  VyreDialectTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Builds a module holding `gpu.module @kernels` with one kernel
  /// `@scale(memref<16xf32>)` and an empty host function `@host(%h)`.
  OwningOpRef<ModuleOp> buildSkeleton() {
    OpBuilder builder(&context);
    Location loc = builder.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    auto gpuModule = gpu::GPUModuleOp::create(builder, loc, "kernels");
    builder.setInsertionPointToStart(gpuModule.getBody());
    auto kernelType = builder.getFunctionType({bufferType()}, {});
    auto kernel = gpu::GPUFuncOp::create(builder, loc, "scale", kernelType);
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    builder.getUnitAttr());
    builder.setInsertionPointToEnd(&kernel.getBody().front());
    gpu::ReturnOp::create(builder, loc);

    builder.setInsertionPointToEnd(module->getBody());
    auto host = func::FuncOp::create(
        builder, loc, "host", builder.getFunctionType({bufferType()}, {}));
    host.addEntryBlock();
    return module;
  }

  MemRefType bufferType() {
    return MemRefType::get({16}, Float32Type::get(&context));
  }

  MLIRContext context;
};

TEST_F(VyreDialectTest, BuildsAVerifiedProgram) {
  OwningOpRef<ModuleOp> module = buildSkeleton();
  auto host = cast<func::FuncOp>(module->getBody()->back());
  OpBuilder builder = OpBuilder::atBlockEnd(&host.getBody().front());
  Location loc = builder.getUnknownLoc();
  Value hostBuffer = host.getArgument(0);

  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value device = AllocOp::create(builder, loc, bufferType(), ValueRange{});
  CopyH2DOp::create(builder, loc, hostBuffer, device);
  auto kernelRef = SymbolRefAttr::get(
      builder.getStringAttr("kernels"),
      {FlatSymbolRefAttr::get(builder.getStringAttr("scale"))});
  auto access = builder.getArrayAttr(
      {AccessKindAttr::get(&context, AccessKind::ReadWrite)});
  auto dispatch = DispatchOp::create(builder, loc, kernelRef, one, one, one,
                                     one, one, one, ValueRange{device}, access);
  CopyD2HOp::create(builder, loc, device, hostBuffer);
  DeallocOp::create(builder, loc, device);
  func::ReturnOp::create(builder, loc);

  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(dispatch.getKernelModuleName().getValue(), "kernels");
  EXPECT_EQ(dispatch.getDeclaredAccess(0), AccessKind::ReadWrite);
  EXPECT_EQ(dispatch.getDeclaredAccess(1), std::nullopt);
}

TEST_F(VyreDialectTest, BuildsTheAsyncForms) {
  OwningOpRef<ModuleOp> module = buildSkeleton();
  auto host = cast<func::FuncOp>(module->getBody()->back());
  OpBuilder builder = OpBuilder::atBlockEnd(&host.getBody().front());
  Location loc = builder.getUnknownLoc();
  Value device = AllocOp::create(builder, loc, bufferType(), ValueRange{});

  Value progress = RecordOp::create(builder, loc);
  auto copy = CopyH2DAsyncOp::create(builder, loc, host.getArgument(0), device,
                                     /*stream=*/2, ValueRange{progress});
  Value token = copy.getToken();
  WaitOp::create(builder, loc, ValueRange{token});
  SyncOp::create(builder, loc, ValueRange{token});
  func::ReturnOp::create(builder, loc);

  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_TRUE(isa<TokenType>(copy.getToken().getType()));
  EXPECT_EQ(copy.getStream(), 2u);
  EXPECT_EQ(copy.getDependencies().size(), 1u);
}

TEST_F(VyreDialectTest, RejectsAMismatchedCopyWithANamedRule) {
  OwningOpRef<ModuleOp> module = buildSkeleton();
  auto host = cast<func::FuncOp>(module->getBody()->back());
  OpBuilder builder = OpBuilder::atBlockEnd(&host.getBody().front());
  Location loc = builder.getUnknownLoc();
  auto wider = MemRefType::get({32}, Float32Type::get(&context));
  Value device = AllocOp::create(builder, loc, wider, ValueRange{});
  CopyH2DOp::create(builder, loc, host.getArgument(0), device);
  func::ReturnOp::create(builder, loc);

  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_NE(message.find("dimension 0 is 16 in 'source' but 32 in 'target'"),
            std::string::npos)
      << message;
}

TEST_F(VyreDialectTest, ParsesAndPrintsTheAccessList) {
  const char *source = R"mlir(
    gpu.module @kernels {
      gpu.func @axpy(%x: memref<16xf32>, %y: memref<16xf32>) kernel {
        gpu.return
      }
    }
    func.func @host(%x: memref<16xf32>, %y: memref<16xf32>) {
      %c1 = arith.constant 1 : index
      vyre.dispatch @kernels::@axpy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %y : memref<16xf32>, memref<16xf32>) access [read, readwrite]
      return
    }
  )mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  EXPECT_NE(printed.find("access [read, readwrite]"), std::string::npos)
      << printed;
}

TEST_F(VyreDialectTest, TellsDeviceRegions) {
  // Loops and branches whose vyre ops are in their blocks or in nested
  // device regions are device regions; one holding vyre ops in any other
  // region op is not, nor is one without vyre ops.
  const char *source = R"mlir(
    gpu.module @kernels {
      gpu.func @scale(%x: memref<16xf32>) kernel {
        gpu.return
      }
    }
    func.func @host(%x: memref<16xf32>, %n: index, %p: i1) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        scf.if %p {
          scf.for %j = %c0 to %n step %c1 {
            vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
          }
        }
      } {name = "nest"}
      scf.for %i = %c0 to %n step %c1 {
        scf.execute_region {
          vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
          scf.yield
        }
      } {name = "around_region"}
      scf.for %i = %c0 to %n step %c1 {
        %v = arith.addi %i, %c1 : index
      } {name = "host_only"}
      return
    }
  )mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  llvm::StringMap<Operation *> loops;
  module->walk([&](scf::ForOp loop) {
    if (auto name = loop->getAttrOfType<StringAttr>("name"))
      loops[name.getValue()] = loop;
  });
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_TRUE(isDeviceRegion(loops["nest"]));
  EXPECT_TRUE(isDeviceLoop(loops["nest"]));
  scf::IfOp branch;
  loops["nest"]->walk([&](scf::IfOp op) { branch = op; });
  ASSERT_TRUE(branch);
  EXPECT_TRUE(isDeviceRegion(branch));
  EXPECT_FALSE(isDeviceLoop(branch));
  EXPECT_FALSE(isDeviceRegion(loops["around_region"]));
  EXPECT_FALSE(isDeviceRegion(loops["host_only"]));
}

} // namespace
