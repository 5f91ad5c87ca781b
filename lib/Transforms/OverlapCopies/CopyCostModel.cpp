//===- CopyCostModel.cpp - Whether moving a copy pays for itself ----------===//

#include "vyre/Transforms/OverlapCopies/CopyCostModel.h"

#include "vyre/Analysis/DeviceCosts.h"
#include "vyre/Transforms/OverlapCopies/CopyRemarks.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

#define DEBUG_TYPE "overlap-copies"
#include <limits>
#include <set>
#include <vector>

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

/// The host time moving the copy adds: the join it starts on (if it has
/// `dependencies`), and the wait for it (a join on the main stream, one more
/// dependency of a later copy's join, or a host synchronization).
static double joinMicros(const PlannedCopy &copy, size_t dependencies,
                         bool waiterInPlace, const CopyCostOptions &options) {
  auto join = [&](size_t count) {
    return options.streamCreateUs + options.eventUs * double(count);
  };
  double micros = 0;
  if (dependencies != 0)
    micros += join(dependencies + 1);
  auto waiter = dyn_cast_or_null<StreamOpInterface>(copy.firstWaiter.op);
  // A copy left in place waits on the main stream, as a kernel does.
  if (copy.firstWaiter.copy && waiterInPlace)
    micros += join(2);
  else if (copy.firstWaiter.copy)
    micros += options.eventUs;
  else if (waiter && waiter.getStreamIndex())
    micros += join(2);
  else
    micros += options.hostSyncUs;
  return micros;
}

/// The bytes `copy` moves, if static, and the time it takes.
static std::optional<std::pair<uint64_t, double>>
copySizeAndMicros(const PlannedCopy &copy, const CopyCostOptions &options,
                  DataLayoutCache &layouts) {
  Operation *original = copy.original;
  Value deviceEnd = copy.toHost ? cast<CopyD2HOp>(original).getSource()
                                : cast<CopyH2DOp>(original).getTarget();
  std::optional<uint64_t> bytes =
      getCopyBytes(deviceEnd, layouts.closest(original));
  if (!bytes)
    return std::nullopt;
  double gbps = copy.toHost ? options.d2hGBps : options.h2dGBps;
  return std::make_pair(*bytes, options.copyLatencyUs +
                                    double(*bytes) / (gbps * 1e3));
}

namespace {

/// Steps of a binary search over `size` elements.
uint64_t searchSteps(size_t size) { return llvm::Log2_64_Ceil(size + 1) + 1; }

/// Sums of values at positions, with point updates (a Fenwick tree).
class SumTree {
public:
  explicit SumTree(size_t size) : sums(size + 1, 0.0) {}

  void add(size_t position, double value, uint64_t &work) {
    for (size_t i = position + 1; i < sums.size(); i += i & (~i + 1), ++work)
      sums[i] += value;
  }
  /// The sum over positions [0, end).
  double prefix(size_t end, uint64_t &work) const {
    double sum = 0;
    for (size_t i = std::min(end, sums.size() - 1); i > 0;
         i -= i & (~i + 1), ++work)
      sum += sums[i];
    return sum;
  }

private:
  std::vector<double> sums;
};

/// Kernel time summed over ranges of one block's ops, and where the host
/// waits for the main stream in it.
struct BlockTimes {
  Block *block = nullptr;
  DenseMap<Operation *, int64_t> position;
  /// Kernel time of ops [0, i), and how many of them take unbounded time.
  std::vector<double> kernelPrefix{0.0};
  std::vector<unsigned> unboundedPrefix{0};
  /// Ops that make the host wait for the main stream whatever is decided: a
  /// copy the plan keeps synchronous, a `vyre.sync`. Sorted.
  std::vector<int64_t> fixedDrains;
  /// Planned copies decided to stay in place, which make the host wait too;
  /// and the last of them per direction (0: into the device).
  std::set<int64_t> declined;
  int64_t lastDeclined[2] = {-1, -1};
  /// Time of the copies left in place at each position, per direction (0:
  /// into the device): main-stream work a copy moved in the other direction
  /// runs beside, on the other copy engine.
  std::vector<SumTree> inPlaceCopies;

  int64_t size() const { return int64_t(kernelPrefix.size()) - 1; }
  int64_t positionOf(Operation *op) const { return position.lookup(op); }
  /// Kernel time of ops [begin, end).
  double kernelMicros(int64_t begin, int64_t end) const {
    begin = std::max<int64_t>(begin, 0);
    end = std::min(end, size());
    if (end <= begin)
      return 0;
    if (unboundedPrefix[end] != unboundedPrefix[begin])
      return kUnbounded;
    return kernelPrefix[end] - kernelPrefix[begin];
  }
};

} // namespace

struct CopyCostModel::State {
  State(const CopyPlan &plan, const CopyCostOptions &options)
      : plan(plan), options(options) {}

  const CopyPlan &plan;
  CopyCostOptions options;
  DenseMap<Block *, std::unique_ptr<BlockTimes>> blocks;
  /// Kernel time of each op with regions, computed once.
  DenseMap<Operation *, double> regionMicros;
  std::vector<std::optional<std::pair<uint64_t, double>>> sizes;
  /// Per copy, the time of the moved copies the copy in place would hold
  /// back (every later copy moved).
  std::vector<double> laterCopies;
  /// Per copy, whether it stays in place: known before the sweep, or
  /// decided in it.
  std::vector<bool> inPlace;
  llvm::DenseSet<int64_t> openedStreams;
  uint64_t work = 0;

  double kernelMicrosIn(Operation *op);
  BlockTimes &times(Block *block) { return *blocks.find(block)->second; }
  /// The times of `block`, built on first ask (a block around a branch
  /// that holds no copy of its own).
  BlockTimes &timesOf(Block *block) {
    if (!blocks.count(block))
      buildBlock(block, moved);
    return times(block);
  }
  /// Main-stream time in the block around the branch holding `copy`, from
  /// the record `dependency` there to the op that holds the branch, which
  /// the copy, issued in the branch, may run beside.
  double enclosingMicros(const PlannedCopy &copy,
                         const PlannedDependency &dependency);
  void buildBlock(Block *block, const llvm::DenseSet<Operation *> &moved);
  /// The copies the sweep starts with moved.
  llvm::DenseSet<Operation *> moved;
  void computeLaterCopies(Block *block, ArrayRef<const PlannedCopy *> copies);
  int64_t lastDrainAtOrBefore(const BlockTimes &times, int64_t position);
  int64_t placeOf(const BlockTimes &times, const PlannedCopy &copy) const;
  /// Main-stream time over ops [begin, end) that a copy in direction
  /// `toHost` may run beside: kernels, and (where copies in place do not
  /// make the host wait) copies in place in the other direction.
  double mainMicros(BlockTimes &times, int64_t begin, int64_t end,
                    bool toHost);
  /// Counts `copy`, which stays in place, as main-stream time.
  void addInPlaceTime(const PlannedCopy &copy);
  /// The position of the copy `dependency` names, if it stays in place.
  std::optional<int64_t> inPlacePosition(const BlockTimes &times,
                                         const PlannedDependency &dependency)
      const;
};

/// Kernel time of the dispatches `op` runs: a loop's body times its constant
/// trip count (unbounded if the count is not constant and the body runs
/// kernels), a branch's longest region. Calls count nothing.
double CopyCostModel::State::kernelMicrosIn(Operation *op) {
  ++work;
  if (auto dispatch = dyn_cast<DispatchOp>(op))
    return std::max(0.0, getDeclaredKernelMicros(dispatch).value_or(
                             options.defaultKernelUs));
  if (op->getNumRegions() == 0)
    return 0;
  if (auto known = regionMicros.find(op); known != regionMicros.end())
    return known->second;
  double longestRegion = 0;
  for (Region &region : op->getRegions()) {
    double sum = 0;
    for (Block &block : region)
      for (Operation &nested : block)
        sum += kernelMicrosIn(&nested);
    longestRegion = std::max(longestRegion, sum);
  }
  double micros = longestRegion;
  if (auto loop = dyn_cast<scf::ForOp>(op); loop && longestRegion != 0) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    micros = trips ? longestRegion * double(trips->getZExtValue()) : kUnbounded;
  }
  regionMicros[op] = micros;
  return micros;
}

void CopyCostModel::State::buildBlock(Block *block,
                                      const llvm::DenseSet<Operation *> &moved) {
  auto times = std::make_unique<BlockTimes>();
  times->block = block;
  size_t numOps = block->getOperations().size();
  times->position.reserve(numOps);
  times->kernelPrefix.reserve(numOps + 1);
  times->unboundedPrefix.reserve(numOps + 1);
  int64_t position = 0;
  for (Operation &op : *block) {
    times->position[&op] = position;
    double micros = kernelMicrosIn(&op);
    bool unbounded = micros == kUnbounded;
    times->kernelPrefix.push_back(times->kernelPrefix.back() +
                                  (unbounded ? 0 : micros));
    times->unboundedPrefix.push_back(times->unboundedPrefix.back() +
                                     (unbounded ? 1 : 0));
    if ((isa<CopyH2DOp, CopyD2HOp>(op) && !moved.contains(&op) &&
         options.inPlaceBlocksHost) ||
        isa<SyncOp>(op))
      times->fixedDrains.push_back(position);
    ++position;
  }
  blocks[block] = std::move(times);
}

/// The time of the moved copies the copy in place would hold back, up to
/// the next op that makes the host wait: those that start after its place
/// in its block (the host, waiting, issues none of them), and those in its
/// direction after it in program order wherever they start (the copies in
/// place keep them behind it). With every later copy moved this depends on
/// the plan alone: computed for all copies of a block at once.
void CopyCostModel::State::computeLaterCopies(
    Block *block, ArrayRef<const PlannedCopy *> copies) {
  BlockTimes &times = this->times(block);
  struct Entry {
    unsigned id;
    int64_t original, at, drain;
    bool toHost;
    double micros;
  };
  SmallVector<Entry> entries;
  for (const PlannedCopy *copy : copies) {
    Entry entry;
    entry.id = copy->id;
    entry.original = times.positionOf(copy->original);
    entry.at = copy->at.anchor ? times.positionOf(copy->at.anchor) : -1;
    auto next = llvm::upper_bound(times.fixedDrains, entry.original);
    work += searchSteps(times.fixedDrains.size());
    entry.drain = next == times.fixedDrains.end() ? times.size() : *next;
    entry.toHost = copy->toHost;
    entry.micros = sizes[copy->id] ? sizes[copy->id]->second : 0.0;
    entries.push_back(entry);
  }
  llvm::sort(entries, [](const Entry &lhs, const Entry &rhs) {
    return lhs.original < rhs.original;
  });
  work += entries.size() * searchSteps(entries.size());

  // Copies that start after the copy's place and before the drain: sorted by
  // where they start.
  SmallVector<std::pair<int64_t, double>> starts;
  for (const Entry &entry : entries)
    if (entry.at >= 0)
      starts.push_back({entry.at, entry.micros});
  llvm::sort(starts);
  std::vector<double> startsPrefix{0.0};
  for (auto &[at, micros] : starts)
    startsPrefix.push_back(startsPrefix.back() + micros);
  auto startsWithin = [&](int64_t after, int64_t before) {
    auto lower = llvm::upper_bound(
        starts, std::make_pair(after, kUnbounded));
    auto upper = llvm::lower_bound(
        starts, std::make_pair(before, -kUnbounded));
    work += 2 * searchSteps(starts.size());
    if (upper <= lower)
      return 0.0;
    return startsPrefix[upper - starts.begin()] -
           startsPrefix[lower - starts.begin()];
  };

  for (bool toHost : {false, true}) {
    SmallVector<const Entry *> direction;
    for (const Entry &entry : entries)
      if (entry.toHost == toHost)
        direction.push_back(&entry);
    std::vector<double> prefix{0.0};
    for (const Entry *entry : direction)
      prefix.push_back(prefix.back() + entry->micros);
    // Copies of the direction after it in program order, before the drain.
    auto behindWithin = [&](int64_t after, int64_t before) {
      auto byOriginal = [](const Entry *entry, int64_t value) {
        return entry->original < value;
      };
      auto lower = std::lower_bound(direction.begin(), direction.end(),
                                    after + 1, byOriginal);
      auto upper = std::lower_bound(direction.begin(), direction.end(),
                                    before, byOriginal);
      work += 2 * searchSteps(direction.size());
      if (upper <= lower)
        return 0.0;
      return prefix[upper - direction.begin()] -
             prefix[lower - direction.begin()];
    };
    // Those counted twice: in the direction, before the drain in program
    // order, and starting after the copy's place (then after it in program
    // order too). Answered offline: queries by drain, copies added by
    // program order, summed by where they start.
    SmallVector<const Entry *> queries(direction.begin(), direction.end());
    llvm::sort(queries, [](const Entry *lhs, const Entry *rhs) {
      return lhs->drain < rhs->drain;
    });
    work += queries.size() * searchSteps(queries.size());
    SumTree byStart(size_t(times.size()) + 1);
    double added = 0;
    size_t next = 0;
    for (const Entry *query : queries) {
      for (; next < direction.size() && direction[next]->original < query->drain;
           ++next) {
        byStart.add(size_t(direction[next]->at + 1), direction[next]->micros,
                    work);
        added += direction[next]->micros;
      }
      double both = added - byStart.prefix(size_t(query->original + 2), work);
      double sum = startsWithin(query->original, query->drain) +
                   behindWithin(query->original, query->drain) - both;
      laterCopies[query->id] = std::max(0.0, sum);
    }
  }
}

int64_t CopyCostModel::State::lastDrainAtOrBefore(const BlockTimes &times,
                                                  int64_t position) {
  int64_t last = -1;
  auto fixed = llvm::upper_bound(times.fixedDrains, position);
  work += searchSteps(times.fixedDrains.size());
  if (fixed != times.fixedDrains.begin())
    last = *std::prev(fixed);
  if (!options.inPlaceBlocksHost)
    return last;
  auto declined = times.declined.upper_bound(position);
  work += searchSteps(times.declined.size());
  if (declined != times.declined.begin())
    last = std::max(last, *std::prev(declined));
  return last;
}

double CopyCostModel::State::mainMicros(BlockTimes &times, int64_t begin,
                                        int64_t end, bool toHost) {
  double micros = times.kernelMicros(begin, end);
  if (options.inPlaceBlocksHost || times.inPlaceCopies.empty())
    return micros;
  begin = std::max<int64_t>(begin, 0);
  end = std::min(end, times.size());
  if (end <= begin)
    return micros;
  SumTree &other = times.inPlaceCopies[toHost ? 0 : 1];
  return micros + other.prefix(size_t(end), work) -
         other.prefix(size_t(begin), work);
}

void CopyCostModel::State::addInPlaceTime(const PlannedCopy &copy) {
  if (options.inPlaceBlocksHost || !sizes[copy.id])
    return;
  BlockTimes &times = this->times(copy.block);
  if (times.inPlaceCopies.empty())
    times.inPlaceCopies.assign(2, SumTree(size_t(times.size())));
  times.inPlaceCopies[copy.toHost ? 1 : 0].add(
      size_t(times.positionOf(copy.original)), sizes[copy.id]->second, work);
}

std::optional<int64_t> CopyCostModel::State::inPlacePosition(
    const BlockTimes &times, const PlannedDependency &dependency) const {
  if (dependency.kind != PlannedDependency::Kind::Copy ||
      !inPlace[dependency.copy])
    return std::nullopt;
  const PlannedCopy &other = plan.copies[dependency.copy];
  if (other.block != times.block)
    return std::nullopt;
  return times.positionOf(other.original);
}

double CopyCostModel::State::enclosingMicros(
    const PlannedCopy &copy, const PlannedDependency &dependency) {
  Block *recordBlock = dependency.getRecordBlock(copy.block);
  Operation *holder =
      recordBlock->findAncestorOpInBlock(*copy.block->getParentOp());
  if (!holder)
    return 0;
  BlockTimes &outer = timesOf(recordBlock);
  int64_t holderAt = outer.positionOf(holder);
  int64_t from = dependency.recordAnchor
                     ? outer.positionOf(dependency.recordAnchor)
                     : -1;
  from = std::max(from, lastDrainAtOrBefore(outer, holderAt - 1));
  return mainMicros(outer, from + 1, holderAt, copy.toHost);
}

/// Where `copy` starts: its planned place, or just below the last copy in
/// its direction left in place before it (copies keep their order on the
/// copy engine), or below a copy it depends on that stays in place.
int64_t CopyCostModel::State::placeOf(const BlockTimes &times,
                                      const PlannedCopy &copy) const {
  int64_t at = copy.at.anchor ? times.positionOf(copy.at.anchor) : -1;
  int64_t original = times.positionOf(copy.original);
  int64_t below = times.lastDeclined[copy.toHost ? 1 : 0];
  for (const PlannedDependency &dependency : copy.dependencies)
    if (std::optional<int64_t> position = inPlacePosition(times, dependency))
      below = std::max(below, *position);
  if (below > at && below < original)
    at = below;
  return at;
}

CopyCostModel::CopyCostModel(
    const CopyPlan &plan, const CopyCostOptions &options,
    const llvm::SmallPtrSetImpl<Operation *> *leftInPlace)
    : state(std::make_unique<State>(plan, options)) {
  llvm::DenseSet<Operation *> &moved = state->moved;
  DenseMap<Block *, SmallVector<const PlannedCopy *>> byBlock;
  SmallVector<Block *> order;
  DataLayoutCache layouts;
  moved.reserve(plan.copies.size());
  state->sizes.reserve(plan.copies.size());
  state->inPlace.assign(plan.copies.size(), false);
  for (const PlannedCopy &copy : plan.copies) {
    auto [it, inserted] = byBlock.try_emplace(copy.block);
    if (inserted)
      order.push_back(copy.block);
    state->sizes.push_back(copySizeAndMicros(copy, options, layouts));
    if (copy.leftInPlace ||
        (leftInPlace && leftInPlace->contains(copy.original))) {
      state->inPlace[copy.id] = true;
      continue;
    }
    moved.insert(copy.original);
    it->second.push_back(&copy);
  }
  state->laterCopies.assign(plan.copies.size(), 0.0);
  for (Block *block : order)
    state->buildBlock(block, moved);
  for (const PlannedCopy &copy : plan.copies)
    if (state->inPlace[copy.id])
      state->addInPlaceTime(copy);
  // Copies in place that do not hold the host hold no later copy back.
  if (options.inPlaceBlocksHost)
    for (Block *block : order)
      state->computeLaterCopies(block, byBlock[block]);
}

CopyCostModel::~CopyCostModel() = default;

uint64_t CopyCostModel::getWork() const { return state->work; }

CopyCostVerdict CopyCostModel::evaluate(const PlannedCopy &copy) {
  CopyCostVerdict verdict;
  const auto &size = state->sizes[copy.id];
  if (!size)
    return verdict;
  verdict.bytes = size->first;
  verdict.copyUs = size->second;
  const CopyCostOptions &options = state->options;
  BlockTimes &times = state->times(copy.block);
  int64_t original = times.positionOf(copy.original);
  int64_t at = state->placeOf(times, copy);

  // The kernels still in flight on the main stream where the copy is issued
  // (back to the main-stream point it depends on, the last op that makes
  // the host wait, or the block's start, where the lowering waits for the
  // device); a copy below one left in place starts where the host waited.
  int64_t stop = state->lastDrainAtOrBefore(times, at);
  size_t dependencies = 0;
  double enclosing = 0;
  for (const PlannedDependency &dependency : copy.dependencies) {
    // A record around the branch the copy is in: the main-stream work
    // issued there after it, before the branch, and all of the branch's
    // work before the copy.
    if (dependency.kind == PlannedDependency::Kind::Record &&
        dependency.getRecordBlock(copy.block) != copy.block) {
      if (stop < 0)
        enclosing = state->enclosingMicros(copy, dependency);
      ++dependencies;
      continue;
    }
    int64_t anchor = -1;
    // A copy left in place is main-stream progress, as a record is.
    std::optional<int64_t> inPlace =
        state->inPlacePosition(times, dependency);
    if (dependency.kind == PlannedDependency::Kind::Record || inPlace) {
      anchor = inPlace ? *inPlace
               : dependency.recordAnchor
                   ? times.positionOf(dependency.recordAnchor)
                   : -1;
      if (anchor <= at)
        stop = std::max(stop, anchor);
    }
    ++dependencies;
  }
  double window =
      enclosing + state->mainMicros(times, stop + 1, at + 1, copy.toHost);
  // Then the kernels issued after it, up to the first op that waits for it
  // (or the place of the copy that does).
  int64_t end = times.size();
  bool waiterInPlace = false;
  if (copy.firstWaiter.copy) {
    const PlannedCopy &waiter = state->plan.copies[*copy.firstWaiter.copy];
    waiterInPlace = state->inPlace[waiter.id];
    if (waiter.block == copy.block)
      end = waiterInPlace ? times.positionOf(waiter.original)
                          : state->placeOf(times, waiter) + 1;
  } else if (copy.firstWaiter.op) {
    if (Operation *waiter =
            copy.block->findAncestorOpInBlock(*copy.firstWaiter.op))
      end = times.positionOf(waiter);
  }
  window += state->mainMicros(times, at + 1, end, copy.toHost);
  verdict.windowUs = window;

  // The copy in place makes the host wait for it, and the device then waits
  // for the host to issue the next op (unless it is asynchronous on the main
  // stream).
  double inPlaceUs = 0;
  if (options.inPlaceBlocksHost) {
    inPlaceUs = options.hostSyncUs + options.launchUs;
    // Meanwhile the copies moved after it cannot start: moving it lets them
    // run during what the host would have waited out (the kernels still in
    // flight where it stands, then the copy itself).
    int64_t drain = state->lastDrainAtOrBefore(times, original - 1);
    double hostWaitInPlace =
        verdict.copyUs + times.kernelMicros(drain + 1, original);
    verdict.releasedUs =
        std::min(hostWaitInPlace, state->laterCopies[copy.id]);
  }
  verdict.savingUs = std::min(verdict.copyUs, verdict.windowUs) + inPlaceUs +
                     verdict.releasedUs;
  // The host spends the joins while the device runs the kernels beside the
  // copy: only what they do not cover delays the program.
  verdict.overheadUs = std::max(
      0.0, joinMicros(copy, dependencies, waiterInPlace, options) - verdict.windowUs);
  // The host waits for a stream the function did not use before at the
  // return, once the device is done: nothing hides that.
  if (!state->openedStreams.contains(copy.stream))
    verdict.overheadUs += options.hostSyncUs;
  return verdict;
}

void CopyCostModel::markMoved(const PlannedCopy &copy) {
  state->openedStreams.insert(copy.stream);
}

CopyCostVerdict CopyCostModel::decide(const PlannedCopy &copy) {
  CopyCostVerdict verdict = evaluate(copy);
  if (verdict.worthMoving())
    markMoved(copy);
  else
    markInPlace(copy);
  return verdict;
}

void CopyCostModel::markInPlace(const PlannedCopy &copy) {
  state->inPlace[copy.id] = true;
  state->addInPlaceTime(copy);
  BlockTimes &times = state->times(copy.block);
  int64_t position = times.positionOf(copy.original);
  times.declined.insert(position);
  int64_t &last = times.lastDeclined[copy.toHost ? 1 : 0];
  last = std::max(last, position);
  state->work += searchSteps(times.declined.size());
}

CopyPlan overlap::planCopyOverlapWithCosts(FunctionOpInterface function,
                                           const SlotAccessAnalysis &slots,
                                           PlanOptions &options,
                                           const CopyCostOptions *costs,
                                           PlanWork *work) {
  PlanWork done;
  std::optional<CopyPlanner> planner(std::in_place, function, slots, options);
  ++done.plans;
  const CopyPlan &plan = planner->getPlan();
  SmallVector<unsigned> declined;
  // A sweep after the first knows the copies left in place after each copy
  // too: they change what it holds back and where the first op that waits
  // for it stands. The sweeps stop when one leaves no copy in place, or no
  // copy is left to weigh.
  size_t stillMoved = plan.copies.size();
  for (unsigned sweep = 0;
       costs && stillMoved != 0 && sweep < kMaxCostModelSweeps; ++sweep) {
    ++done.sweeps;
    CopyCostModel model(plan, *costs, &options.leaveInPlace);
    bool declinedInSweep = false;
    for (const PlannedCopy &copy : plan.copies) {
      if (options.leaveInPlace.contains(copy.original)) {
        model.markInPlace(copy);
        continue;
      }
      ++done.copiesWeighed;
      CopyCostVerdict verdict = model.decide(copy);
      LLVM_DEBUG(llvm::dbgs()
                 << "[" DEBUG_TYPE "] sweep " << sweep << ", copy #" << copy.id
                 << ": " << verdict.describe()
                 << (verdict.worthMoving() ? ": moved\n"
                                           : ": left in place\n"));
      if (verdict.worthMoving())
        continue;
      options.leaveInPlace.insert(copy.original);
      declined.push_back(copy.id);
      if (options.emitRemarks)
        emitCopyDeclinedRemark(function, copy.original, verdict);
      declinedInSweep = true;
      --stillMoved;
    }
    done.costModelSteps += model.getWork();
    if (!declinedInSweep)
      break;
  }
  // The copies left in place are patched into the plan: the copies that
  // must follow them move below them, and the waits are planned again.
  // Where the plan cannot be patched, it is made again, once; so it is with
  // several side streams into the device, where the revision would keep
  // each copy's stream and planning again deals the streams out anew
  // (simulated, up to 7% faster on programs where copies needed soon would
  // otherwise queue behind long ones on one stream).
  if (!declined.empty()) {
    llvm::sort(declined);
    if (options.sideStreams == 1 &&
        succeeded(planner->leaveCopiesInPlace(declined))) {
      ++done.revisions;
    } else {
      done.planSteps += planner->getSteps();
      // At most one plan is held at a time.
      planner.reset();
      planner.emplace(function, slots, options);
      ++done.plans;
    }
  }
  done.planSteps += planner->getSteps();
  if (work) {
    work->plans += done.plans;
    work->revisions += done.revisions;
    work->planSteps += done.planSteps;
    work->sweeps += done.sweeps;
    work->copiesWeighed += done.copiesWeighed;
    work->costModelSteps += done.costModelSteps;
  }
  return planner->takePlan();
}

void PlanWork::print(llvm::raw_ostream &os) const {
  os << plans << " plan(s) (" << revisions << " revised), " << sweeps
     << " cost-model sweep(s) weighing " << copiesWeighed << " copies, "
     << planSteps << " planning steps, " << costModelSteps
     << " cost-model steps";
}

CopyCostVerdict overlap::evaluateCopyCost(const CopyPlan &plan,
                                          const PlannedCopy &copy,
                                          const CopyCostOptions &options) {
  CopyCostModel model(plan, options);
  for (const PlannedCopy &other : plan.copies)
    if (other.id < copy.id)
      model.markMoved(other);
  return model.evaluate(copy);
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
