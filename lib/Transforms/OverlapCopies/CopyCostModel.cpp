//===- CopyCostModel.cpp - Whether moving a copy pays for itself ----------===//

#include "vyre/Transforms/OverlapCopies/CopyCostModel.h"

#include "vyre/Analysis/DeviceCosts.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

/// Kernel time of the dispatches `op` runs: a loop's body times its constant
/// trip count (unbounded if the count is not constant and the body runs
/// kernels), a branch's longest region. Calls count nothing.
static double kernelMicrosIn(Operation *op, double defaultKernelUs) {
  if (auto dispatch = dyn_cast<DispatchOp>(op))
    return std::max(0.0, getDeclaredKernelMicros(dispatch).value_or(
                             defaultKernelUs));
  double longestRegion = 0;
  for (Region &region : op->getRegions()) {
    double sum = 0;
    for (Block &block : region)
      for (Operation &nested : block)
        sum += kernelMicrosIn(&nested, defaultKernelUs);
    longestRegion = std::max(longestRegion, sum);
  }
  auto loop = dyn_cast<scf::ForOp>(op);
  if (!loop || longestRegion == 0)
    return longestRegion;
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips)
    return kUnbounded;
  return longestRegion * double(trips->getZExtValue());
}

/// Whether the host waits for the main stream at `op`, once the plan is
/// applied: a copy that stays synchronous, or a `vyre.sync`.
static bool drainsMainStream(Operation *op,
                             const llvm::SmallPtrSetImpl<Operation *> &moved) {
  if (isa<CopyH2DOp, CopyD2HOp>(op))
    return !moved.contains(op);
  return isa<SyncOp>(op);
}

/// The kernel time the copy may run beside: the kernels still in flight on
/// the main stream where it is issued (back to the main-stream point it
/// depends on, the last op that makes the host wait, or the block's start,
/// where the lowering waits for the device), and the kernels issued after
/// it, up to the first op that waits for it (or the place of the copy that
/// does).
static double windowMicros(const CopyPlan &plan, const PlannedCopy &copy,
                           double defaultKernelUs) {
  Block *block = copy.block;
  llvm::SmallPtrSet<Operation *, 8> moved;
  for (const PlannedCopy &planned : plan.copies)
    moved.insert(planned.original);
  llvm::SmallPtrSet<Operation *, 2> waitedFor;
  for (const PlannedDependency &dependency : copy.dependencies)
    if (dependency.kind == PlannedDependency::Kind::Record)
      waitedFor.insert(dependency.recordAnchor);

  double sum = 0;
  if (copy.at.anchor)
    for (Block::iterator it(copy.at.anchor);; --it) {
      if (waitedFor.contains(&*it) || drainsMainStream(&*it, moved))
        break;
      sum += kernelMicrosIn(&*it, defaultKernelUs);
      if (it == block->begin())
        break;
    }

  Operation *stop = nullptr;
  bool stopIncluded = false;
  if (copy.firstWaiter.copy) {
    const PlannedCopy &waiter = plan.copies[*copy.firstWaiter.copy];
    if (waiter.block == block) {
      stop = waiter.at.anchor;
      stopIncluded = true;
    }
  } else if (copy.firstWaiter.op) {
    stop = block->findAncestorOpInBlock(*copy.firstWaiter.op);
  }
  if (stopIncluded && !stop)
    return sum; // The waiter is placed at the block's start too.
  auto it = copy.at.anchor ? std::next(Block::iterator(copy.at.anchor))
                           : block->begin();
  for (; it != block->end(); ++it) {
    if (&*it == stop && !stopIncluded)
      break;
    sum += kernelMicrosIn(&*it, defaultKernelUs);
    if (&*it == stop)
      break;
  }
  return sum;
}

/// The host time moving the copy adds: the join it starts on (if it has
/// dependencies), and the wait for it (a join on the main stream, one more
/// dependency of a later copy's join, or a host synchronization).
static double joinMicros(const PlannedCopy &copy,
                         const CopyCostOptions &options) {
  auto join = [&](size_t dependencies) {
    return options.streamCreateUs + options.eventUs * double(dependencies);
  };
  double micros = 0;
  if (!copy.dependencies.empty())
    micros += join(copy.dependencies.size() + 1);
  auto waiter = dyn_cast_or_null<StreamOpInterface>(copy.firstWaiter.op);
  if (copy.firstWaiter.copy)
    micros += options.eventUs;
  else if (waiter && waiter.getStreamIndex())
    micros += join(2);
  else
    micros += options.hostSyncUs;
  return micros;
}

/// The bytes `copy` moves, if static, and the time it takes.
static std::optional<std::pair<uint64_t, double>>
copySizeAndMicros(const PlannedCopy &copy, const CopyCostOptions &options) {
  Operation *original = copy.original;
  Value deviceEnd = copy.toHost ? cast<CopyD2HOp>(original).getSource()
                                : cast<CopyH2DOp>(original).getTarget();
  std::optional<uint64_t> bytes = getCopyBytes(deviceEnd, original);
  if (!bytes)
    return std::nullopt;
  double gbps = copy.toHost ? options.d2hGBps : options.h2dGBps;
  return std::make_pair(*bytes, options.copyLatencyUs +
                                    double(*bytes) / (gbps * 1e3));
}

/// What the copy left in place makes the host wait out: the kernels still in
/// flight on the main stream where it stands (back to the last op that makes
/// the host wait, or the block's start), then the copy itself.
static double hostWaitInPlaceMicros(const CopyPlan &plan,
                                    const PlannedCopy &copy, double copyUs,
                                    double defaultKernelUs) {
  llvm::SmallPtrSet<Operation *, 8> moved;
  for (const PlannedCopy &planned : plan.copies)
    moved.insert(planned.original);
  Block *block = copy.original->getBlock();
  double sum = copyUs;
  for (Block::iterator it(copy.original); it != block->begin();) {
    --it;
    if (drainsMainStream(&*it, moved))
      break;
    sum += kernelMicrosIn(&*it, defaultKernelUs);
  }
  return sum;
}

/// The time of the moved copies that the copy in place would hold back, up
/// to the next op that makes the host wait: those that start after its
/// place in its block (the host, waiting, issues none of them), and those
/// in its direction after it in program order wherever they start (the
/// copies in place keep them behind it).
static double laterCopiesMicros(const CopyPlan &plan, const PlannedCopy &copy,
                                const CopyCostOptions &options) {
  llvm::SmallPtrSet<Operation *, 8> moved;
  for (const PlannedCopy &planned : plan.copies)
    moved.insert(planned.original);
  Block *block = copy.original->getBlock();
  Operation *drain = nullptr;
  for (Operation *op = copy.original->getNextNode(); op;
       op = op->getNextNode())
    if (drainsMainStream(op, moved)) {
      drain = op;
      break;
    }
  auto within = [&](Operation *op) {
    return op && op->getBlock() == block &&
           copy.original->isBeforeInBlock(op) &&
           (!drain || op->isBeforeInBlock(drain));
  };
  double sum = 0;
  for (const PlannedCopy &later : plan.copies) {
    if (&later == &copy || later.block != block)
      continue;
    bool startsAfter = within(later.at.anchor);
    bool behindOnEngine =
        later.toHost == copy.toHost && within(later.original);
    if (!startsAfter && !behindOnEngine)
      continue;
    if (auto size = copySizeAndMicros(later, options))
      sum += size->second;
  }
  return sum;
}

/// Whether `copy` is the first planned copy on its side stream: moving it
/// makes the function use one more stream, which the host waits for at the
/// return.
static bool opensItsStream(const CopyPlan &plan, const PlannedCopy &copy) {
  return llvm::none_of(plan.copies, [&](const PlannedCopy &other) {
    return other.stream == copy.stream && other.id < copy.id;
  });
}

CopyCostVerdict overlap::evaluateCopyCost(const CopyPlan &plan,
                                          const PlannedCopy &copy,
                                          const CopyCostOptions &options) {
  CopyCostVerdict verdict;
  auto size = copySizeAndMicros(copy, options);
  if (!size)
    return verdict;
  verdict.bytes = size->first;
  verdict.copyUs = size->second;
  verdict.windowUs = windowMicros(plan, copy, options.defaultKernelUs);
  // The copy in place makes the host wait for it, and the device then waits
  // for the host to issue the next op.
  double inPlaceUs = options.hostSyncUs + options.launchUs;
  // Meanwhile the copies moved after it cannot start: moving it lets them
  // run during what the host would have waited out.
  verdict.releasedUs =
      std::min(hostWaitInPlaceMicros(plan, copy, verdict.copyUs,
                                     options.defaultKernelUs),
               laterCopiesMicros(plan, copy, options));
  verdict.savingUs = std::min(verdict.copyUs, verdict.windowUs) + inPlaceUs +
                     verdict.releasedUs;
  // The host spends the joins while the device runs the kernels beside the
  // copy: only what they do not cover delays the program.
  verdict.overheadUs =
      std::max(0.0, joinMicros(copy, options) - verdict.windowUs);
  // The host waits for a stream the function did not use before at the
  // return, once the device is done: nothing hides that.
  if (opensItsStream(plan, copy))
    verdict.overheadUs += options.hostSyncUs;
  return verdict;
}

std::string CopyCostVerdict::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "copy of ";
  uint64_t size = bytes.value_or(0);
  if (size >= (1u << 20) && size % (1u << 20) == 0)
    os << size / (1u << 20) << " MiB";
  else if (size >= 1024 && size % 1024 == 0)
    os << size / 1024 << " KiB";
  else
    os << size << " B";
  os << ": saving " << llvm::format("%.1f", savingUs) << " us "
     << (savingUs >= overheadUs ? ">=" : "<") << " overhead "
     << llvm::format("%.1f", overheadUs) << " us";
  return text;
}
