//===- LastAccesses.h - What touched each buffer last ------------*- C++ -*-===//
//
// While the placement step walks a block, the last op (or planned copy) that
// touched each slot and each host buffer: a copy may move up to just after
// the last of those it must follow.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_OVERLAPCOPIES_LASTACCESSES_H
#define VYRE_TRANSFORMS_OVERLAPCOPIES_LASTACCESSES_H

#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Transforms/OverlapCopies/CopyPlan.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::vyre::overlap {

/// An input op of the block being planned, or a planned copy, and where it
/// is. A null stamp is "nothing": the block's start.
struct Stamp {
  PlanPoint point;
  Operation *op = nullptr;
  std::optional<unsigned> copy;

  explicit operator bool() const { return op || copy; }
  /// Keeps whichever of this and `candidate` comes later.
  void keepLatest(const Stamp &candidate) {
    if (candidate && (!*this || point.isBefore(candidate.point)))
      *this = candidate;
  }
};

/// The last ops of a block, so far in program order, that touched each slot
/// and host buffer.
struct LastAccesses {
  /// Records what `op` touches as the latest access.
  void note(const Stamp &op, const OpFootprint &footprint);
  /// Records a planned copy into the host (`placed`, whose original is
  /// `original`) as the latest write of `slots` and of `hostRoot`.
  void noteCopyToHost(const Stamp &placed, Operation *original,
                      ArrayRef<unsigned> slots, Value hostRoot);
  /// Records `copy`, on side stream `stream`, as the last copy there that
  /// reads each of `slots`.
  void noteCopyReadingSlots(ArrayRef<unsigned> slots, int64_t stream,
                            const Stamp &copy);
  /// Given the latest write of a buffer, the op (an input op, or a planned
  /// copy's original) whose write gives way to the one it replaced, because
  /// it touches only other bytes of the buffer; null where it does not.
  using SkippableWriter = llvm::function_ref<Operation *(const Stamp &)>;

  /// Calls `each` with `anyWriter` and with the latest writer, in `writers`,
  /// of each buffer that may be `hostRoot`. The latest of them is not always
  /// enough to follow: writers of two buffers that cannot alias each other
  /// (two `llvm.noalias` arguments a select may be) need not be ordered
  /// among themselves. With `priors`, a writer `skippable` names gives way
  /// to the write it replaced.
  void forEachWriterOf(
      Value hostRoot, const DenseMap<Value, Stamp> &writers, Stamp anyWriter,
      HostBufferAliasing &aliasing,
      llvm::function_ref<void(const Stamp &)> each,
      const DenseMap<std::pair<Operation *, Value>, Stamp> *priors = nullptr,
      SkippableWriter skippable = {}) const;
  /// The latest of the writers forEachWriterOf names.
  Stamp lastWriterOf(
      Value hostRoot, const DenseMap<Value, Stamp> &writers, Stamp anyWriter,
      HostBufferAliasing &aliasing,
      const DenseMap<std::pair<Operation *, Value>, Stamp> *priors = nullptr,
      SkippableWriter skippable = {}) const;
  /// The latest writer of `key` in `writers`, passing over those
  /// `skippable` names to the write each replaced (at most a few: past
  /// them, the writer found so far, which is always safe to follow).
  template <typename Key>
  Stamp lastWriteNotSkipped(
      const DenseMap<Key, Stamp> &writers,
      const DenseMap<std::pair<Operation *, Key>, Stamp> &priors, Key key,
      SkippableWriter skippable) const {
    Stamp writer = writers.lookup(key);
    for (unsigned passed = 0; writer && passed < kMaxWritersPassed;
         ++passed) {
      Operation *op = skippable(writer);
      if (!op)
        break;
      auto it = priors.find({op, key});
      if (it == priors.end())
        break;
      ++steps;
      writer = it->second;
    }
    return writer;
  }
  static constexpr unsigned kMaxWritersPassed = 8;
  /// Calls `each` with the latest op whose device work may still be reading
  /// each buffer that may be `hostRoot`.
  void
  forEachDeviceReaderOf(Value hostRoot, HostBufferAliasing &aliasing,
                        llvm::function_ref<void(const Stamp &)> each) const;

  DenseMap<unsigned, Stamp> slot, slotWrite;
  /// For an op that reaches a buffer through a memref.subview (a copy back
  /// into rows of an array), the write of each slot or host buffer it
  /// replaced as the latest: a copy reading other bytes of the buffer
  /// follows that one instead (touchesOnlyOtherBytes).
  DenseMap<std::pair<Operation *, unsigned>, Stamp> priorSlotWrite;
  DenseMap<std::pair<Operation *, Value>, Stamp> priorHostWrite,
      priorDeviceHostWrite;
  Stamp anySlot, anySlotWrite;
  DenseMap<Value, Stamp> hostWrite;
  /// Written roots that are function arguments or of unknown origin.
  SetVector<Value> openHostRoots;
  Stamp anyHostWrite;
  /// The last op whose main-stream work may still be writing a host buffer
  /// when the host moves on (a kernel writing an argument), per root.
  DenseMap<Value, Stamp> deviceHostWrite;
  Stamp anyDeviceHostWrite;
  /// The last op whose device work may still be reading a host buffer when
  /// the host moves on (a loop whose copies only the main stream waited
  /// for), per root.
  DenseMap<Value, Stamp> deviceHostRead;
  Stamp anyDeviceHostRead;
  /// Per side stream, the last async copy reading each host root that is not
  /// an allocation, and writing each argument slot: a function argument may
  /// be both a copy's source and another copy's destination.
  DenseMap<std::pair<Value, int64_t>, Stamp> copyReadingRoot;
  DenseMap<std::pair<Value, int64_t>, Stamp> copyWritingArgument;
  /// Per side stream, the last async copy reading each host root, whatever
  /// its origin: a copy into the host must wait for those reading its
  /// destination.
  DenseMap<std::pair<Value, int64_t>, Stamp> copyReadingHost;
  /// Per side stream, the last async copy whose source is each slot (a
  /// device buffer copied as if it were host memory).
  DenseMap<unsigned, SmallVector<std::pair<int64_t, Stamp>, 2>>
      copyReadingSlot;
  /// Entries looked at so far, for tests of how the work grows.
  mutable uint64_t steps = 0;
};

} // namespace mlir::vyre::overlap

#endif // VYRE_TRANSFORMS_OVERLAPCOPIES_LASTACCESSES_H
