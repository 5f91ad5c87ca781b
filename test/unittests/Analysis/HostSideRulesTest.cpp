//===- HostSideRulesTest.cpp - Shared host-side rules ----------*- C++ -*-===//
//
// The rules --overlap-copies and both referees share, through the C++ API:
// what a region op touches (HostEffects.h), what the host may not touch or
// go into (DeviceCode.h), waits that take a token for its stream
// (TokenContract.h), and when two ops' accesses conflict (OpFootprint.h).
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/HostEffects.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Analysis/TokenContract.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr const char *kProgram = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func private @opaque()
  func.func @regions(%h: memref<16xf32>, %n: index, %v: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.while (%i = %c0) : (index) -> index {
      %more = arith.cmpi slt, %i, %n : index
      scf.condition(%more) %i : index
    } do {
    ^bb0(%i: index):
      memref.store %v, %h[%i] : memref<16xf32>
      %next = arith.addi %i, %c1 : index
      scf.yield %next : index
    }
    %done = arith.cmpi sge, %r, %n : index
    scf.if %done {
    }
    scf.execute_region {
      func.call @opaque() : () -> ()
      scf.yield
    }
    return
  }
  func.func @memory(%h: memref<16xf32>) {
    %a = vyre.alloc : memref<16xf32>
    %view = memref.subview %a[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
    %g = gpu.alloc () : memref<16xf32>
    %s = gpu.alloc host_shared () : memref<16xf32>
    return
  }
  func.func @buffers(%x: memref<16xf32> {llvm.noalias},
                     %y: memref<16xf32> {llvm.noalias}) {
    return
  }
  func.func @choices(%x: memref<16xf32> {llvm.noalias},
                     %y: memref<16xf32> {llvm.noalias},
                     %z: memref<16xf32> {llvm.noalias},
                     %c: i1, %d: i1) {
    %p = memref.alloc() : memref<16xf32>
    %xy = arith.select %c, %x, %y : memref<16xf32>
    %view = memref.subview %xy[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
    %xyz = arith.select %d, %xy, %z : memref<16xf32>
    %xp = arith.select %c, %x, %p : memref<16xf32>
    return
  }
  func.func @waits(%d: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    %k = gpu.launch_func async [%t] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%t]
    %u = gpu.wait async
    %l = gpu.launch_func async [%u] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%l]
    return
  }
}
)mlir";

class HostSideRulesTest : public ::testing::Test {
protected:
  HostSideRulesTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  func::FuncOp function(StringRef name) {
    return module->lookupSymbol<func::FuncOp>(name);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(HostSideRulesTest, RegionOpTouchesWhatItsBodyTouches) {
  ASSERT_TRUE(module);
  func::FuncOp regions = function("regions");
  auto loop = *regions.getBody().getOps<scf::WhileOp>().begin();
  EXPECT_TRUE(hasEffectsOfItsBody(loop));
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      collectHostEffects(loop);
  ASSERT_TRUE(effects.has_value());
  // The store into %h, and nothing else: no effect on an unnamed location.
  ASSERT_EQ(effects->size(), 1u);
  EXPECT_TRUE(isa<MemoryEffects::Write>((*effects)[0].getEffect()));
  EXPECT_EQ((*effects)[0].getValue(), regions.getArgument(0));
  // An empty branch touches nothing.
  auto branch = *regions.getBody().getOps<scf::IfOp>().begin();
  std::optional<SmallVector<MemoryEffects::EffectInstance>> none =
      collectHostEffects(branch);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST_F(HostSideRulesTest, CallOfUnknownEffectMayTouchAnything) {
  ASSERT_TRUE(module);
  auto region =
      *function("regions").getBody().getOps<scf::ExecuteRegionOp>().begin();
  EXPECT_FALSE(collectHostEffects(region).has_value());
}

TEST_F(HostSideRulesTest, DeviceOnlyMemory) {
  ASSERT_TRUE(module);
  func::FuncOp memory = function("memory");
  SmallVector<Value> values;
  memory.walk([&](Operation *op) {
    if (op->getNumResults() == 1)
      values.push_back(op->getResult(0));
  });
  ASSERT_EQ(values.size(), 4u);
  EXPECT_TRUE(isDeviceOnlyMemory(values[0]));  // vyre.alloc
  EXPECT_TRUE(isDeviceOnlyMemory(values[1]));  // a view of it
  EXPECT_TRUE(isDeviceOnlyMemory(values[2]));  // gpu.alloc
  EXPECT_FALSE(isDeviceOnlyMemory(values[3])); // gpu.alloc host_shared
  EXPECT_FALSE(isDeviceOnlyMemory(memory.getArgument(0)));
  // Nothing in @memory touches device memory on the host.
  EXPECT_TRUE(succeeded(diagnoseHostAccessToDeviceMemory(memory)));
}

TEST_F(HostSideRulesTest, WaitOnAnOlderTokenOfItsStream) {
  ASSERT_TRUE(module);
  SmallVector<std::pair<Operation *, Operation *>> found;
  findWaitsOnOlderTokens(function("waits"),
                         [&](Operation *wait, Value, Operation *later) {
                           found.push_back({wait, later});
                         });
  // The wait on %t relies on the launch after it; the wait on %l does not.
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(isa<gpu::WaitOp>(found[0].first));
  EXPECT_TRUE(isa<gpu::LaunchFuncOp>(found[0].second));
  EXPECT_TRUE(found[0].first->getOperand(0).getDefiningOp<gpu::WaitOp>());
}

TEST_F(HostSideRulesTest, AccessesConflictWhereOneWritesWhatTheOtherTouches) {
  ASSERT_TRUE(module);
  func::FuncOp buffers = function("buffers");
  Value x = buffers.getArgument(0), y = buffers.getArgument(1);
  HostBufferAliasing aliasing(buffers);
  auto side = [](ArrayRef<unsigned> reads, ArrayRef<unsigned> writes) {
    SideAccess access;
    access.slots = AccessSummary(reads, writes);
    return access;
  };
  // Slots: a write meets a read or a write of the same slot only.
  EXPECT_TRUE(sidesMayConflict(side({}, {1}), side({1}, {}), aliasing));
  EXPECT_TRUE(sidesMayConflict(side({1}, {}), side({}, {1}), aliasing));
  EXPECT_TRUE(sidesMayConflict(side({}, {1}), side({}, {1}), aliasing));
  EXPECT_FALSE(sidesMayConflict(side({1}, {}), side({1}, {}), aliasing));
  EXPECT_FALSE(sidesMayConflict(side({}, {1}), side({2}, {2}), aliasing));
  // Unknown slots meet any slot, but not an access to none.
  SideAccess unknown;
  unknown.slots = AccessSummary::unknown();
  EXPECT_TRUE(sidesMayConflict(unknown, side({2}, {}), aliasing));
  EXPECT_FALSE(sidesMayConflict(unknown, side({}, {}), aliasing));
  // Host buffers: a write of %x meets a read of %x, not of %y (noalias
  // arguments); two reads never conflict.
  SideAccess writesX, readsX, readsY;
  writesX.hostWrites.insert(x);
  readsX.hostReads.insert(x);
  readsY.hostReads.insert(y);
  EXPECT_TRUE(sidesMayConflict(writesX, readsX, aliasing));
  EXPECT_TRUE(sidesMayConflict(readsX, writesX, aliasing));
  EXPECT_FALSE(sidesMayConflict(writesX, readsY, aliasing));
  EXPECT_FALSE(sidesMayConflict(readsX, readsX, aliasing));
  // A write of any host buffer meets every host access; a read of any
  // meets every host write.
  SideAccess writesAny, readsAny;
  writesAny.anyHostWrite = true;
  readsAny.anyHostRead = true;
  EXPECT_TRUE(sidesMayConflict(writesAny, readsY, aliasing));
  EXPECT_TRUE(sidesMayConflict(readsAny, writesX, aliasing));
  EXPECT_FALSE(sidesMayConflict(readsAny, readsY, aliasing));
}

TEST_F(HostSideRulesTest, ArgumentsBehindASelect) {
  ASSERT_TRUE(module);
  func::FuncOp choices = function("choices");
  Value x = choices.getArgument(0), y = choices.getArgument(1),
        z = choices.getArgument(2);
  SmallVector<Value> values;
  choices.walk([&](Operation *op) {
    if (op->getNumResults() == 1)
      values.push_back(op->getResult(0));
  });
  ASSERT_EQ(values.size(), 5u);
  Value allocation = values[0], xy = values[1], view = values[2],
        xyz = values[3], xp = values[4];
  std::optional<SmallVector<Value, 2>> behindXY =
      HostBufferAliasing::getArgumentsBehind(xy);
  ASSERT_TRUE(behindXY.has_value());
  ASSERT_EQ(behindXY->size(), 2u);
  EXPECT_TRUE(llvm::is_contained(*behindXY, x));
  EXPECT_TRUE(llvm::is_contained(*behindXY, y));
  // Through views and selects of selects.
  EXPECT_EQ(HostBufferAliasing::getArgumentsBehind(view), behindXY);
  std::optional<SmallVector<Value, 2>> behindXYZ =
      HostBufferAliasing::getArgumentsBehind(xyz);
  ASSERT_TRUE(behindXYZ.has_value());
  EXPECT_EQ(behindXYZ->size(), 3u);
  // A select that may be an allocation is none.
  EXPECT_FALSE(HostBufferAliasing::getArgumentsBehind(xp).has_value());
  EXPECT_FALSE(HostBufferAliasing::getArgumentsBehind(allocation).has_value());
  EXPECT_EQ(HostBufferAliasing::getArgumentsBehind(z),
            (SmallVector<Value, 2>{z}));

  // The planner takes a select among arguments for one of them too.
  EXPECT_EQ(HostBufferAliasing::getOrigin(xy),
            HostBufferOrigin::ArgumentChoice);
  EXPECT_EQ(HostBufferAliasing::getOrigin(xyz),
            HostBufferOrigin::ArgumentChoice);
  EXPECT_EQ(HostBufferAliasing::getOrigin(xp), HostBufferOrigin::Unknown);
  HostBufferAliasing aliasing(choices);
  EXPECT_TRUE(aliasing.mayAlias(xy, x));
  EXPECT_TRUE(aliasing.mayAlias(y, xy));
  EXPECT_FALSE(aliasing.mayAlias(xy, z));
  EXPECT_TRUE(aliasing.mayAlias(xyz, z));
  EXPECT_TRUE(aliasing.mayAlias(xyz, xy));
  EXPECT_FALSE(aliasing.mayAlias(xy, allocation));
  EXPECT_TRUE(aliasing.mayAlias(xp, z));

  // Its slots are those of the arguments; a select that may be anything
  // may be every slot.
  SlotAccessAnalysis slots(choices);
  SmallVector<unsigned> slotsOfXY{*slots.getSlotNumber(x),
                                  *slots.getSlotNumber(y)};
  llvm::sort(slotsOfXY);
  EXPECT_EQ(HostBufferAliasing::getSlotsOf(xy, slots), slotsOfXY);
  EXPECT_EQ(HostBufferAliasing::getSlotsOf(xyz, slots).size(), 3u);
  EXPECT_EQ(HostBufferAliasing::getSlotsOf(xp, slots).size(),
            slots.getSlots().size());
  EXPECT_EQ(HostBufferAliasing::getSlotsOf(x, slots),
            (SmallVector<unsigned>{*slots.getSlotNumber(x)}));
  EXPECT_TRUE(HostBufferAliasing::getSlotsOf(allocation, slots).empty());
}

} // namespace
