//===- AllocationGroupsTest.cpp - Buffers freed together, through C++ -----===//

#include "vyre/Analysis/AllocationGroups.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

// %a, %b and %c are freed one after another (a constant and a vyre.wait
// between the frees); %d is freed after a host store; %e has a dynamic size.
constexpr const char *kProgram = R"mlir(
  func.func @host(%h: memref<4xf32>, %v: f32, %n: index) {
    %c0 = arith.constant 0 : index
    %a = vyre.alloc : memref<16xf32>
    %b = vyre.alloc : memref<3xi8>
    memref.store %v, %h[%c0] : memref<4xf32>
    %c = vyre.alloc : memref<2x2xf64>
    %d = vyre.alloc : memref<16xf32>
    %e = vyre.alloc(%n) : memref<?xf32>
    %r = vyre.record
    vyre.dealloc %b : memref<3xi8>
    %c1 = arith.constant 1 : index
    vyre.dealloc %a : memref<16xf32>
    vyre.wait %r
    vyre.dealloc %c : memref<2x2xf64>
    memref.store %v, %h[%c0] : memref<4xf32>
    vyre.dealloc %d : memref<16xf32>
    vyre.dealloc %e : memref<?xf32>
    return
  }
)mlir";

class AllocationGroupsTest : public ::testing::Test {
protected:
  AllocationGroupsTest() {
    DialectRegistry registry;
    registerVyreDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  SmallVector<AllocOp> allocs() {
    SmallVector<AllocOp> result;
    module->walk([&](AllocOp alloc) { result.push_back(alloc); });
    return result;
  }
  SmallVector<DeallocOp> deallocs() {
    SmallVector<DeallocOp> result;
    module->walk([&](DeallocOp dealloc) { result.push_back(dealloc); });
    return result;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(AllocationGroupsTest, GroupsBuffersFreedTogether) {
  ASSERT_TRUE(module);
  SmallVector<AllocationGroup> groups = findAllocationGroups(*module);
  ASSERT_EQ(groups.size(), 1u);
  const AllocationGroup &group = groups.front();
  SmallVector<AllocOp> all = allocs();
  // In block order, whatever the order of the frees.
  ASSERT_EQ(group.allocs.size(), 3u);
  EXPECT_EQ(group.allocs[0], all[0]);
  EXPECT_EQ(group.allocs[1], all[1]);
  EXPECT_EQ(group.allocs[2], all[2]);
  // 64 bytes at 0, 3 at 256, 32 at 512.
  ASSERT_EQ(group.byteOffsets.size(), 3u);
  EXPECT_EQ(group.byteOffsets[0], 0);
  EXPECT_EQ(group.byteOffsets[1], kGroupedBufferAlignment);
  EXPECT_EQ(group.byteOffsets[2], 2 * kGroupedBufferAlignment);
  EXPECT_EQ(group.totalBytes, 2 * kGroupedBufferAlignment + 32);
  SmallVector<DeallocOp> frees = deallocs();
  ASSERT_EQ(group.deallocs.size(), 3u);
  EXPECT_EQ(group.deallocs.back(), frees[2]);
}

TEST_F(AllocationGroupsTest, FreesTheGroupAtItsLastDealloc) {
  ASSERT_TRUE(module);
  AllocationGroups groups(*module);
  SmallVector<DeallocOp> frees = deallocs();
  EXPECT_TRUE(groups.isFreedLater(frees[0]));
  EXPECT_TRUE(groups.isFreedLater(frees[1]));
  EXPECT_FALSE(groups.isFreedLater(frees[2]));
  // Apart: after a host store, and of a dynamic size.
  EXPECT_FALSE(groups.isFreedLater(frees[3]));
  EXPECT_FALSE(groups.isFreedLater(frees[4]));
  EXPECT_EQ(groups.lookup(frees[3]), nullptr);
  EXPECT_EQ(groups.lookup(allocs()[4]), nullptr);
  EXPECT_EQ(groups.lookup(allocs()[0]), groups.lookup(frees[2]));
}

TEST(AllocationGroupsOddElements, KeepsBuffersOfThreeByteElementsApart) {
  // i24 takes 3 bytes in the data layout, 4 in LLVM's: never grouped.
  DialectRegistry registry;
  registerVyreDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @odd() {
      %a = vyre.alloc : memref<16xi24>
      %b = vyre.alloc : memref<16xi24>
      vyre.dealloc %a : memref<16xi24>
      vyre.dealloc %b : memref<16xi24>
      return
    }
  )mlir",
                                                             &context);
  ASSERT_TRUE(module);
  EXPECT_TRUE(findAllocationGroups(*module).empty());
}

TEST_F(AllocationGroupsTest, NoRootNoGroups) {
  AllocationGroups groups(nullptr);
  EXPECT_TRUE(groups.groups.empty());
}

} // namespace
