//===- OverlapPolicyTest.cpp - The policy's verdict functions ---*- C++ -*-===//

#include "vyre/Analysis/OverlapPolicy.h"

#include "gtest/gtest.h"

using namespace mlir::vyre;

namespace {

TEST(AccessSummaryTest, KeepsSetsSortedAndUnique) {
  AccessSummary summary;
  for (unsigned slot : {5u, 1u, 3u, 1u, 5u})
    summary.addRead(slot);
  summary.addWrite(2);
  summary.addWrite(0);
  summary.addWrite(2);
  EXPECT_EQ(summary.getReads(), llvm::ArrayRef<unsigned>({1, 3, 5}));
  EXPECT_EQ(summary.getWrites(), llvm::ArrayRef<unsigned>({0, 2}));
  EXPECT_EQ(summary.str(), "reads [1, 3, 5] writes [0, 2]");
  EXPECT_EQ(AccessSummary({3, 1, 3}, {}), AccessSummary({1, 3}, {}));
}

TEST(AccessSummaryTest, MergesEachWayToOneSortedSet) {
  // Into an empty set, after the set's last slot, a few slots inside it,
  // and many slots interleaved with it (a linear merge): always sorted and
  // unique, as if each slot were added alone.
  AccessSummary summary;
  summary.merge(AccessSummary({4, 8}, {}));
  summary.merge(AccessSummary({9, 12}, {}));
  summary.merge(AccessSummary({0, 8}, {}));
  summary.merge(AccessSummary({1, 2, 4, 5, 12, 13}, {}));
  EXPECT_EQ(summary.getReads(),
            llvm::ArrayRef<unsigned>({0, 1, 2, 4, 5, 8, 9, 12, 13}));
  AccessSummary oneByOne;
  for (unsigned slot : {4, 8, 9, 12, 0, 8, 1, 2, 4, 5, 12, 13})
    oneByOne.addRead(slot);
  EXPECT_EQ(summary, oneByOne);
}

TEST(AccessSummaryTest, MergesAndPrintsUnknown) {
  AccessSummary summary({1}, {2});
  summary.merge(AccessSummary({0}, {2, 4}));
  EXPECT_EQ(summary.str(), "reads [0, 1] writes [2, 4]");
  summary.merge(AccessSummary::unknown());
  EXPECT_TRUE(summary.isUnknown());
  EXPECT_TRUE(summary.mayWrite(99));
  EXPECT_EQ(summary.str(), "reads [*] writes [*]");
  EXPECT_TRUE(AccessSummary().isEmpty());
}

TEST(CanOverlapCopyWithKernelTest, CopyToAnUnreadSlotOverlaps) {
  EXPECT_EQ(canOverlapCopyWithKernel(7, AccessSummary({0, 1}, {2})),
            CopyOverlapDecision::Overlap);
}

TEST(CanOverlapCopyWithKernelTest, CopyToASlotTheKernelReadsSerializes) {
  EXPECT_EQ(canOverlapCopyWithKernel(1, AccessSummary({0, 1}, {2})),
            CopyOverlapDecision::Serialize);
}

TEST(CanOverlapCopyWithKernelTest, CopyToASlotTheKernelWritesSerializes) {
  EXPECT_EQ(canOverlapCopyWithKernel(2, AccessSummary({0, 1}, {2})),
            CopyOverlapDecision::Serialize);
}

TEST(CanOverlapCopyWithKernelTest, EmptyKernelOverlaps) {
  EXPECT_EQ(canOverlapCopyWithKernel(0, AccessSummary()),
            CopyOverlapDecision::Overlap);
}

TEST(CanOverlapCopyWithKernelTest, UnknownKernelSerializes) {
  EXPECT_EQ(canOverlapCopyWithKernel(0, AccessSummary::unknown()),
            CopyOverlapDecision::Serialize);
}

TEST(CanDispatchConcurrentlyTest, TwoReadersAreIndependent) {
  Concurrency verdict = canRunConcurrently(
      AccessSummary({0, 1}, {}), AccessSummary({1, 0}, {}));
  EXPECT_TRUE(verdict.isIndependent());
  EXPECT_EQ(verdict.reason, std::nullopt);
}

TEST(CanDispatchConcurrentlyTest, DisjointWritersAreIndependent) {
  EXPECT_TRUE(canRunConcurrently(AccessSummary({0}, {1}),
                                      AccessSummary({0}, {2}))
                  .isIndependent());
}

TEST(CanDispatchConcurrentlyTest, ReportsEachHazard) {
  EXPECT_EQ(canRunConcurrently(AccessSummary({}, {1}),
                                    AccessSummary({}, {1}))
                .reason,
            HazardKind::WriteWrite);
  EXPECT_EQ(canRunConcurrently(AccessSummary({}, {1}),
                                    AccessSummary({1}, {}))
                .reason,
            HazardKind::ReadAfterWrite);
  EXPECT_EQ(canRunConcurrently(AccessSummary({1}, {}),
                                    AccessSummary({}, {1}))
                .reason,
            HazardKind::WriteAfterRead);
}

TEST(CanDispatchConcurrentlyTest, StrongestReasonWins) {
  // Write-write beats read-after-write and write-after-read on other slots.
  AccessSummary earlier({2}, {1, 3});
  AccessSummary later({3}, {1, 2});
  Concurrency verdict = canRunConcurrently(earlier, later);
  EXPECT_FALSE(verdict.isIndependent());
  EXPECT_EQ(verdict.reason, HazardKind::WriteWrite);
  // Without the write-write, read-after-write beats write-after-read.
  EXPECT_EQ(canRunConcurrently(AccessSummary({2}, {3}),
                                    AccessSummary({3}, {2}))
                .reason,
            HazardKind::ReadAfterWrite);
}

TEST(CanDispatchConcurrentlyTest, UnknownSerializes) {
  EXPECT_EQ(canRunConcurrently(AccessSummary::unknown(), AccessSummary())
                .reason,
            HazardKind::UnknownAccess);
  EXPECT_EQ(stringifyHazardKind(HazardKind::ReadAfterWrite),
            "read-after-write");
}

} // namespace
