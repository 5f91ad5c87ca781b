//===- BodyAccesses.h - Which ops of a loop body touch what ------*- C++ -*-===//
//
// Part of --vyre-pipeline-loops: an index of the ops of one block (a loop
// body, or a branch of it) by what their footprints say they may touch, built
// once, so that each question a copy asks (who else touches its slot, who
// writes its source) costs the ops that answer it, not the whole block: a
// body of n copies is checked in time near n, not n^2.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_TRANSFORMS_PIPELINELOOPS_BODYACCESSES_H
#define VYRE_LIB_TRANSFORMS_PIPELINELOOPS_BODYACCESSES_H

#include "vyre/Analysis/OpFootprint.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::vyre::pipeline {

class BodyAccesses {
public:
  /// Indexes `footprints`, those of a block's ops in order.
  explicit BodyAccesses(ArrayRef<OpFootprint> footprints);

  /// The ops that may read or write `slot` on either side, in order (those
  /// whose slots are unknown included).
  SmallVector<unsigned> accessorsOf(unsigned slot) const;
  /// The ops that may write `slot` on either side, in order (unknown
  /// included).
  SmallVector<unsigned> writersOf(unsigned slot) const;
  /// The first accessor of `slot` before `end`, other than `skip`.
  std::optional<unsigned> firstAccessorBefore(unsigned slot, unsigned end,
                                              unsigned skip) const;
  /// The ops whose slots are unknown on either side, in order.
  ArrayRef<unsigned> unknownSlots() const { return unknown; }
  /// The ops that may write host memory on either side, in order.
  ArrayRef<unsigned> hostWriters() const { return writesHost; }
  /// The ops whose device side may write host memory, in order.
  ArrayRef<unsigned> deviceHostWriters() const { return deviceWritesHost; }
  /// The ops that may read or write host memory on either side, in order.
  ArrayRef<unsigned> hostTouchers() const { return touchesHost; }

private:
  static SmallVector<unsigned> mergeWithUnknown(ArrayRef<unsigned> ops,
                                                ArrayRef<unsigned> unknown);

  DenseMap<unsigned, SmallVector<unsigned>> accessors, writers;
  SmallVector<unsigned> unknown, writesHost, deviceWritesHost, touchesHost;
};

} // namespace mlir::vyre::pipeline

#endif // VYRE_LIB_TRANSFORMS_PIPELINELOOPS_BODYACCESSES_H
