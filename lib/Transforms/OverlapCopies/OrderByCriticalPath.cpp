//===- OrderByCriticalPath.cpp - Independent work by critical path --------===//

#include "vyre/Transforms/OverlapCopies/OrderByCriticalPath.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/DeviceCosts.h"
#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

namespace {

/// The engines the estimate runs ops on, as --vyre-simulate's defaults: one
/// copy engine per direction, one compute engine; and the host, which runs
/// the host ops after a run in order (and issues what follows each).
enum class Engine : unsigned { CopyIn, Compute, CopyOut, Host };
constexpr unsigned kNumEngines = 4;

/// The times, and what is known of each kernel launched.
struct KnownTimes : WorkTimes {
  explicit KnownTimes(const WorkTimes &times) : WorkTimes(times) {}
  /// Whether a kernel touches memory only through its memref arguments.
  llvm::DenseMap<Operation *, bool> kernelsOnArguments;
};

/// Whether `dispatch`'s kernel touches memory only through its memref
/// arguments, where the slot summaries see it: a kernel without a body does
/// what its launch declares; one with a body must not take a global
/// (`memref.get_global`), call, or use the LLVM dialect (pointers, address
/// arithmetic). Two kernels that share a global keep their order only on
/// the main stream, which the reordering would break.
bool touchesOnlyArguments(DispatchOp dispatch, KnownTimes &times) {
  Operation *kernel =
      SymbolTable::lookupNearestSymbolFrom(dispatch, dispatch.getKernel());
  if (!kernel)
    return false;
  auto [known, isNew] = times.kernelsOnArguments.try_emplace(kernel, true);
  if (!isNew)
    return known->second;
  auto escapes = [](Operation *op) {
    Dialect *dialect = op->getDialect();
    return isa<memref::GetGlobalOp, CallOpInterface>(op) || !dialect ||
           isa<LLVM::LLVMDialect>(dialect);
  };
  bool onArguments = !kernel
                          ->walk([&](Operation *op) {
                            return escapes(op) ? WalkResult::interrupt()
                                               : WalkResult::advance();
                          })
                          .wasInterrupted();
  times.kernelsOnArguments[kernel] = onArguments;
  return onArguments;
}

/// Whether each memref operand of `op` is, through views, a function
/// argument or a new allocation: a buffer chosen at run time (a select, a
/// region's result, a loop's iteration argument) ends runs, since the
/// checkers downstream may take it for either buffer.
bool hasPlainBuffers(Operation *op) {
  for (Value operand : op->getOperands()) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    Value root = operand;
    while (Operation *defining = root.getDefiningOp()) {
      auto view = dyn_cast<ViewLikeOpInterface>(defining);
      if (!view)
        break;
      root = view.getViewSource();
    }
    if (auto argument = dyn_cast<BlockArgument>(root)) {
      if (!isa<FunctionOpInterface>(argument.getOwner()->getParentOp()))
        return false;
      continue;
    }
    if (!isa<AllocOp, memref::AllocOp, memref::AllocaOp>(root.getDefiningOp()))
      return false;
  }
  return true;
}

/// One op of a run.
struct RunOp {
  Operation *op;
  Engine engine;
  double micros;
  /// What it touches, with the function arguments it reads as device
  /// buffers counted as host memory it reads (the footprint already counts
  /// those it writes): a copy back into host memory that is such an argument
  /// must stay after a kernel that reads it.
  SideAccess access;
  SmallVector<unsigned, 4> predecessors;
  SmallVector<unsigned, 4> successors;
  /// Its time plus the longest chain of ops after it.
  double tail = 0;
};

/// Counts the function arguments `access` reads as device buffers as host
/// memory it reads.
void addArgumentReads(SideAccess &access, const SlotAccessAnalysis &slots) {
  for (unsigned slot : access.slots.getReads())
    if (Value root = slots.getSlots()[slot]; isa<BlockArgument>(root))
      access.hostReads.insert(root);
}

/// `op` as an op of a run, or none where it ends runs: not a copy or a
/// dispatch, effects the analysis cannot name, host accesses of its own, or
/// a copy of unknown size.
std::optional<RunOp> describe(Operation *op, OpFootprintCache &footprints,
                              const SlotAccessAnalysis &slots,
                              KnownTimes &times) {
  if (!isa<CopyH2DOp, CopyD2HOp, DispatchOp>(op) || op->getNumResults() != 0 ||
      !hasPlainBuffers(op))
    return std::nullopt;
  if (auto dispatch = dyn_cast<DispatchOp>(op);
      dispatch && !touchesOnlyArguments(dispatch, times))
    return std::nullopt;
  OpFootprint footprint = footprints.get(op);
  if (footprint.unknown || footprint.device.slots.isUnknown() ||
      !footprint.host.slots.isEmpty() || footprint.host.mayReadHost() ||
      footprint.host.mayWriteHost())
    return std::nullopt;
  RunOp run{op, Engine::Compute, 0, footprint.device, {}, {}};
  addArgumentReads(run.access, slots);
  if (auto dispatch = dyn_cast<DispatchOp>(op)) {
    run.micros = std::max(
        0.0, getDeclaredKernelMicros(dispatch).value_or(times.defaultKernelUs));
    return run;
  }
  bool toDevice = isa<CopyH2DOp>(op);
  Value deviceEnd = toDevice ? cast<CopyH2DOp>(op).getTarget()
                             : cast<CopyD2HOp>(op).getSource();
  std::optional<uint64_t> bytes = getCopyBytes(deviceEnd, op);
  if (!bytes)
    return std::nullopt;
  run.engine = toDevice ? Engine::CopyIn : Engine::CopyOut;
  run.micros =
      times.copyLatencyUs +
      double(*bytes) / ((toDevice ? times.h2dGBps : times.d2hGBps) * 1e3);
  return run;
}

/// Whether copies and kernels may move past `op`: it has no regions and
/// touches no buffer (a view, index arithmetic), or it makes a new device
/// buffer, which no op before it can touch.
bool isTransparent(Operation *op) {
  return op->getNumRegions() == 0 && !op->hasTrait<OpTrait::IsTerminator>() &&
         (isa<AllocOp>(op) || isMemoryEffectFree(op));
}

/// Links each op of `run` to the earlier ops it must follow, and gives each
/// its tail.
void linkRun(MutableArrayRef<RunOp> run, HostBufferAliasing &aliasing) {
  for (unsigned later = 0; later < run.size(); ++later)
    for (unsigned earlier = 0; earlier < later; ++earlier)
      if (sidesMayConflict(run[earlier].access, run[later].access, aliasing)) {
        run[earlier].successors.push_back(later);
        run[later].predecessors.push_back(earlier);
      }
  for (unsigned i = run.size(); i-- > 0;) {
    double longest = 0;
    for (unsigned successor : run[i].successors)
      longest = std::max(longest, run[successor].tail);
    run[i].tail = run[i].micros + longest;
  }
}

/// When each op of `run` starts, with each engine running its ops in the
/// order `order` gives, and the makespan of the run and the ops after it
/// (`later`, in their order, each after the host ops before it; their
/// predecessors index the run's ops, then theirs).
double estimate(ArrayRef<RunOp> run, ArrayRef<unsigned> order,
                ArrayRef<RunOp> later, SmallVectorImpl<double> &start) {
  double engineFree[kNumEngines] = {0, 0, 0, 0};
  SmallVector<double> end(run.size() + later.size(), 0);
  start.assign(run.size(), 0);
  double makespan = 0;
  auto place = [&](const RunOp &op, unsigned index, double at) {
    at = std::max(at, engineFree[unsigned(op.engine)]);
    for (unsigned predecessor : op.predecessors)
      at = std::max(at, end[predecessor]);
    end[index] = at + op.micros;
    engineFree[unsigned(op.engine)] = end[index];
    makespan = std::max(makespan, end[index]);
    return at;
  };
  for (unsigned i : order)
    start[i] = place(run[i], i, 0);
  for (unsigned j = 0; j < later.size(); ++j)
    place(later[j], run.size() + j, engineFree[unsigned(Engine::Host)]);
  return makespan;
}

/// A list schedule of `run`: of the ops whose predecessors are scheduled,
/// the one that can start first goes next; ties go to the longer tail, then
/// to the input's order. Quadratic in the run's length.
SmallVector<unsigned> listSchedule(ArrayRef<RunOp> run) {
  double engineFree[kNumEngines] = {0, 0, 0};
  // When the predecessors scheduled so far are done.
  SmallVector<double> inputsDone(run.size(), 0);
  SmallVector<unsigned> pending(run.size());
  for (unsigned i = 0; i < run.size(); ++i)
    pending[i] = run[i].predecessors.size();
  SmallVector<unsigned> ready, order;
  for (unsigned i = 0; i < run.size(); ++i)
    if (pending[i] == 0)
      ready.push_back(i);
  auto earliest = [&](unsigned i) {
    return std::max(engineFree[unsigned(run[i].engine)], inputsDone[i]);
  };
  while (!ready.empty()) {
    auto best = ready.begin();
    double bestAt = earliest(*best);
    for (auto it = std::next(ready.begin()); it != ready.end(); ++it) {
      double at = earliest(*it);
      if (at < bestAt || (at == bestAt && (run[*it].tail > run[*best].tail ||
                                           (run[*it].tail == run[*best].tail &&
                                            *it < *best)))) {
        best = it;
        bestAt = at;
      }
    }
    unsigned i = *best;
    ready.erase(best);
    double end = bestAt + run[i].micros;
    engineFree[unsigned(run[i].engine)] = end;
    order.push_back(i);
    for (unsigned successor : run[i].successors) {
      inputsDone[successor] = std::max(inputsDone[successor], end);
      if (--pending[successor] == 0)
        ready.push_back(successor);
    }
  }
  return order;
}

/// The ops after a run (from `end`) that the estimate counts, linked to the
/// run's ops and to each other: copies and dispatches, host ops (on the
/// host, taking no time), and a first op that runs kernels in regions or
/// callees (on the compute engine, taking no time: what it waits for
/// delays every kernel in it), which ends them. They also end at a free,
/// the terminator or an op of unknown effect (each waits for everything
/// before it, which the makespan covers), and after `kMaxCriticalPathRun`.
SmallVector<RunOp, 0> opsAfter(Operation *end, ArrayRef<RunOp> run,
                               OpFootprintCache &footprints,
                               const SlotAccessAnalysis &slots,
                               KnownTimes &times,
                               HostBufferAliasing &aliasing) {
  SmallVector<RunOp, 0> later;
  for (Operation *op = end; op && later.size() < kMaxCriticalPathRun;
       op = op->getNextNode()) {
    if (isa<DeallocOp>(op) || op->hasTrait<OpTrait::IsTerminator>())
      break;
    if (isTransparent(op))
      continue;
    std::optional<RunOp> next = describe(op, footprints, slots, times);
    bool last = false;
    if (!next) {
      OpFootprint footprint = footprints.get(op);
      if (isa<CopyH2DOp, CopyD2HOp, DispatchOp>(op) || footprint.unknown ||
          footprint.device.slots.isUnknown() ||
          footprint.host.slots.isUnknown())
        break;
      last = footprint.numKernels != 0 || op->getNumRegions() != 0;
      next = RunOp{op, last ? Engine::Compute : Engine::Host,
                   0,  footprint.device,
                   {}, {}};
      next->access.merge(footprint.host);
      addArgumentReads(next->access, slots);
    }
    for (unsigned i = 0; i < run.size(); ++i)
      if (sidesMayConflict(run[i].access, next->access, aliasing))
        next->predecessors.push_back(i);
    for (unsigned j = 0; j < later.size(); ++j)
      if (sidesMayConflict(later[j].access, next->access, aliasing))
        next->predecessors.push_back(run.size() + j);
    later.push_back(std::move(*next));
    if (last)
      break;
  }
  return later;
}

/// How far `isReadLater` looks.
constexpr unsigned kMaxLaterReaders = 256;

/// Whether an op of the block from `end` on may touch what `copy` touches
/// (a free, the terminator and an op of unknown effect do not count: each
/// waits for everything before it). True where it cannot tell within
/// `kMaxLaterReaders` ops.
bool isReadLater(const RunOp &copy, Operation *end,
                 OpFootprintCache &footprints, const SlotAccessAnalysis &slots,
                 HostBufferAliasing &aliasing) {
  unsigned seen = 0;
  for (Operation *op = end; op; op = op->getNextNode()) {
    if (op->hasTrait<OpTrait::IsTerminator>())
      return false;
    if (isa<DeallocOp>(op) || isTransparent(op))
      continue;
    if (++seen > kMaxLaterReaders)
      return true;
    OpFootprint footprint = footprints.get(op);
    if (footprint.unknown || footprint.device.slots.isUnknown() ||
        footprint.host.slots.isUnknown())
      return false;
    SideAccess access = footprint.device;
    access.merge(footprint.host);
    addArgumentReads(access, slots);
    if (sidesMayConflict(copy.access, access, aliasing))
      return true;
  }
  return false;
}

/// Keeps each copy of `run` that nothing after it waits for (no op of the
/// run, and no later op of the block but frees and ops that wait for
/// everything) before the kernels written after it. Moving such a copy up
/// gains nothing, so the cost model may leave it on the main stream, where
/// a kernel moved above it would delay it.
void keepUnneededCopiesFirst(MutableArrayRef<RunOp> run, Operation *end,
                             OpFootprintCache &footprints,
                             const SlotAccessAnalysis &slots,
                             HostBufferAliasing &aliasing) {
  for (unsigned copy = 0; copy < run.size(); ++copy) {
    if (run[copy].engine == Engine::Compute || !run[copy].successors.empty() ||
        isReadLater(run[copy], end, footprints, slots, aliasing))
      continue;
    for (unsigned kernel = copy + 1; kernel < run.size(); ++kernel)
      if (run[kernel].engine == Engine::Compute) {
        run[copy].successors.push_back(kernel);
        run[kernel].predecessors.push_back(copy);
      }
  }
}

/// Reorders one run (its ops of work `run`, the ops that touch no buffer
/// among them `transparent`) before `end`, if the list schedule's estimate
/// is shorter than the input order's, counting the ops after the run
/// (`opsAfter`), by more than 1% of the run's own time in the input's order
/// and 1 us.
std::optional<ReorderedRun>
orderRun(MutableArrayRef<RunOp> run, ArrayRef<Operation *> transparent,
         Operation *end, OpFootprintCache &footprints,
         const SlotAccessAnalysis &slots, KnownTimes &times,
         HostBufferAliasing &aliasing) {
  linkRun(run, aliasing);
  SmallVector<unsigned> inputOrder =
      llvm::to_vector(llvm::seq<unsigned>(0, run.size()));
  SmallVector<double> start;
  double runUs = estimate(run, inputOrder, {}, start);
  auto pays = [&](double inputUs, double newUs) {
    // Written so that a NaN (infinite times) keeps the input's order.
    return inputUs - newUs > std::max(1.0, 0.01 * runUs);
  };
  // Where the run alone gains nothing (a run on one engine never does),
  // the ops after it are not looked at.
  if (!pays(runUs, estimate(run, listSchedule(run), {}, start)))
    return std::nullopt;
  SmallVector<RunOp, 0> later =
      opsAfter(end, run, footprints, slots, times, aliasing);
  keepUnneededCopiesFirst(run, end, footprints, slots, aliasing);
  runUs = estimate(run, inputOrder, {}, start);
  double inputUs = estimate(run, inputOrder, later, start);
  SmallVector<unsigned> scheduled = listSchedule(run);
  double newUs = estimate(run, scheduled, later, start);
  if (!pays(inputUs, newUs))
    return std::nullopt;
  // Issue in the order the schedule starts the ops; among ops that start
  // together, in the schedule's order (an op comes after those it follows).
  SmallVector<unsigned> rank(run.size());
  for (unsigned k = 0; k < scheduled.size(); ++k)
    rank[scheduled[k]] = k;
  llvm::stable_sort(scheduled, [&](unsigned lhs, unsigned rhs) {
    return start[lhs] != start[rhs] ? start[lhs] < start[rhs]
                                    : rank[lhs] < rank[rhs];
  });
  for (Operation *op : transparent)
    op->moveBefore(end);
  for (unsigned i : scheduled)
    run[i].op->moveBefore(end);
  return ReorderedRun{run[scheduled.front()].op, unsigned(run.size()), inputUs,
                      newUs};
}

/// Reorders the runs of `block`.
void orderBlock(Block &block, OpFootprintCache &footprints,
                const SlotAccessAnalysis &slots, KnownTimes &times,
                HostBufferAliasing &aliasing,
                SmallVectorImpl<ReorderedRun> &reordered) {
  SmallVector<Operation *> ops =
      llvm::map_to_vector(block, [](Operation &op) { return &op; });
  SmallVector<RunOp, 0> run;
  SmallVector<Operation *> transparent;
  auto close = [&](Operation *end) {
    if (run.size() < 2) {
      run.clear();
      transparent.clear();
      return;
    }
    if (std::optional<ReorderedRun> done =
            orderRun(run, transparent, end, footprints, slots, times, aliasing))
      reordered.push_back(*done);
    run.clear();
    transparent.clear();
  };
  for (Operation *op : ops) {
    if (std::optional<RunOp> work = describe(op, footprints, slots, times)) {
      if (run.size() == kMaxCriticalPathRun)
        close(op);
      run.push_back(std::move(*work));
      continue;
    }
    if (!run.empty() && isTransparent(op)) {
      transparent.push_back(op);
      continue;
    }
    if (run.empty())
      continue;
    // The ops that touch no buffer after the run's last op stay where they
    // are: the run moves before the first of them.
    Operation *end = op;
    while (!transparent.empty() &&
           run.back().op->isBeforeInBlock(transparent.back()))
      end = transparent.pop_back_val();
    close(end);
  }
}

} // namespace

SmallVector<ReorderedRun>
overlap::orderByCriticalPath(FunctionOpInterface function,
                             const SlotAccessAnalysis &slots,
                             const WorkTimes &times) {
  OpFootprintCache footprints(slots);
  HostBufferAliasing aliasing(function);
  SmallVector<ReorderedRun> reordered;
  KnownTimes known(times);
  for (Block *block : getHostBlocks(function))
    orderBlock(*block, footprints, slots, known, aliasing, reordered);
  return reordered;
}
