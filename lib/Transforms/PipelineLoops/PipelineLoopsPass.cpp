//===- PipelineLoopsPass.cpp - Copies issued iterations ahead ----*- C++ -*-===//
//
// --vyre-pipeline-loops: for each scf.for, innermost first, moves invariant
// copies out, then issues the copies that fill a buffer every iteration
// pipeline-depth - 1 iterations ahead into rotating buffers, within the
// function's buffer budget. Remarks say what was done and what blocked it.
//
//===----------------------------------------------------------------------===//

#include "FunctionAnalyses.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/DeviceCosts.h"
#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/Simulation/SimulateFunction.h"
#include "vyre/Support/PassDiagnostics.h"
#include "vyre/Transforms/OverlapCopies/ScheduleCopies.h"
#include "vyre/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <thread>

#define DEBUG_TYPE "vyre-pipeline-loops"

namespace mlir::vyre {
#define GEN_PASS_DEF_PIPELINELOOPSPASS
#include "vyre/Transforms/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::pipeline;

namespace {

/// What the cost model assumes of copies and kernels.
struct CopyTimeModel {
  double h2dGBps, copyLatencyUs, defaultKernelUs;
  /// How the depth trials schedule and simulate: as --overlap-copies and
  /// --vyre-simulate with the pass's options.
  overlap::ScheduleOptions trialSchedule;
  EngineModel trialModel;
};

/// How deep loops are pipelined.
struct DepthOptions {
  /// 0: chosen per loop (by simulation with the cost model, up to
  /// `maxDepth`; 2 without it); otherwise this depth.
  unsigned depth;
  unsigned maxDepth;
};

/// The ops of a function the pass may schedule and simulate, summed over the
/// trials of all its loops, when it chooses depths: past it, a loop gets
/// depth 2 without trials, so that the pass stays linear in the function.
constexpr uint64_t kTrialOpBudget = 200000;

/// The ops the simulator may run in the trials of a function's loops, loop
/// iterations included, summed over them: a nest of short loops multiplies
/// its trip counts, which the op limit above does not see.
constexpr uint64_t kTrialSimulatedOpBudget = 1000000;

/// A function grows to at most kGrowthFactor times its ops as written, or
/// kGrowthFloorOps, whichever is more: a loop whose written-out form would
/// pass that is pipelined less deep, or not at all. Pipelining an inner loop
/// puts its first fill in the outer body, which the outer loop may pipeline
/// in turn, writing the inner code out again: without a limit, a nest of D
/// such loops grows as 2^D.
constexpr uint64_t kGrowthFactor = 16;
constexpr uint64_t kGrowthFloorOps = 100000;

/// The iterations a loop of unknown trip count runs in the trials.
constexpr int64_t kTrialTripCount = 16;

/// A deeper pipeline is chosen only where its simulated makespan is shorter
/// by more than this fraction: an extra buffer for nothing costs memory.
constexpr double kDepthTieFraction = 0.001;

/// Pipelines the loops of one function, innermost first.
class LoopPipeliner {
public:
  LoopPipeliner(func::FuncOp function, DepthOptions depths,
                uint64_t bufferBudget, std::optional<CopyTimeModel> costs)
      : function(function), depths(depths), budgetLeft(bufferBudget),
        costs(costs) {}

  /// Returns whether the IR changed.
  bool run() {
    // A schedule (asynchronous ops written by hand, or made by an earlier
    // pass) may rely on the host waiting for a copy where it stands: moving
    // the copy out of its loop, or ahead, would drop that wait.
    if (isInStreamForm(function)) {
      if (function.walk([](scf::ForOp) { return WalkResult::interrupt(); })
              .wasInterrupted())
        remark::missed(vyre::getSourceLocation(function.getLoc()),
                       options("FunctionScheduled"))
            << "loops not pipelined: the function is scheduled already "
               "(asynchronous vyre ops), and may rely on the host waiting "
               "for its copies where they stand";
      return false;
    }
    SmallVector<scf::ForOp> loops;
    function.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    bool changed = false;
    for (scf::ForOp loop : loops)
      changed |= processLoop(loop);
    return changed;
  }

private:
  remark::RemarkOpts options(StringRef name) {
    return remark::RemarkOpts::name(name)
        .category(kRemarkCategory)
        .function(function.getName());
  }

  std::string slotOf(CopyH2DOp copy) {
    std::optional<unsigned> slot = analyses->slots.getSlotNumber(
        SlotAccessAnalysis::resolveRoot(copy.getTarget()));
    return slot ? "slot " + std::to_string(*slot) : "an unknown slot";
  }

  /// Rewrites one loop; returns whether the IR changed.
  bool processLoop(scf::ForOp loop) {
    if (getPipelinedPosition(loop.getLoc())) {
      remark::missed(vyre::getSourceLocation(loop.getLoc()),
                     options("LoopNotPipelined"))
          << "loop not pipelined: it was emitted by an earlier "
             "--vyre-pipeline-loops";
      return false;
    }
    if (!analyses) {
      analyses = std::make_unique<FunctionAnalyses>(function);
      opsAsWritten = analyses->numOps;
    }
    LoopRewriteScope scope(loop);
    Block *block = loop->getBlock();
    Operation *before =
        loop->getIterator() == block->begin() ? nullptr : loop->getPrevNode();
    Block::iterator last = std::next(loop->getIterator());
    Location loopLoc = loop.getLoc();

    SmallVector<CopyH2DOp> hoisted = hoistInvariantCopies(
        loop, analyses->slots, *analyses->hostAliasing, analyses->footprints);
    // The copies moved out of the loop are no longer where they were.
    if (!hoisted.empty())
      analyses->positions.renumber(
          block, before ? std::next(before->getIterator()) : block->begin(),
          loop->getIterator());
    for (CopyH2DOp copy : hoisted)
      remark::passed(vyre::getSourceLocation(copy.getLoc()),
                     options("InvariantCopyHoisted"))
          << "copy into " + slotOf(copy) +
                 " writes the same bytes every iteration: moved out of the "
                 "loop";
    bool pipelined = (depths.depth == 0 || depths.depth >= 2) &&
                     tryPipelining(loop, before, hoisted);
    if (hoisted.empty() && !pipelined)
      return false;
    if (pipelined)
      peelSteadyStateLoop(block, before, last, /*remarks=*/true);
    else
      tryPeelingFirstIteration(loop, /*extraOps=*/0, /*remarks=*/true);
    finishRewrite(block, before, last, loopLoc);
    analyses->update(scope, emittedBeside);
    emittedBeside.clear();
    return true;
  }

  /// Writes the first iteration of `loop` out in front of it where that
  /// lets its kernels wait for fewer of the copies in front of it, within
  /// the growth limit, the function having grown by `extraOps` since the
  /// analyses counted it (PeelFirstIteration.cpp). With `remarks`, says so.
  void tryPeelingFirstIteration(scf::ForOp loop, uint64_t extraOps,
                                bool remarks) {
    if (!peelingFirstIterationPays(loop))
      return;
    uint64_t bodyOps = 0;
    loop.getBody()->walk([&](Operation *) { ++bodyOps; });
    Location loc = loop.getLoc();
    if (analyses->numOps + extraOps + bodyOps > maxFunctionOps()) {
      if (remarks)
        remark::missed(vyre::getSourceLocation(loc),
                       options("FirstIterationNotPeeled"))
            << "first iteration not written out in front of the loop: its "
               "body of " +
                   std::to_string(bodyOps) + " ops would pass " + growthLimit();
      return;
    }
    peelFirstIteration(loop);
    if (remarks)
      remark::passed(vyre::getSourceLocation(loc),
                     options("FirstIterationPeeled"))
          << "first iteration written out in front of the loop: its kernels "
             "wait only for the copies in front of the loop that they use";
  }

  /// After a loop was pipelined in place of the ops from after `before`
  /// (from the start of `block` without it) up to `last`: the first
  /// iteration of the steady-state loop it wrote out, whose fills for its
  /// first iteration are issued right in front of it, written out in front
  /// of it where that pays (tryPeelingFirstIteration).
  void peelSteadyStateLoop(Block *block, Operation *before,
                           Block::iterator last, bool remarks) {
    Block::iterator first =
        before ? std::next(before->getIterator()) : block->begin();
    scf::ForOp steady;
    uint64_t emittedOps = 0;
    for (Operation &op : llvm::make_range(first, last)) {
      if (!steady)
        steady = dyn_cast<scf::ForOp>(op);
      op.walk([&](Operation *) { ++emittedOps; });
    }
    if (steady)
      tryPeelingFirstIteration(steady, emittedOps, remarks);
  }

  /// Erases what the rewrite of a loop at `loopLoc` left dead, and tags the
  /// ops that replaced it: those after `before` (from the start of `block`
  /// without it) up to `last`.
  static void finishRewrite(Block *block, Operation *before,
                            Block::iterator last, Location loopLoc) {
    Block::iterator first =
        before ? std::next(before->getIterator()) : block->begin();
    eraseDeadOps(first, last);
    first = before ? std::next(before->getIterator()) : block->begin();
    tagOpsInPlaceOfLoop(first, last, loopLoc);
  }

  /// Pipelines `loop`, whose copies `hoisted` were moved out in front of it,
  /// after `before` (none: the loop's block starts with them).
  bool tryPipelining(scf::ForOp loop, Operation *before,
                     ArrayRef<CopyH2DOp> hoisted) {
    LoopPrefetchAnalysis analysis =
        analyzeLoopPrefetch(loop, analyses->slots, *analyses->hostAliasing,
                            analyses->positions, analyses->footprints);
    // Copies in the body or its branches (not those of inner loops, or of
    // what pipelining them made, which have remarks of their own).
    bool hasCopies =
        loop.getBody()
            ->walk<WalkOrder::PreOrder>([](Operation *op) {
              if (isa<CopyH2DOp>(op))
                return WalkResult::interrupt();
              return isa<LoopLikeOpInterface>(op) ||
                             getPipelinedPosition(op->getLoc())
                         ? WalkResult::skip()
                         : WalkResult::advance();
            })
            .wasInterrupted();
    if (!analysis.loopReason.empty()) {
      if (hasCopies)
        remark::missed(vyre::getSourceLocation(loop.getLoc()),
                       options("LoopNotPipelined"))
            << "loop not pipelined: " + analysis.loopReason;
      return false;
    }
    if (costs)
      keepHiddenFillsInPlace(loop, analysis, hoisted);
    for (RejectedCopy &rejected : analysis.rejected)
      remark::missed(vyre::getSourceLocation(rejected.copy.getLoc()),
                     options("CopyNotPrefetched"))
          << "copy into " + slotOf(rejected.copy) +
                 " is not issued early: " + rejected.reason;
    if (analysis.rotated.empty()) {
      if (hasCopies)
        remark::missed(vyre::getSourceLocation(loop.getLoc()),
                       options("LoopNotPipelined"))
            << "loop not pipelined: no copy can be issued early, and no "
               "buffer is overwritten by a launch";
      return false;
    }
    // Buffers that rotate without a copy issued early or late, or freed from
    // the kernels of the iteration before, gain nothing, and cost an
    // allocation each.
    if (!movesACopy(analysis)) {
      remark::missed(vyre::getSourceLocation(loop.getLoc()),
                     options("LoopNotPipelined"))
          << "loop not pipelined: no copy can be issued early or late, so "
             "its overwritten buffers would rotate for nothing";
      return false;
    }
    std::optional<unsigned> depth =
        chooseDepth(loop, analysis, before, hoisted);
    if (!depth)
      return false;
    emittedBeside = emitPipelinedLoop(loop, analysis, *depth);
    return true;
  }

  /// Whether pipelining as `analysis` says moves a copy: buffers that rotate
  /// without a copy issued early or late, or freed from the kernels of the
  /// iteration before, gain nothing.
  static bool movesACopy(const LoopPrefetchAnalysis &analysis) {
    return !analysis.deferred.empty() ||
           llvm::any_of(analysis.rotated, [](const RotatedBuffer &buffer) {
             return buffer.isFilledEarly() || buffer.inPlaceCopy;
           });
  }

  /// The time a copy of `bytes` takes on the model of the cost options.
  double copyMicros(uint64_t bytes) const {
    return costs->copyLatencyUs + double(bytes) / (costs->h2dGBps * 1e3);
  }
  /// The same for `copy`; unbounded where its size is not known.
  double copyMicros(CopyH2DOp copy) const {
    std::optional<uint64_t> bytes = getCopyBytes(copy.getTarget(), copy);
    return bytes ? copyMicros(*bytes) : HUGE_VAL;
  }

  /// Leaves in their iteration the fills that the kernels of the body
  /// before their first use hide. The copies issued early in a body are all
  /// waited for where the next iteration starts (no token crosses the loop's
  /// back edge), so moving a copy that needed no moving only delays that
  /// start. Copies left are counted together, in the order their buffers are
  /// first used: each must fit, with those before it, in the kernel time
  /// before its buffer's first use. Only kernels directly in the body count.
  /// The copies `hoisted` out of the loop come first: issued just before it,
  /// they hold the copy engine in the first iteration.
  void keepHiddenFillsInPlace(scf::ForOp loop, LoopPrefetchAnalysis &analysis,
                              ArrayRef<CopyH2DOp> hoisted) {
    Block *body = loop.getBody();
    DenseMap<Operation *, unsigned> position;
    SmallVector<double> kernelsBefore{0.0};
    for (Operation &op : *body) {
      position[&op] = kernelsBefore.size() - 1;
      double micros = 0;
      auto streamOp = dyn_cast<StreamOpInterface>(&op);
      if (streamOp && streamOp.getLaunchedKernel())
        micros = std::max(0.0, getDeclaredKernelMicros(&op).value_or(
                                   costs->defaultKernelUs));
      kernelsBefore.push_back(kernelsBefore.back() + micros);
    }
    // The first op of the body after the fill that uses its buffer, through
    // views too.
    auto firstUseAfter = [&](RotatedBuffer &rotated)
        -> std::optional<unsigned> {
      unsigned fillAt = position.lookup(rotated.fill);
      std::optional<unsigned> first;
      SmallVector<Value> worklist{rotated.buffer.getResult()};
      while (!worklist.empty()) {
        Value value = worklist.pop_back_val();
        for (Operation *user : value.getUsers()) {
          if (auto view = dyn_cast<ViewLikeOpInterface>(user);
              view && view.getViewSource() == value)
            worklist.push_back(view.getViewDest());
          Operation *inBody = body->findAncestorOpInBlock(*user);
          if (!inBody || inBody == rotated.fill.getOperation())
            continue;
          unsigned at = position.lookup(inBody);
          if (at > fillAt && (!first || at < *first))
            first = at;
        }
      }
      return first;
    };
    struct Candidate {
      unsigned index, firstUse;
      double copyMicros;
    };
    SmallVector<Candidate> candidates;
    for (auto [index, rotated] : llvm::enumerate(analysis.rotated)) {
      if (!rotated.fill || rotated.branch)
        continue;
      if (std::optional<unsigned> firstUse = firstUseAfter(rotated))
        candidates.push_back(
            {unsigned(index), *firstUse, copyMicros(rotated.bytes)});
    }
    llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
      return a.firstUse < b.firstUse;
    });
    double queued = 0;
    for (CopyH2DOp copy : hoisted)
      queued += copyMicros(copy);
    llvm::SmallDenseSet<unsigned> kept;
    for (const Candidate &candidate : candidates) {
      double hidden = kernelsBefore[candidate.firstUse];
      if (queued + candidate.copyMicros > hidden)
        continue;
      queued += candidate.copyMicros;
      kept.insert(candidate.index);
      char buffer[256];
      snprintf(buffer, sizeof(buffer),
               "the %.1f us of kernels before its first use in the body hide "
               "its %.1f us (with the copies left before it and those moved "
               "out of the loop): left in its iteration",
               hidden, candidate.copyMicros);
      analysis.rejected.push_back(
          {analysis.rotated[candidate.index].fill, buffer});
    }
    if (kept.empty())
      return;
    SmallVector<RotatedBuffer> rotated;
    for (auto [index, buffer] : llvm::enumerate(analysis.rotated))
      if (!kept.contains(index))
        rotated.push_back(std::move(buffer));
    analysis.rotated = std::move(rotated);
  }

  /// The depth to pipeline `loop` at, or none, with remarks: the one asked
  /// for, or the fastest on the simulator; either cut to what the budget
  /// holds.
  std::optional<unsigned> chooseDepth(scf::ForOp loop,
                                      const LoopPrefetchAnalysis &analysis,
                                      Operation *before,
                                      ArrayRef<CopyH2DOp> hoisted) {
    uint64_t bytesPerBuffer = 0;
    for (const RotatedBuffer &rotated : analysis.rotated)
      bytesPerBuffer += rotated.bytes;
    bool chosen = depths.depth == 0;
    unsigned asked = !chosen ? depths.depth : costs ? depths.maxDepth : 2;
    unsigned depth = asked;
    while (depth >= 2 && (depth - 1) * bytesPerBuffer > budgetLeft)
      --depth;
    bool cutByBudget = depth < asked;
    unsigned withinBudget = depth;
    uint64_t bodyOps = 0;
    depth = std::min(depth, deepestWithinGrowth(loop, depth, bodyOps));
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] loop at " << loop.getLoc() << ": "
               << analysis.rotated.size() << " rotated buffer(s), "
               << bytesPerBuffer << " bytes per iteration ahead, " << budgetLeft
               << " bytes of budget left: up to depth " << depth << " (asked "
               << asked << (chosen ? ", to choose from" : "") << ")\n");
    std::string choice;
    std::string limit = depth < withinBudget ? growthLimit()
                        : cutByBudget        ? "buffer-budget"
                                             : "";
    if (chosen && costs && depth >= 2)
      depth =
          chooseDepthBySimulation(loop, before, hoisted, depth, limit, choice);
    unsigned numFills = 0, numBranchFills = 0, numProduced = 0;
    for (const RotatedBuffer &rotated : analysis.rotated) {
      numFills += bool(rotated.fill);
      numProduced += bool(rotated.producer);
      numBranchFills += bool(rotated.thenFill) + bool(rotated.elseFill);
    }
    unsigned numInPlace = llvm::count_if(
        analysis.rotated,
        [](const RotatedBuffer &rotated) { return bool(rotated.inPlaceCopy); });
    unsigned numOverwritten = llvm::count_if(
        analysis.rotated, [](const RotatedBuffer &rotated) {
          return !rotated.isFilledEarly() && !rotated.inPlaceCopy;
        });
    if (depth < 2 && withinBudget >= 2) {
      remark::missed(vyre::getSourceLocation(loop.getLoc()),
                     options("PipelineGrowth"))
          << "loop not pipelined: written out at depth 2, its body of " +
                 std::to_string(bodyOps) + " ops would add up to " +
                 std::to_string(opsWrittenOut(bodyOps, 2)) +
                 " ops to the function's " + std::to_string(analyses->numOps) +
                 ", past " + growthLimit();
      return std::nullopt;
    }
    if (depth < 2) {
      remark::missed(vyre::getSourceLocation(loop.getLoc()),
                     options("PipelineBudget"))
          << "loop not pipelined: one more copy of each of its " +
                 std::to_string(analysis.rotated.size()) +
                 " rotated buffer(s) needs " + std::to_string(bytesPerBuffer) +
                 " bytes, over the " + std::to_string(budgetLeft) +
                 " bytes left of buffer-budget";
      return std::nullopt;
    }
    if (!chosen && depth < asked)
      remark::missed(
          vyre::getSourceLocation(loop.getLoc()),
          options(depth < withinBudget ? "PipelineGrowth" : "PipelineBudget"))
          << "pipeline depth cut from " + std::to_string(asked) + " to " +
                 std::to_string(depth) + " to stay within " + limit;
    uint64_t extra = (depth - 1) * bytesPerBuffer;
    budgetLeft -= extra;
    std::string overwritten =
        numOverwritten == 0 ? ""
                            : ", " + std::to_string(numOverwritten) +
                                  " overwritten buffer(s) rotated";
    std::string inPlace =
        numInPlace == 0
            ? ""
            : ", " + std::to_string(numInPlace) +
                  " destination(s) of copies whose source the body writes "
                  "rotated (the copies stay in place)";
    std::string produced =
        numProduced == 0
            ? ""
            : " (" + std::to_string(numProduced) +
                  " of them with the host op that writes its source)";
    std::string underBranches =
        numBranchFills == 0
            ? ""
            : " (" + std::to_string(numBranchFills) +
                  " of them in branches, issued under the same condition)";
    remark::passed(vyre::getSourceLocation(loop.getLoc()),
                   options("LoopPipelined"))
        << "loop pipelined at depth " + std::to_string(depth) + ": " +
               std::to_string(numFills + numBranchFills) + " copies issued " +
               std::to_string(depth - 1) + " iteration(s) ahead" + produced +
               underBranches + overwritten + inPlace + ", " +
               std::to_string(extra) + " bytes of extra device memory" + choice;
    return depth;
  }

  /// The most ops the function may grow to (kGrowthFactor), and that said
  /// for remarks.
  uint64_t maxFunctionOps() const {
    return std::max(kGrowthFloorOps, kGrowthFactor * opsAsWritten);
  }
  std::string growthLimit() const {
    return "the " + std::to_string(maxFunctionOps()) +
           " ops the function may grow to (the larger of " +
           std::to_string(kGrowthFloorOps) + " and " +
           std::to_string(kGrowthFactor) + " times its " +
           std::to_string(opsAsWritten) + " ops as written)";
  }
  /// At most the ops that pipelining a loop whose body has `bodyOps` at
  /// `depth` adds: the body written out once per buffer in the loop, and
  /// about as much again in front of it and after it.
  static uint64_t opsWrittenOut(uint64_t bodyOps, unsigned depth) {
    return (2 * uint64_t(depth) + 1) * bodyOps;
  }
  /// The deepest depth up to `deepest` at which `loop` written out keeps
  /// the function within maxFunctionOps (1: none); `bodyOps` is set to the
  /// ops of its body where they were counted.
  unsigned deepestWithinGrowth(scf::ForOp loop, unsigned deepest,
                               uint64_t &bodyOps) const {
    uint64_t numOps = analyses->numOps;
    uint64_t limit = maxFunctionOps();
    // A body of the whole function would fit: no need to count it.
    if (numOps + opsWrittenOut(numOps, deepest) <= limit)
      return deepest;
    loop.getBody()->walk([&](Operation *) { ++bodyOps; });
    unsigned depth = deepest;
    while (depth >= 2 && numOps + opsWrittenOut(bodyOps, depth) > limit)
      --depth;
    return depth < 2 ? 1 : depth;
  }

  /// With the cost model, the depth from 2 to `deepest` (the deepest the
  /// buffer budget and the growth limit hold; `limit` names the one that
  /// held less than max-pipeline-depth, if any) whose schedule is fastest on
  /// the simulator, the shallowest where they tie; `choice` says how it was
  /// chosen, for the remark. Depth 2 where the simulator cannot compare
  /// them.
  unsigned chooseDepthBySimulation(scf::ForOp loop, Operation *before,
                                   ArrayRef<CopyH2DOp> hoisted,
                                   unsigned deepest, StringRef limit,
                                   std::string &choice) {
    std::string budget = limit.empty()
                             ? std::string()
                             : " (deeper ones exceed " + limit.str() + ")";
    if (deepest <= 2) {
      choice = "; depth 2, the deepest within " +
               (limit.empty() ? std::string("buffer-budget") : limit.str());
      return 2;
    }
    uint64_t numOps = analyses->numOps;
    uint64_t needed = numOps * (deepest - 1);
    if (needed > trialOpsLeft) {
      choice = "; depth 2: simulating depths 2 to " + std::to_string(deepest) +
               " would schedule the function's " + std::to_string(numOps) +
               " ops " + std::to_string(deepest - 1) +
               " times, more than is left of the " +
               std::to_string(kTrialOpBudget) +
               " ops the pass simulates per function";
      return 2;
    }
    if (simulatedOpsLeft == 0) {
      choice = "; depth 2: the trials of earlier loops ran all " +
               std::to_string(kTrialSimulatedOpBudget) +
               " ops the trials may simulate per function, loop iterations "
               "included";
      return 2;
    }
    trialOpsLeft -= needed;
    SmallVector<SimulatedRun> runs;
    std::string whyNot;
    unsigned aroundPipelinedRuns = 0;
    for (unsigned depth = 2; depth <= deepest; ++depth) {
      bool aroundPipelined = false;
      FailureOr<SimulatedRun> run = simulateAtDepth(
          loop, before, hoisted, depth, whyNot, aroundPipelined);
      aroundPipelinedRuns += aroundPipelined;
      if (failed(run)) {
        choice = "; depth 2: the simulator cannot time depth " +
                 std::to_string(depth) + " (" + whyNot + ")";
        return 2;
      }
      // Every depth does the same device work; where the simulations count
      // different amounts, they guessed trip counts differently (a loop of
      // unknown trip count runs default-trip-count times, and pipelining
      // makes one such loop several), and the makespans do not compare.
      if (!runs.empty() &&
          std::abs(run->deviceTimeUs - runs.front().deviceTimeUs) >
              1e-9 * std::max(1.0, runs.front().deviceTimeUs)) {
        choice = "; depth 2: the simulator cannot compare the depths (it "
                 "guesses the trip counts of loops whose trip count is not "
                 "known, differently at each depth)";
        return 2;
      }
      LLVM_DEBUG(llvm::dbgs()
                 << "[" DEBUG_TYPE "] loop at " << loop.getLoc() << ": depth "
                 << depth << " simulated "
                 << llvm::format("%.1f", run->makespanUs) << " us\n");
      runs.push_back(*run);
    }
    unsigned best = 0;
    for (unsigned index = 1; index < runs.size(); ++index)
      if (runs[index].makespanUs <
          runs[best].makespanUs * (1 - kDepthTieFraction))
        best = index;
    std::string times;
    llvm::raw_string_ostream os(times);
    for (auto [index, run] : llvm::enumerate(runs))
      os << (index ? ", " : "") << llvm::format("%.1f", run.makespanUs)
         << " us at depth " << index + 2;
    std::string around;
    if (aroundPipelinedRuns == runs.size())
      around = ", the loop around it pipelined at depth 2";
    else if (aroundPipelinedRuns != 0)
      around = ", the loop around it pipelined at depth 2 where it fits";
    choice = "; depth " + std::to_string(best + 2) +
             " is the fastest of depths 2 to " + std::to_string(deepest) +
             budget + " once scheduled and simulated" + around + " (" + times +
             ")";
    return best + 2;
  }

  /// What --vyre-simulate gives `function` after `loop` is pipelined at
  /// `depth` and --overlap-copies (with its defaults, on the figures of the
  /// cost model) schedules it. Runs on a copy of the function's body, in
  /// the function (where its kernels and callees resolve), then puts the
  /// body back as it was: `loop` and the analyses stay valid. Where it
  /// fails, `whyNot` says why.
  FailureOr<SimulatedRun> simulateAtDepth(scf::ForOp loop, Operation *before,
                                          ArrayRef<CopyH2DOp> hoisted,
                                          unsigned depth, std::string &whyNot,
                                          bool &aroundPipelined) {
    // What the trial reports is its own: kept from the diagnostics of other
    // functions, which other threads may be emitting meanwhile.
    std::thread::id self = std::this_thread::get_id();
    ScopedDiagnosticHandler quiet(
        function.getContext(), [&](Diagnostic &diagnostic) {
          if (std::this_thread::get_id() != self)
            return failure();
          if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
              whyNot.empty())
            whyNot = diagnostic.str();
          return success();
        });
    Region &body = function.getBody();
    Region parked;
    parked.takeBody(body);
    IRMapping mapping;
    parked.cloneInto(&body, mapping);
    llvm::scope_exit restore([&] { body.takeBody(parked); });

    auto trialLoop = cast<scf::ForOp>(mapping.lookup(loop.getOperation()));
    Operation *trialBefore = before ? mapping.lookup(before) : nullptr;
    SmallVector<CopyH2DOp> trialHoisted;
    for (CopyH2DOp copy : hoisted)
      trialHoisted.push_back(
          cast<CopyH2DOp>(mapping.lookup(copy.getOperation())));
    // The loop around it, which the trial pipelines as the pass will by
    // default once it gets there; taken before the rewrite, which may
    // replace it. Not where the trial sets the loop's trip count: the pass
    // writes a loop of unknown trip count out under a guard, which the loop
    // around treats otherwise.
    auto around = trialLoop->getParentOfType<scf::ForOp>();
    if (around && (getPipelinedPosition(around.getLoc()) ||
                   !trialLoop.getStaticTripCount()))
      around = nullptr;
    if (!giveTrialTripCount(trialLoop)) {
      whyNot = "its trip count is not known, nor its lower bound and step";
      return failure();
    }
    uint64_t extraBytes = 0;
    Block *block = trialLoop->getBlock();
    Block::iterator last = std::next(trialLoop->getIterator());
    Location loopLoc = trialLoop.getLoc();
    {
      FunctionAnalyses trialAnalyses(function);
      LoopPrefetchAnalysis analysis = analyzeLoopPrefetch(
          trialLoop, trialAnalyses.slots, *trialAnalyses.hostAliasing,
          trialAnalyses.positions, trialAnalyses.footprints);
      keepHiddenFillsInPlace(trialLoop, analysis, trialHoisted);
      // The copy may differ from the loop where its trip count was set.
      if (!analysis.loopReason.empty() || analysis.rotated.empty() ||
          !movesACopy(analysis)) {
        whyNot = "the loop given " + std::to_string(kTrialTripCount) +
                 " iterations is not pipelined alike";
        return failure();
      }
      for (const RotatedBuffer &rotated : analysis.rotated)
        extraBytes += (depth - 1) * rotated.bytes;
      emitPipelinedLoop(trialLoop, analysis, depth);
    }
    peelSteadyStateLoop(block, trialBefore, last, /*remarks=*/false);
    finishRewrite(block, trialBefore, last, loopLoc);
    aroundPipelined = around && extraBytes <= budgetLeft &&
                      pipelineAroundForTrial(around, budgetLeft - extraBytes);
    if (failed(diagnoseVyreOpsInDeviceCode(function)) ||
        failed(diagnoseHostAccessToDeviceMemory(function)))
      return failure();
    overlap::ScheduleOptions schedule = costs->trialSchedule;
    schedule.emitRemarks = false;
    {
      SlotAccessAnalysis slots(function);
      overlap::scheduleCopies(function, slots, schedule);
    }
    EngineModel model = costs->trialModel;
    model.maxOps = simulatedOpsLeft;
    // The trials compare makespans; their bounds go unused.
    model.countWorkAround = false;
    SlotAccessAnalysis slots(function);
    uint64_t opsRun = 0;
    FailureOr<SimulatedRun> run =
        simulateFunction(function, slots, model, &opsRun);
    simulatedOpsLeft -= std::min(opsRun, simulatedOpsLeft);
    if (opsRun > model.maxOps)
      whyNot = "it runs more than the " + std::to_string(model.maxOps) +
               " ops left of the " + std::to_string(kTrialSimulatedOpBudget) +
               " the trials may simulate per function, loop iterations "
               "included";
    return run;
  }

  /// A loop of unknown trip count is pipelined into several loops, which
  /// the simulator each runs default-trip-count times: a different amount
  /// of work at each depth. A trial gives such a loop kTrialTripCount
  /// iterations; false where its lower bound or step is not known either.
  static bool giveTrialTripCount(scf::ForOp loop) {
    if (loop.getStaticTripCount())
      return true;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lower || !step || *step <= 0)
      return false;
    OpBuilder builder(loop);
    loop.setUpperBound(arith::ConstantIndexOp::create(
        builder, loop.getLoc(), *lower + *step * kTrialTripCount));
    return true;
  }

  /// In a trial, after the loop tried was pipelined in it, pipelines
  /// `around`, the loop around that one, as the pass will once it gets
  /// there by default: its invariant copies moved out, then depth 2, where
  /// the same checks pass (a loop that can be pipelined and moves a copy,
  /// within `budget` bytes and the growth limit). Returns whether it was
  /// pipelined. The depth of a loop in a nest changes what is in flight
  /// where the loop around it starts its next iteration; tried alone, a
  /// depth may lose that pays once the loop around is pipelined.
  bool pipelineAroundForTrial(scf::ForOp around, uint64_t budget) {
    Block *block = around->getBlock();
    Operation *before = around->getIterator() == block->begin()
                            ? nullptr
                            : around->getPrevNode();
    Block::iterator last = std::next(around->getIterator());
    Location loc = around.getLoc();
    FunctionAnalyses trial(function);
    SmallVector<CopyH2DOp> hoisted = hoistInvariantCopies(
        around, trial.slots, *trial.hostAliasing, trial.footprints);
    if (!hoisted.empty())
      trial.positions.renumber(
          block, before ? std::next(before->getIterator()) : block->begin(),
          around->getIterator());
    LoopPrefetchAnalysis analysis =
        analyzeLoopPrefetch(around, trial.slots, *trial.hostAliasing,
                            trial.positions, trial.footprints);
    bool pipelines = analysis.loopReason.empty() && !analysis.rotated.empty();
    if (pipelines) {
      keepHiddenFillsInPlace(around, analysis, hoisted);
      uint64_t bytes = 0;
      for (const RotatedBuffer &rotated : analysis.rotated)
        bytes += rotated.bytes;
      uint64_t bodyOps = 0;
      around.getBody()->walk([&](Operation *) { ++bodyOps; });
      pipelines = !analysis.rotated.empty() && movesACopy(analysis) &&
                  bytes <= budget &&
                  trial.numOps + opsWrittenOut(bodyOps, 2) <= maxFunctionOps();
    }
    if (pipelines) {
      emitPipelinedLoop(around, analysis, 2);
      peelSteadyStateLoop(block, before, last, /*remarks=*/false);
    } else if (!hoisted.empty()) {
      tryPeelingFirstIteration(around, /*extraOps=*/0, /*remarks=*/false);
    }
    if (pipelines || !hoisted.empty())
      finishRewrite(block, before, last, loc);
    return pipelines;
  }

  func::FuncOp function;
  DepthOptions depths;
  uint64_t budgetLeft;
  /// The function's ops before any loop was rewritten (kGrowthFactor).
  uint64_t opsAsWritten = 0;
  /// What is left of kTrialOpBudget and of kTrialSimulatedOpBudget.
  uint64_t trialOpsLeft = kTrialOpBudget;
  uint64_t simulatedOpsLeft = kTrialSimulatedOpBudget;
  /// The cost model's figures; none with cost-model=false.
  std::optional<CopyTimeModel> costs;
  std::unique_ptr<FunctionAnalyses> analyses;
  /// The ops the last loop's rewrite emitted beside the buffers it rotates
  /// (emitPipelinedLoop).
  SmallVector<Operation *> emittedBeside;
};

struct PipelineLoopsPass
    : public vyre::impl::PipelineLoopsPassBase<PipelineLoopsPass> {
  using Base::Base;
  // (The options are the base's protected members.)
  friend overlap::ScheduleOptions(
      overlap::scheduleOptionsOf<PipelineLoopsPass>)(const PipelineLoopsPass &);
  friend EngineModel(vyre::engineModelOf<PipelineLoopsPass>)(
      const PipelineLoopsPass &);

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    Location loc = function.getLoc();
    if (failed(checkCountOption(loc, getArgument(), "max-pipeline-depth",
                                maxPipelineDepth, 2,
                                "the depths chosen from start at 2")) ||
        failed(checkRuntimeCostOptions(loc, getArgument(),
                                       {h2dGBps, d2hGBps, copyLatencyUs,
                                        defaultKernelUs, launchUs, eventUs,
                                        hostSyncUs, streamCreateUs})) ||
        failed(checkCountOption(loc, getArgument(), "side-streams", sideStreams,
                                1, "copies need at least one side stream")) ||
        (asyncD2H &&
         failed(checkCountOption(
             loc, getArgument(), "d2h-streams", d2hStreams, 1,
             "asynchronous device-to-host copies (async-d2h=true) need at "
             "least one stream"))))
      return signalPassFailure();
    std::optional<CopyTimeModel> costs;
    if (costModel)
      costs = CopyTimeModel{h2dGBps, copyLatencyUs, defaultKernelUs,
                            overlap::scheduleOptionsOf(*this),
                            engineModelOf(*this)};
    DepthOptions depths{pipelineDepth, maxPipelineDepth};
    if (!LoopPipeliner(function, depths, bufferBudget, costs).run())
      markAllAnalysesPreserved();
  }
};

} // namespace
