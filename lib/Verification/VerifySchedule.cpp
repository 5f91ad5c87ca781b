//===- VerifySchedule.cpp - A race checker for vyre schedules ---*- C++ -*-===//
//
// --vyre-verify-schedule: the referee of --overlap-copies, written apart from
// it. It unfolds a function into a trace of events (loops twice, the loops
// nested in a second iteration once; one trace per combination of scf.if
// branches), builds happens-before over the trace, and checks every pair of
// conflicting accesses against the input order, which is the ops' source
// order.
//
//===----------------------------------------------------------------------===//

#include "vyre/Verification/Passes.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/HostEffects.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Analysis/ViewDisjointness.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/Support/PassDiagnostics.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"

#include <set>
#include <tuple>

namespace mlir::vyre {
#define GEN_PASS_DEF_VERIFYSCHEDULEPASS
#include "vyre/Verification/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// The most scf.if combinations checked one by one.
/// The largest max-branch-ifs: 2^24 combinations already take hours.
constexpr unsigned kLargestMaxBranchIfs = 24;

/// A memory location: one instance of a slot (an allocation made again in a
/// loop is a new buffer), or a host buffer root. `everything` stands for all.
struct Location {
  bool everything = false;
  bool isSlot = false;
  unsigned slot = 0;
  unsigned instance = 0;
  Value hostRoot;

  static Location any() {
    Location location;
    location.everything = true;
    return location;
  }
};

struct Access {
  Location location;
  bool write = false;
  /// The memref the op names (a view of the location, or the whole of it):
  /// two accesses through disjoint views of one buffer never meet.
  Value view;
};

/// One step of an input-order key: an op's source position (line, column),
/// its place among the ops --vyre-pipeline-loops emitted at that position (0
/// for an op it did not emit), and which iteration of it (for loops).
using KeyStep = std::tuple<unsigned, unsigned, unsigned, unsigned>;

enum class Where { Host, Main, Side };

/// One executed op.
struct Event {
  Operation *op = nullptr;
  Where where = Where::Host;
  int64_t stream = 0;
  SmallVector<Access> accesses;
  SmallVector<KeyStep> key;
  /// The host continues only once this device op is done.
  bool blocksHost = false;
  SmallVector<unsigned> predecessors;
};

/// Unfolds one function into events and checks them.
class ScheduleChecker {
public:
  ScheduleChecker(func::FuncOp function, SlotAccessAnalysis &slots,
                  unsigned maxEvents, unsigned maxBranchIfs)
      : function(function), slots(slots), maxEvents(maxEvents),
        maxBranchIfs(maxBranchIfs), sequential(!isInStreamForm(function)) {}

  LogicalResult run() {
    if (failed(checkTraceLength()))
      return failure();
    // The scf.if ops on one condition computed once per run of the function
    // (an argument, a value of its entry block) take one branch together.
    unsigned numIfs = 0;
    DenseMap<Value, unsigned> conditionBits;
    function.walk([&](scf::IfOp branch) {
      Value condition = branch.getCondition();
      if (condition.getParentRegion() != &function.getBody()) {
        ifBits[branch] = numIfs++;
        return;
      }
      auto [it, inserted] = conditionBits.try_emplace(condition, numIfs);
      numIfs += inserted;
      ifBits[branch] = it->second;
    });
    if (numIfs > maxBranchIfs)
      return emitErrorAt(function)
             << "has " << numIfs
             << " scf.if ops on distinct conditions: --vyre-verify-schedule "
                "checks at most "
             << (uint64_t(1) << maxBranchIfs)
             << " branch combinations (max-branch-ifs=" << maxBranchIfs
             << "); raise max-branch-ifs (up to " << kLargestMaxBranchIfs
             << "; each one more doubles the time), or check the lowered "
                "code alone with --vyre-verify-gpu-streams, whose max-traces "
                "bounds it";
    bool clean = true;
    for (unsigned world = 0; world < (1u << numIfs); ++world) {
      events.clear();
      tokenEvent.clear();
      slotInstance.clear();
      branchChoices = world;
      if (failed(unfoldRegion(function.getBody(), {}, /*once=*/false)))
        return failure();
      addReturn();
      if (!check())
        clean = false;
    }
    return success(clean);
  }

private:
  //===--------------------------------------------------------------------===//
  // Unfolding
  //===--------------------------------------------------------------------===//

  /// The most events a trace of `region` holds (saturating): the longer
  /// branch of an scf.if; a loop's body twice, the loops nested in its
  /// second iteration once (`once`: how loops are unfolded there).
  static uint64_t countEvents(Region &region, bool once) {
    uint64_t count = 0;
    for (Block &block : region)
      for (Operation &op : block)
        count = llvm::SaturatingAdd(count, countEvents(&op, once));
    return count;
  }
  static uint64_t countEvents(Operation *op, bool once) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      uint64_t last = countEvents(loop.getRegion(), /*once=*/true);
      if (once)
        return last;
      return llvm::SaturatingAdd(
          countEvents(loop.getRegion(), /*once=*/false), last);
    }
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return std::max(countEvents(branch.getThenRegion(), once),
                      countEvents(branch.getElseRegion(), once));
    if (auto region = dyn_cast<scf::ExecuteRegionOp>(op))
      return countEvents(region.getRegion(), once);
    return op->hasTrait<OpTrait::IsTerminator>() ? 0 : 1;
  }

  /// Refuses, before unfolding, a function whose trace would be longer
  /// than `maxEvents`, at the top-level op that makes it so. The error
  /// names the op by its location alone: printing a nest of loops would
  /// bury the message.
  LogicalResult checkTraceLength() {
    // The return is an event of every trace (addReturn).
    uint64_t total = 1;
    for (Operation &op : function.getBody().front()) {
      uint64_t count = countEvents(&op, /*once=*/false);
      total = llvm::SaturatingAdd(total, count);
      if (total <= maxEvents)
        continue;
      InFlightDiagnostic diagnostic = emitError(op.getLoc());
      diagnostic << "'" << op.getName() << "' op ";
      if (count > maxEvents)
        diagnostic << "unfolds to " << count << " events";
      else
        diagnostic << "brings the trace to " << total << " events";
      diagnostic << ", more than max-events=" << maxEvents
                 << " of --vyre-verify-schedule";
      if (isa<scf::ForOp>(op))
        diagnostic << " (each loop body is checked over two iterations, "
                      "the loops nested in the second over one)";
      return diagnostic;
    }
    return success();
  }

  static KeyStep keyOf(Operation *op, unsigned iteration) {
    mlir::Location loc = op->getLoc();
    unsigned emitted = 0;
    // An op emitted in place of a loop stands where the loop stood.
    if (std::optional<PipelinedPosition> pipelined = getPipelinedPosition(loc)) {
      loc = pipelined->loop;
      emitted = pipelined->position + 1;
    }
    if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
      return {fileLoc.getLine(), fileLoc.getColumn(), emitted, iteration};
    // Without a source position, program order stands in.
    return {0, 0, emitted, iteration};
  }

  /// Unfolds `region` after `prefix`. `once`: its loops run one iteration
  /// (they are in the second iteration of a loop around them).
  LogicalResult unfoldRegion(Region &region, ArrayRef<KeyStep> prefix,
                             bool once) {
    if (region.empty())
      return success();
    if (!region.hasOneBlock())
      return emitErrorAt(region.getParentOp())
             << "has a region of several blocks, which --vyre-verify-schedule "
                "cannot check";
    for (Operation &op : region.front())
      if (failed(unfoldOp(&op, prefix, once)))
        return failure();
    return success();
  }

  /// A loop runs two iterations, unless `once`; the loops nested in its
  /// second iteration run one (docs/Verification.md says why that finds
  /// every race two iterations of each would: a race with an op of a later
  /// iteration is a race with the same op of the first, and every pair of
  /// ops of one outer iteration is met in the first).
  LogicalResult unfoldOp(Operation *op, ArrayRef<KeyStep> prefix, bool once) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (unsigned iteration = 0; iteration < (once ? 1 : 2); ++iteration) {
        SmallVector<KeyStep> key(prefix);
        key.push_back(keyOf(op, iteration));
        if (failed(unfoldRegion(loop.getRegion(), key,
                                /*once=*/once || iteration == 1)))
          return failure();
      }
      return success();
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      bool takeThen = !((branchChoices >> ifBits.lookup(branch)) & 1);
      SmallVector<KeyStep> key(prefix);
      key.push_back(keyOf(op, 0));
      return unfoldRegion(takeThen ? branch.getThenRegion()
                                   : branch.getElseRegion(),
                          key, once);
    }
    if (auto region = dyn_cast<scf::ExecuteRegionOp>(op)) {
      SmallVector<KeyStep> key(prefix);
      key.push_back(keyOf(op, 0));
      return unfoldRegion(region.getRegion(), key, once);
    }
    if (op->getNumRegions() != 0 && containsVyreOps(op))
      return emitErrorAt(op)
             << "holds vyre ops in a region --vyre-verify-schedule cannot "
                "unfold (only scf.for, scf.if and scf.execute_region)";
    if (op->hasTrait<OpTrait::IsTerminator>())
      return success();

    Event event;
    event.op = op;
    event.key.assign(prefix.begin(), prefix.end());
    event.key.push_back(keyOf(op, 0));
    if (failed(describe(op, event)))
      return failure();
    addEvent(std::move(event), op);
    return success();
  }

  Location slotLocation(Value buffer) {
    Value root = SlotAccessAnalysis::resolveRoot(buffer);
    std::optional<unsigned> slot = slots.getSlotNumber(root);
    if (!slot)
      return Location::any();
    Location location;
    location.isSlot = true;
    location.slot = *slot;
    location.instance = slotInstance.lookup(*slot);
    return location;
  }

  Location bufferLocation(Value buffer) {
    Value root = SlotAccessAnalysis::resolveRoot(buffer);
    if (slots.getSlotNumber(root))
      return slotLocation(root);
    Location location;
    location.hostRoot = root;
    return location;
  }

  LogicalResult dependOn(ValueRange tokens, Event &event) {
    for (Value token : tokens) {
      auto it = tokenEvent.find(token);
      if (it == tokenEvent.end())
        return event.op->emitOpError(
            "uses a token --vyre-verify-schedule cannot resolve");
      event.predecessors.push_back(it->second);
    }
    return success();
  }

  /// Fills in where `op` runs, what it touches, and the token edges into it.
  LogicalResult describe(Operation *op, Event &event) {
    auto streamOp = dyn_cast<StreamOpInterface>(op);
    if (!streamOp) {
      event.where = Where::Host;
      describeHostOp(op, event);
      return success();
    }
    std::optional<int64_t> stream = streamOp.getStreamIndex();
    event.where = !stream       ? Where::Host
                  : *stream == 0 ? Where::Main
                                 : Where::Side;
    event.stream = stream.value_or(0);
    event.blocksHost = stream && streamOp.blocksHost();
    if (streamOp.getLaunchedKernel())
      describeLaunch(op, event);
    else
      describeBufferAccesses(streamOp, event);
    return dependOn(streamOp.getAwaitedTokens(), event);
  }

  /// A kernel launch touches the slots its summary lists.
  void describeLaunch(Operation *launch, Event &event) {
    const AccessSummary &summary = slots.getSummary(launch);
    if (summary.isUnknown()) {
      event.accesses.push_back({Location::any(), true});
      return;
    }
    for (unsigned slot : summary.getReads())
      event.accesses.push_back({slotLocation(slots.getSlots()[slot]), false});
    for (unsigned slot : summary.getWrites())
      event.accesses.push_back({slotLocation(slots.getSlots()[slot]), true});
  }

  /// Any other stream op touches the buffers it names. An allocation makes a
  /// new buffer: later accesses to the slot are to this instance.
  void describeBufferAccesses(StreamOpInterface op, Event &event) {
    SmallVector<BufferAccess, 8> accesses;
    op.getBufferAccesses(accesses);
    for (const BufferAccess &access : accesses) {
      if (access.effect == BufferEffect::Allocate) {
        if (std::optional<unsigned> slot = slots.getSlotNumber(access.buffer))
          slotInstance[*slot] = events.size() + 1;
        continue;
      }
      Location location = access.space == BufferSpace::Device
                              ? slotLocation(access.buffer)
                              : bufferLocation(access.buffer);
      event.accesses.push_back({location, access.isWrite(), access.buffer});
    }
  }

  /// A host op touches what its declared memory effects say; without a
  /// declaration, or as a call, anything.
  void describeHostOp(Operation *op, Event &event) {
    // Pinning declares no effects; it changes how its buffer may be used,
    // and touches no other.
    if (isa<gpu::HostRegisterOp, gpu::HostUnregisterOp>(op)) {
      event.accesses.push_back({bufferLocation(op->getOperand(0)), true});
      return;
    }
    // A call touches what its callee's `vyre.effects` promises; an op with
    // regions, what its body touches (the rule --overlap-copies follows).
    std::optional<SmallVector<MemoryEffects::EffectInstance>> instances =
        collectHostEffects(op);
    if (!instances) {
      event.accesses.push_back({Location::any(), true});
      return;
    }
    for (const MemoryEffects::EffectInstance &instance : *instances) {
      if (isa<MemoryEffects::Allocate>(instance.getEffect()))
        continue;
      bool write = !isa<MemoryEffects::Read>(instance.getEffect());
      Value value = instance.getValue();
      if (!value) {
        if (write && !isa<SideEffects::AutomaticAllocationScopeResource>(
                         instance.getResource()))
          event.accesses.push_back({Location::any(), true});
        continue;
      }
      // Through a pointer or another non-memref value, any buffer.
      if (isa<BaseMemRefType>(value.getType()))
        event.accesses.push_back({bufferLocation(value), write, value});
      else
        event.accesses.push_back({Location::any(), true});
    }
  }

  void addEvent(Event event, Operation *op) {
    unsigned index = events.size();
    // A function that is not in stream form has sequential semantics: the
    // host continues once device work is done (no later host op can tell
    // otherwise).
    if (sequential && event.where != Where::Host)
      event.blocksHost = true;
    // Host program order, and enqueue order: everything waits for the host
    // to get there.
    if (lastHostPoint)
      event.predecessors.push_back(*lastHostPoint);
    // Stream order.
    if (event.where != Where::Host) {
      int64_t stream = event.where == Where::Main ? 0 : event.stream;
      auto it = lastOnStream.find(stream);
      if (it != lastOnStream.end())
        event.predecessors.push_back(it->second);
      lastOnStream[stream] = index;
    }
    if (event.where == Where::Host || event.blocksHost)
      lastHostPoint = index;
    for (Value result : op->getResults())
      if (isa<TokenType>(result.getType()))
        tokenEvent[result] = index;
    events.push_back(std::move(event));
  }

  /// The return: it waits for the main stream, then the caller may touch
  /// every buffer.
  void addReturn() {
    Event event;
    event.op = function.getBody().front().getTerminator();
    event.where = Where::Host;
    event.key.push_back({~0u, ~0u, ~0u, ~0u});
    event.accesses.push_back({Location::any(), true});
    auto it = lastOnStream.find(0);
    if (it != lastOnStream.end())
      event.predecessors.push_back(it->second);
    Operation *terminator = event.op;
    addEvent(std::move(event), terminator);
    lastOnStream.clear();
    lastHostPoint.reset();
  }

  //===--------------------------------------------------------------------===//
  // Checking
  //===--------------------------------------------------------------------===//

  enum class HostOrigin { Allocation, Argument, Unknown };

  /// Where a host buffer root comes from: an allocation in the function, an
  /// argument of it, or anything else.
  static HostOrigin hostOrigin(Value root) {
    if (auto argument = dyn_cast<BlockArgument>(root))
      return isa_and_nonnull<FunctionOpInterface>(
                 argument.getOwner()->getParentOp()) &&
                     argument.getOwner()->isEntryBlock()
                 ? HostOrigin::Argument
                 : HostOrigin::Unknown;
    auto effects = root.getDefiningOp<MemoryEffectOpInterface>();
    return effects && effects.getEffectOnValue<MemoryEffects::Allocate>(root)
               ? HostOrigin::Allocation
               : HostOrigin::Unknown;
  }

  static bool argumentsMayAlias(Value lhs, Value rhs) {
    return lhs == rhs || (!SlotAccessAnalysis::isNoAliasArgument(lhs) &&
                          !SlotAccessAnalysis::isNoAliasArgument(rhs));
  }

  bool hostBuffersMayAlias(Value lhs, Value rhs) {
    if (lhs == rhs)
      return true;
    HostOrigin lhsOrigin = hostOrigin(lhs), rhsOrigin = hostOrigin(rhs);
    if (lhsOrigin == HostOrigin::Unknown || rhsOrigin == HostOrigin::Unknown) {
      // A buffer chosen among arguments by arith.select is one of them: it
      // meets what one of them may meet, and never an allocation.
      std::optional<SmallVector<Value, 2>> lhsArguments =
          HostBufferAliasing::getArgumentsBehind(lhs);
      std::optional<SmallVector<Value, 2>> rhsArguments =
          HostBufferAliasing::getArgumentsBehind(rhs);
      if ((lhsArguments && rhsOrigin == HostOrigin::Allocation) ||
          (rhsArguments && lhsOrigin == HostOrigin::Allocation))
        return false;
      if (!lhsArguments || !rhsArguments)
        return true;
      return llvm::any_of(*lhsArguments, [&](Value lhsArgument) {
        return llvm::any_of(*rhsArguments, [&](Value rhsArgument) {
          return argumentsMayAlias(lhsArgument, rhsArgument);
        });
      });
    }
    if (lhsOrigin == HostOrigin::Allocation ||
        rhsOrigin == HostOrigin::Allocation)
      return false;
    return argumentsMayAlias(lhs, rhs);
  }

  bool overlap(const Location &lhs, const Location &rhs) {
    if (lhs.everything || rhs.everything)
      return true;
    if (lhs.isSlot && rhs.isSlot)
      return slots.mayAlias(lhs.slot, rhs.slot) &&
             (lhs.slot != rhs.slot || lhs.instance == rhs.instance);
    if (lhs.isSlot != rhs.isSlot) {
      // A memref argument may be a slot or a host buffer.
      const Location &slot = lhs.isSlot ? lhs : rhs;
      const Location &host = lhs.isSlot ? rhs : lhs;
      Value slotRoot = slots.getSlots()[slot.slot];
      return isa<BlockArgument>(slotRoot) &&
             hostBuffersMayAlias(slotRoot, host.hostRoot);
    }
    return hostBuffersMayAlias(lhs.hostRoot, rhs.hostRoot);
  }

  std::string describeLocation(const Location &lhs, const Location &rhs) {
    const Location &named = lhs.everything ? rhs : lhs;
    if (named.everything)
      return "any buffer";
    if (named.isSlot)
      return "slot " + std::to_string(named.slot);
    if (auto argument = dyn_cast<BlockArgument>(named.hostRoot))
      return "host buffer argument #" +
             std::to_string(argument.getArgNumber());
    return "a host buffer";
  }

  //===--------------------------------------------------------------------===//
  // Happens-before
  //===--------------------------------------------------------------------===//

  /// The host, and each stream, is a chain of events: each event on it
  /// happens before the next (stream order; host program order, through the
  /// blocking device ops between). A vector clock per event, one entry per
  /// chain: the last event of each chain that happens before it, counted
  /// from 1. Memory: events x chains, not events squared.
  void computeClocks() {
    unsigned n = events.size();
    DenseMap<int64_t, unsigned> chainOfStream;
    chainOf.assign(n, 0);
    for (unsigned i = 0; i < n; ++i)
      if (events[i].where != Where::Host)
        chainOf[i] =
            chainOfStream
                .try_emplace(events[i].where == Where::Main ? 0
                                                            : events[i].stream,
                             chainOfStream.size() + 1)
                .first->second;
    numChains = chainOfStream.size() + 1;
    clocks.assign(static_cast<size_t>(n) * numChains, 0);
    SmallVector<unsigned> counts(numChains, 0);
    seqOf.assign(n, 0);
    for (unsigned i = 0; i < n; ++i) {
      unsigned *clock = &clocks[static_cast<size_t>(i) * numChains];
      for (unsigned p : events[i].predecessors) {
        const unsigned *other = &clocks[static_cast<size_t>(p) * numChains];
        for (unsigned c = 0; c < numChains; ++c)
          clock[c] = std::max(clock[c], other[c]);
      }
      seqOf[i] = ++counts[chainOf[i]];
      clock[chainOf[i]] = seqOf[i];
    }
  }

  /// Whether event `i` happens before event `j` (i < j).
  bool happensBefore(unsigned i, unsigned j) const {
    return clocks[static_cast<size_t>(j) * numChains + chainOf[i]] >=
           seqOf[i];
  }

  /// Whether the pair of conflicting events i < j (issue order) is ordered
  /// in their input order.
  bool orderedPair(unsigned i, unsigned j) const {
    const Event &a = events[i], &b = events[j];
    if (a.op == b.op && a.key == b.key)
      return true;
    return !(b.key < a.key) && happensBefore(i, j);
  }

  //===--------------------------------------------------------------------===//
  // Checking
  //===--------------------------------------------------------------------===//

  /// Where `cellOf` puts an access that may touch any buffer, and the
  /// locations that may alias another location.
  static constexpr int kAnything = -1;
  static constexpr int kMayAliasOthers = 0;

  /// The cell of a location: locations in different cells never overlap,
  /// except that `kAnything` overlaps every cell. Any buffer, or a host
  /// buffer of unknown origin: `kAnything`. Arguments without
  /// `llvm.noalias` and slots that alias: `kMayAliasOthers`. Any other
  /// location (a slot's instance, a host allocation or a `noalias`
  /// argument): a cell of its own, from 1.
  int cellOf(const Location &location) {
    if (location.everything)
      return kAnything;
    if (location.isSlot) {
      Value root = slots.getSlots()[location.slot];
      if ((isa<BlockArgument>(root) &&
           !SlotAccessAnalysis::isNoAliasArgument(root)) ||
          slots.getSlotsOf(root).size() > 1)
        return kMayAliasOthers;
      return ownCell(
          {nullptr, (uint64_t(location.slot) << 32) | location.instance});
    }
    switch (hostOrigin(location.hostRoot)) {
    case HostOrigin::Unknown:
      return kAnything;
    case HostOrigin::Argument:
      if (!SlotAccessAnalysis::isNoAliasArgument(location.hostRoot))
        return kMayAliasOthers;
      [[fallthrough]];
    case HostOrigin::Allocation:
      return ownCell({location.hostRoot.getAsOpaquePointer(), 0});
    }
    llvm_unreachable("every origin is handled");
  }

  int ownCell(std::pair<const void *, uint64_t> key) {
    return cellNumbers.try_emplace(key, cellNumbers.size() + 1).first->second;
  }

  /// A quick check, linear in accesses: whether every pair of conflicting
  /// accesses is ordered. It checks each access against the last write to
  /// its location and, for a write, the reads since (the earlier pairs
  /// follow by transitivity). An access that may touch any buffer (every
  /// buffer, or a host buffer of unknown origin) is taken as a write to
  /// every buffer: it is checked against the last access of each chain.
  /// Locations that may alias another location (arguments without
  /// `llvm.noalias`, slots that alias) are taken as one. Both may only find
  /// more conflicts: a false answer says there may be a race, and `check`
  /// then finds each one.
  bool allPairsOrdered() {
    struct Cell {
      std::optional<unsigned> lastWrite;
      SmallVector<unsigned> readsSince;
    };
    std::vector<Cell> cells;
    std::optional<unsigned> lastEverything;
    SmallVector<std::optional<unsigned>> lastAccessOnChain(numChains);
    const SmallVector<KeyStep> *latestKey = nullptr;

    for (unsigned j = 0, n = events.size(); j < n; ++j) {
      const Event &event = events[j];
      if (event.accesses.empty())
        continue;
      bool everything = llvm::any_of(event.accesses, [&](const Access &x) {
        return cellOf(x.location) == kAnything;
      });
      if (everything) {
        // A write to every buffer: after every earlier access.
        for (std::optional<unsigned> last : lastAccessOnChain)
          if (last && !happensBefore(*last, j))
            return false;
        if (latestKey && event.key < *latestKey)
          return false;
      }
      SmallVector<std::pair<int, bool>, 4> touched;
      for (const Access &x : event.accesses) {
        int index = cellOf(x.location);
        if (index == kAnything)
          continue;
        if (static_cast<size_t>(index) >= cells.size())
          cells.resize(index + 1);
        Cell &cell = cells[index];
        // A write to every buffer after the cell's last write replaces it.
        if (lastEverything &&
            (!cell.lastWrite || *cell.lastWrite < *lastEverything)) {
          cell.lastWrite = lastEverything;
          llvm::erase_if(cell.readsSince,
                         [&](unsigned read) { return read < *lastEverything; });
        }
        if (cell.lastWrite && *cell.lastWrite != j &&
            !orderedPair(*cell.lastWrite, j))
          return false;
        if (x.write)
          for (unsigned read : cell.readsSince)
            if (read != j && !orderedPair(read, j))
              return false;
        touched.push_back({index, x.write});
      }
      for (auto [index, write] : touched) {
        Cell &cell = cells[index];
        if (write) {
          cell.lastWrite = j;
          cell.readsSince.clear();
        } else if (cell.readsSince.empty() || cell.readsSince.back() != j) {
          cell.readsSince.push_back(j);
        }
      }
      if (everything)
        lastEverything = j;
      lastAccessOnChain[chainOf[j]] = j;
      if (!latestKey || *latestKey < event.key)
        latestKey = &event.key;
    }
    return true;
  }

  bool check() {
    computeClocks();
    if (allPairsOrdered())
      return true;
    // Some pair may be unordered: find each, pair by pair, among the events
    // whose locations may overlap, and report them in issue order.
    struct Race {
      unsigned i, j, x, y;
      bool operator<(const Race &other) const {
        return std::tie(i, j, x, y) <
               std::tie(other.i, other.j, other.x, other.y);
      }
    };
    std::vector<Race> races;
    std::vector<SmallVector<unsigned>> eventsInCell;
    SmallVector<unsigned> anythingEvents;
    auto eventsIn = [&](int cell) -> SmallVector<unsigned> & {
      if (static_cast<size_t>(cell) >= eventsInCell.size())
        eventsInCell.resize(cell + 1);
      return eventsInCell[cell];
    };
    for (unsigned j = 0, n = events.size(); j < n; ++j) {
      const Event &b = events[j];
      if (b.accesses.empty())
        continue;
      // The earlier events that may touch what `b` touches.
      SmallVector<unsigned> candidates(anythingEvents);
      SmallVector<int, 4> bCells;
      for (const Access &y : b.accesses)
        bCells.push_back(cellOf(y.location));
      for (int cell : bCells) {
        if (cell == kAnything) {
          for (const SmallVector<unsigned> &each : eventsInCell)
            llvm::append_range(candidates, each);
          break;
        }
        llvm::append_range(candidates, eventsIn(cell));
      }
      llvm::sort(candidates);
      candidates.erase(llvm::unique(candidates), candidates.end());
      for (unsigned i : candidates) {
        const Event &a = events[i];
        if (a.op == b.op && a.key == b.key)
          continue;
        for (auto [xIndex, x] : llvm::enumerate(a.accesses)) {
          for (auto [yIndex, y] : llvm::enumerate(b.accesses)) {
            if (!(x.write || y.write) || !overlap(x.location, y.location) ||
                (x.view && y.view && areDisjointViews(x.view, y.view)))
              continue;
            // Equal keys (no source positions): program order decides.
            if (!(b.key < a.key) && happensBefore(i, j))
              continue;
            races.push_back({i, j, static_cast<unsigned>(xIndex),
                             static_cast<unsigned>(yIndex)});
          }
        }
      }
      for (int cell : bCells) {
        SmallVector<unsigned> &list =
            cell == kAnything ? anythingEvents : eventsIn(cell);
        if (list.empty() || list.back() != j)
          list.push_back(j);
      }
    }
    llvm::sort(races);
    for (const Race &race : races) {
      const Event &a = events[race.i], &b = events[race.j];
      bool aFirst = !(b.key < a.key);
      report(aFirst ? race.i : race.j, aFirst ? race.j : race.i,
             !aFirst && happensBefore(race.i, race.j),
             describeLocation(a.accesses[race.x].location,
                              b.accesses[race.y].location));
    }
    return races.empty();
  }

  void report(unsigned first, unsigned second, bool reversed,
              const std::string &where) {
    Operation *earlier = events[first].op, *later = events[second].op;
    if (!reported.insert({earlier, later}).second)
      return;
    // The message names both ops; the error prints neither.
    InFlightDiagnostic diagnostic = emitError(later->getLoc());
    diagnostic << "race on " << where << ": '" << later->getName()
               << "' and the earlier '" << earlier->getName() << "' "
               << (reversed ? "run in the opposite order of the input"
                            : "are not ordered");
    diagnostic.attachNote(earlier->getLoc()) << "the earlier op";
  }

  func::FuncOp function;
  SlotAccessAnalysis &slots;
  /// The most events one trace may have.
  unsigned maxEvents;
  unsigned maxBranchIfs;
  /// Whether the function has sequential semantics (no async vyre op).
  bool sequential;
  std::vector<Event> events;
  /// Per event: its chain (0: the host; then one per stream) and its place
  /// on it (from 1); and the vector clocks, `numChains` entries per event.
  std::vector<unsigned> chainOf, seqOf, clocks;
  unsigned numChains = 1;
  /// The cells of locations with one of their own (see cellOf).
  DenseMap<std::pair<const void *, uint64_t>, int> cellNumbers;
  DenseMap<Value, unsigned> tokenEvent;
  DenseMap<unsigned, unsigned> slotInstance;
  DenseMap<int64_t, unsigned> lastOnStream;
  std::optional<unsigned> lastHostPoint;
  /// Which bit of `branchChoices` picks each scf.if's branch.
  DenseMap<Operation *, unsigned> ifBits;
  unsigned branchChoices = 0;
  /// Pairs already reported, once each whatever they share.
  llvm::DenseSet<std::pair<Operation *, Operation *>> reported;
};

struct VerifySchedulePass
    : public vyre::impl::VerifySchedulePassBase<VerifySchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal() || warnIfNotImported(function, getArgument()))
      return markAllAnalysesPreserved();
    if (failed(diagnoseVyreOpsInDeviceCode(function)) ||
        failed(diagnoseHostAccessToDeviceMemory(function)))
      return signalPassFailure();
    // Without vyre ops, every op is a host op in program order (a call
    // returns with its device work done): nothing to order. Such a function
    // may have several blocks, which the checker does not unfold.
    if (!containsVyreOps(function))
      return markAllAnalysesPreserved();
    if (maxEvents == 0) {
      emitError(function.getLoc())
          << "max-events=0 of --vyre-verify-schedule: the bound on a "
             "trace's events must be at least 1";
      return signalPassFailure();
    }
    if (maxBranchIfs == 0 || maxBranchIfs > kLargestMaxBranchIfs) {
      emitOptionError(function.getLoc(), getArgument(), "max-branch-ifs",
                      std::to_string(maxBranchIfs),
                      "from 1 to " + std::to_string(kLargestMaxBranchIfs));
      return signalPassFailure();
    }
    ScheduleChecker checker(function, getAnalysis<SlotAccessAnalysis>(),
                            maxEvents, maxBranchIfs);
    if (failed(checker.run()))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
