//===- Simulate.cpp - A schedule simulator for vyre -------------*- C++ -*-===//
//
// --vyre-simulate: runs each function on a model of the GPU's engines and
// streams, in the order the host issues ops, and reports the makespan against
// the serial time and the lower bound.
//
//===----------------------------------------------------------------------===//

#include "vyre/Simulation/Passes.h"
#include "vyre/Simulation/SimulateFunction.h"

#include "FillAndDrain.h"
#include "IndexValues.h"
#include "SteadyState.h"

#include "vyre/Analysis/AllocationGroups.h"
#include "vyre/Analysis/DeviceCosts.h"
#include "vyre/Analysis/HostEffects.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/Support/PassDiagnostics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace mlir::vyre {
#define GEN_PASS_DEF_SIMULATEPASS
#include "vyre/Simulation/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

enum class EngineKind { Compute, HostToDevice, DeviceToHost };


/// One simulated op, for the trace.
struct Span {
  std::string name;
  int64_t stream;
  EngineKind engine;
  unsigned engineIndex;
  double start, end;
  /// What the trace shows of the op: its kernel, the buffer it writes or
  /// reads on the device, its bytes, its source location.
  llvm::json::Object args;
};

/// The source position of `op`, as text.
static std::string describeLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto fileLoc = dyn_cast<FileLineColLoc>(getSourceLocation(loc)))
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    loc.print(os);
  return text;
}

/// What the iterations of the loop being run wrote: the times a snapshot
/// of its state holds (SteadyState.h).
struct LoopWrites {
  bool host = false, issued = false;
  llvm::SetVector<int64_t> streams;
  llvm::SetVector<Value> tokens;
  llvm::SetVector<EngineKind> engines;
  /// Slots whose last write (true) or read (false) end was set.
  llvm::SetVector<std::pair<unsigned, unsigned>> slotEnds;
  /// The same for whole host buffers.
  llvm::SetVector<std::pair<Value, unsigned>> hostEnds;

  size_t size() const {
    return size_t(host) + size_t(issued) + streams.size() + tokens.size() +
           engines.size() + slotEnds.size() + hostEnds.size();
  }
  void merge(const LoopWrites &inner) {
    host |= inner.host;
    issued |= inner.issued;
    streams.insert(inner.streams.begin(), inner.streams.end());
    tokens.insert(inner.tokens.begin(), inner.tokens.end());
    engines.insert(inner.engines.begin(), inner.engines.end());
    slotEnds.insert(inner.slotEnds.begin(), inner.slotEnds.end());
    hostEnds.insert(inner.hostEnds.begin(), inner.hostEnds.end());
  }
};

/// One run of a loop being simulated: what its iterations wrote so far, and
/// the choices the current iteration took.
struct LoopRun {
  LoopWrites writes;
  simulation::ChoiceLog choices;
  /// The loop's induction variable.
  Value inductionVariable;
  /// Whether an scf.if in it took a branch computed from the iteration: its
  /// iterations need not repeat, so the run is not extrapolated.
  bool branchesOnIterations = false;
  /// Whether its choices stopped being logged, as the logs of all the loops
  /// being run outgrew kMaxLoggedChoiceOperands: the run is then not
  /// extrapolated either.
  bool choicesDropped = false;
};

/// The most times the choice logs of all the loops being run may hold
/// together. An outer loop's iteration holds its inner loops' runs, so in a
/// deep nest of short loops each log outgrows the one inside it: past this,
/// the outermost loops stop logging (and are run iteration by iteration),
/// which keeps the memory and the time per op bounded however deep the nest.
static constexpr size_t kMaxLoggedChoiceOperands = size_t(1) << 22;

class Simulator {
public:
  Simulator(func::FuncOp function, SlotAccessAnalysis &slots,
            const EngineModel &model)
      : function(function), slots(slots), model(model),
        allocationGroups(model.groupAllocations ? function.getOperation()
                                                : nullptr) {
    engineFree[EngineKind::Compute].assign(std::max(1u, model.computeEngines),
                                           0.0);
    engineFree[EngineKind::HostToDevice].assign(
        std::max(1u, model.h2dEngines), 0.0);
    engineFree[EngineKind::DeviceToHost].assign(
        std::max(1u, model.d2hEngines), 0.0);
  }

  /// Runs the function; null on failure (diagnosed at the op).
  /// The ops run so far, loop iterations included.
  uint64_t getOpsRun() const { return opsRun; }

  FailureOr<SimulatedRun> simulate() {
    if (failed(runRegion(function.getBody())))
      return failure();
    // The return waits for the tail of every stream the function used; the
    // first of those synchronizations finds the device done.
    if (!streamFree.empty())
      idleForHostUs += model.hostSyncUs;
    hostWaits(allStreamsFree(), streamFree.size());
    if (syncsOverflowed)
      return emitErrorAt(function)
             << "makes more than 2^64 - 1 host synchronizations in "
                "--vyre-simulate";
    SimulatedRun result;
    result.makespanUs = std::max(host, lastDeviceEnd);
    result.deviceTimeUs = sumH2D + sumD2H + sumKernels;
    engineBound = boundByEngines();
    // The device is idle while the host frees a buffer, issues its first op
    // and synchronizes at the return: no device op runs then, on the
    // dependency chains or on any engine, so that time adds to both.
    result.boundUs = std::max(longestPath, engineBound) + idleForHostUs;
    result.engineBoundUs = engineBound;
    result.idleForHostUs = idleForHostUs;
    return result;
  }

  /// The most any engine kind needs: the time before any of its work can
  /// start on the dependency chain (its fill), its work shared among its
  /// engines, and the least time the chain needs after any of its work (its
  /// drain). Every schedule of the program keeps the chain's order, so no
  /// schedule is shorter.
  double boundByEngines() const {
    const std::pair<EngineKind, double> sums[] = {
        {EngineKind::Compute, sumKernels},
        {EngineKind::HostToDevice, sumH2D},
        {EngineKind::DeviceToHost, sumD2H}};
    SmallVector<simulation::EngineEnds> ends = fillAndDrain.compute(
        model.countWorkAround,
        {unsigned(engineFree.at(EngineKind::Compute).size()),
         unsigned(engineFree.at(EngineKind::HostToDevice).size()),
         unsigned(engineFree.at(EngineKind::DeviceToHost).size())},
        {sumKernels, sumH2D, sumD2H});
    double bound = 0;
    for (auto [kind, sum] : sums) {
      double shared = sum / double(engineFree.at(kind).size());
      const simulation::EngineEnds &kindEnds = ends[unsigned(kind)];
      bound = std::max(bound, kindEnds.used ? std::max(kindEnds.fill + shared,
                                                       kindEnds.lateWork) +
                                                  kindEnds.drain
                                            : shared);
    }
    return bound;
  }

  /// Runs the function and reports it as a remark at the function.
  LogicalResult run() {
    FailureOr<SimulatedRun> result = simulate();
    if (failed(result))
      return failure();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "makespan " << llvm::format("%.1f", result->makespanUs)
       << " us, device time " << llvm::format("%.1f", result->deviceTimeUs)
       << " us, bound " << llvm::format("%.1f", result->boundUs)
       << " us (H2D copies " << llvm::format("%.1f", sumH2D)
       << " us, D2H copies " << llvm::format("%.1f", sumD2H) << " us, kernels "
       << llvm::format("%.1f", sumKernels) << " us, longest path "
       << llvm::format("%.1f", longestPath)
       << " us, engine with fill and drain "
       << llvm::format("%.1f", result->engineBoundUs)
       << " us, device idle for the host "
       << llvm::format("%.1f", result->idleForHostUs) << " us; host "
       << llvm::format("%.1f", hostOverhead) << " us in runtime calls, "
       << hostSyncs << " host synchronizations";
    if (extrapolatedIterations != 0)
      os << "; " << extrapolatedIterations
         << " loop iterations added from their steady state";
    os << ")";
    // At the function's location, not on the op: a remark on an op prints
    // the whole function after it.
    emitRemark(function.getLoc()) << text;
    // The same through the remark engine (--remarks-filter=simulate), which
    // also writes it to a YAML remarks file (--remark-format=yaml).
    if (auto remark = remark::analysis(
            getSourceLocation(function.getLoc()),
            remark::RemarkOpts::name("Simulated")
                .category("simulate")
                .function(function.getSymName())))
      remark << text;
    return success();
  }

  /// Adds the spans as Chrome trace events to `events`: the function's
  /// streams as process `pid`, its engines as process `pid + 1`.
  void appendTrace(llvm::json::Array &events, int pid) {
    std::string prefix = ("@" + function.getSymName() + " ").str();
    auto engineName = [](EngineKind kind) {
      switch (kind) {
      case EngineKind::Compute:
        return "compute engine";
      case EngineKind::HostToDevice:
        return "H2D copy engine";
      case EngineKind::DeviceToHost:
        return "D2H copy engine";
      }
      return "engine";
    };
    std::set<int64_t> streams;
    std::set<std::pair<int, unsigned>> engines;
    for (const Span &span : spans) {
      streams.insert(span.stream);
      engines.insert({int(span.engine), span.engineIndex});
      auto add = [&](int process, int64_t tid) {
        events.push_back(llvm::json::Object{
            {"name", span.name},
            {"ph", "X"},
            {"pid", process},
            {"tid", tid},
            {"ts", span.start},
            {"dur", span.end - span.start},
            {"args", llvm::json::Object(span.args)}});
      };
      add(pid, span.stream);
      add(pid + 1, int64_t(span.engine) * 100 + span.engineIndex);
    }
    auto name = [&](int process, int64_t tid, std::string text) {
      events.push_back(llvm::json::Object{
          {"name", "thread_name"},
          {"ph", "M"},
          {"pid", process},
          {"tid", tid},
          {"args", llvm::json::Object{{"name", std::move(text)}}}});
    };
    events.push_back(llvm::json::Object{
        {"name", "process_name"}, {"ph", "M"}, {"pid", pid},
        {"args", llvm::json::Object{{"name", prefix + "streams"}}}});
    events.push_back(llvm::json::Object{
        {"name", "process_name"}, {"ph", "M"}, {"pid", pid + 1},
        {"args", llvm::json::Object{{"name", prefix + "engines"}}}});
    for (int64_t stream : streams)
      name(pid, stream,
           stream == 0 ? "main stream" : "side stream " + std::to_string(stream));
    for (auto [kind, index] : engines)
      name(pid + 1, int64_t(kind) * 100 + index,
           std::string(engineName(EngineKind(kind))) + " " +
               std::to_string(index));
    // The makespan, which the host may set after the last device op: an
    // instant event at it, with it in its arguments.
    double makespan = std::max(host, lastDeviceEnd);
    events.push_back(llvm::json::Object{
        {"name", (prefix + "end: makespan " +
                  llvm::formatv("{0:F1}", makespan).str() + " us")},
        {"ph", "i"},
        {"s", "g"},
        {"pid", pid},
        {"tid", 0},
        {"ts", makespan},
        {"args", llvm::json::Object{{"makespan_us", makespan}}}});
    // Iterations added from a loop's steady state were not run: the trace
    // shows none of their ops.
    if (extrapolatedIterations != 0)
      events.push_back(llvm::json::Object{
          {"name", (prefix + std::to_string(extrapolatedIterations) +
                    " loop iterations added from their steady state, not "
                    "shown")},
          {"ph", "i"},
          {"s", "g"},
          {"pid", pid},
          {"tid", 0},
          {"ts", spans.empty() ? 0.0 : spans.back().end}});
    // Past max-trace-events, an instant event at the end says what is left
    // out (the makespan still counts every op).
    if (spansLeftOut != 0)
      events.push_back(llvm::json::Object{
          {"name", (prefix + "trace capped: " + std::to_string(spansLeftOut) +
                    " later ops left out (max-trace-events=" +
                    std::to_string(model.maxSpans) + ")")},
          {"ph", "i"},
          {"s", "g"},
          {"pid", pid},
          {"tid", 0},
          {"ts", spans.empty() ? 0.0 : spans.back().end}});
  }

private:
  LogicalResult runRegion(Region &region) {
    if (region.empty())
      return success();
    if (!region.hasOneBlock())
      return emitErrorAt(region.getParentOp())
             << "has a region of several blocks, which --vyre-simulate "
                "cannot run";
    for (Operation &op : region.front())
      if (failed(runOp(&op)))
        return failure();
    return success();
  }

  static std::optional<APInt> constantInteger(Value value) {
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return constant;
    return std::nullopt;
  }

  /// The iterations `loop` runs: its constant trip count, computed exactly
  /// (signed bounds, as scf.for compares them), or `default-trip-count`.
  /// More than `max-trips` is an error.
  FailureOr<uint64_t> tripCount(scf::ForOp loop) {
    std::optional<APInt> lower = constantInteger(loop.getLowerBound());
    std::optional<APInt> upper = constantInteger(loop.getUpperBound());
    std::optional<APInt> step = constantInteger(loop.getStep());
    if (!lower || !upper || !step || !step->isStrictlyPositive())
      return uint64_t(model.defaultTripCount);
    // One bit more than the bounds: upper - lower cannot overflow.
    unsigned width = std::max({lower->getBitWidth(), upper->getBitWidth(),
                               step->getBitWidth()}) + 2;
    APInt span = upper->sext(width) - lower->sext(width);
    if (!span.isStrictlyPositive())
      return uint64_t(0);
    APInt trips = (span + step->sext(width) - 1).udiv(step->sext(width));
    // Without extrapolation every iteration is run: past max-trips, an error
    // up front. With it, the loop is run until its steady state
    // (runLoop).
    if (trips.getActiveBits() > 64 ||
        (!model.steadyState && trips.getZExtValue() > model.maxTrips))
      return emitErrorAt(loop) << "runs "
             << llvm::toString(trips, 10, /*Signed=*/false) << " iterations, more than --vyre-simulate runs "
             << "(max-trips=" << model.maxTrips
             << "); raise max-trips to simulate it";
    return trips.getZExtValue();
  }

  /// When every stream is free, and `atLeast` has passed (the streams in
  /// the order of their numbers, so that a loop's choices compare).
  double deviceDone(double atLeast) {
    SmallVector<int64_t> streams;
    for (auto &entry : streamFree)
      streams.push_back(entry.first);
    llvm::sort(streams);
    SmallVector<double> ends{atLeast};
    for (int64_t stream : streams)
      ends.push_back(streamFree[stream]);
    return choose(ends);
  }

  /// The host blocks until `until`, then spends `syncs` synchronizations.
  void hostWaits(double until, size_t syncs) {
    if (LoopWrites *writes = currentWrites())
      writes->host = true;
    host = choose({host, until});
    spendOnHost(double(syncs) * model.hostSyncUs);
    bool overflowed = false;
    hostSyncs = llvm::SaturatingAdd(hostSyncs, uint64_t(syncs), &overflowed);
    syncsOverflowed |= overflowed;
  }

  void spendOnHost(double micros) {
    if (LoopWrites *writes = currentWrites())
      writes->host = true;
    host += micros;
    hostOverhead += micros;
  }

  double allStreamsFree() {
    SmallVector<double> free;
    for (const auto &entry : streamFree)
      free.push_back(entry.second);
    return choose(free);
  }

  /// The lowering makes the host wait for the device before a region op
  /// with vyre ops, and each run of its body wait for its own streams;
  /// except around a device region (a loop or a branch), which it chains on
  /// the device with events (a join of two dependencies before it and after
  /// each run of its body instead).
  void waitAroundRegion(Operation *op) {
    if (isDeviceRegion(op))
      spendOnHost(2 * model.eventUs);
    else if (containsVyreOps(op))
      hostWaits(allStreamsFree(), 1);
  }

  LogicalResult runOp(Operation *op) {
    if (++opsRun > model.maxOps) {
      // Named by its location alone: printing a nest of loops would bury
      // the message.
      Operation *culprit = outermostLoop ? outermostLoop : op;
      return emitError(culprit->getLoc())
             << "'" << culprit->getName() << "' op runs more than max-ops="
             << model.maxOps
             << " ops in --vyre-simulate (the trip counts of nested loops "
                "multiply); raise max-ops to simulate it";
    }
    if (op->getNumRegions() != 0)
      waitAroundRegion(op);
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      FailureOr<uint64_t> trips = tripCount(loop);
      if (failed(trips))
        return failure();
      bool outermost = !outermostLoop;
      if (outermost)
        outermostLoop = loop;
      if (failed(runLoop(loop, *trips)))
        return failure();
      if (outermost)
        outermostLoop = nullptr;
      return success();
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      // A condition computed from constants and the iterations of the loops
      // being run decides; any other takes the then branch.
      std::optional<int64_t> condition = simulation::evaluateIndexValue(
          branch.getCondition(), inductionValues);
      bool takeElse = condition && *condition == 0;
      // A condition computed from a loop's iterations may take either
      // branch, and may be known in some iterations and not in others: that
      // loop's runs are not extrapolated. One computed from anything else
      // is never known (the then branch, every time).
      if (!matchPattern(branch.getCondition(), m_Constant()))
        if (std::optional<SmallVector<Value, 2>> read =
                simulation::indexValuesRead(branch.getCondition(),
                                            inductionValues))
          for (LoopRun *run : loopRuns)
            if (llvm::is_contained(*read, run->inductionVariable))
              run->branchesOnIterations = true;
      if (failed(runRegion(takeElse ? branch.getElseRegion()
                                    : branch.getThenRegion())))
        return failure();
      waitAroundRegion(branch);
      return success();
    }
    if (auto region = dyn_cast<scf::ExecuteRegionOp>(op))
      return runRegion(region.getRegion());
    if (op->getNumRegions() != 0 && containsVyreOps(op))
      return emitErrorAt(op) << "holds vyre ops in a region --vyre-simulate "
                                "cannot run (only scf.for, scf.if and "
                                "scf.execute_region)";
    if (auto streamOp = dyn_cast<StreamOpInterface>(op))
      return runStreamOp(streamOp);
    noteHostOp(op);
    return success();
  }

  /// Runs a stream op: device work waits for its tokens and its stream, then
  /// takes an engine; an op without work orders its stream (or the host)
  /// after its tokens, or records the progress of its stream.
  LogicalResult runStreamOp(StreamOpInterface op) {
    ValueRange awaited = op.getAwaitedTokens();
    FailureOr<double> ready = tokensDone(op, awaited);
    if (failed(ready))
      return failure();
    std::optional<int64_t> stream = op.getStreamIndex();
    DeviceWork work = op.getDeviceWork();
    // A device op that waits for tokens runs on a join: a stream from the
    // pool that waits on an event per dependency (its own stream's too).
    if (stream && !awaited.empty())
      spendOnHost(model.streamCreateUs +
                  model.eventUs * double(awaited.size() + 1));
    if (work == DeviceWork::None) {
      if (!stream) {
        hostWaits(*ready, awaited.size());
        return success();
      }
      double &free = streamFree[*stream];
      free = choose({free, *ready});
      if (LoopWrites *writes = currentWrites())
        writes->streams.insert(*stream);
      // A free waits on the host for the whole device: the runtime's
      // cuMemFree is not stream-ordered, and synchronizes every stream. The
      // buffers of a group are allocated and freed as one, at the group's
      // last dealloc (AllocationGroups.h).
      auto dealloc = dyn_cast<DeallocOp>(op.getOperation());
      if (dealloc && !allocationGroups.isFreedLater(dealloc)) {
        hostWaits(deviceDone(free), 1);
        spendOnHost(model.allocFreeUs);
        idleForHostUs += model.hostSyncUs + model.allocFreeUs;
      }
      if (Value token = op.getCompletionToken())
        setTokenDone(token, choose({host, free}));
      return success();
    }
    FailureOr<double> cost = workTime(op, work);
    if (failed(cost))
      return failure();
    // Nothing runs on the device before the host has issued its first op.
    if (!launched) {
      launched = true;
      idleForHostUs += model.launchUs;
    }
    spendOnHost(model.launchUs);
    issue(op, stream.value_or(0), engineFor(work), *cost, *ready);
    if (op.blocksHost())
      hostWaits(lastEnd, 1);
    if (Value token = op.getCompletionToken())
      setTokenDone(token, lastEnd);
    return success();
  }

  static EngineKind engineFor(DeviceWork work) {
    switch (work) {
    case DeviceWork::CopyToDevice:
      return EngineKind::HostToDevice;
    case DeviceWork::CopyToHost:
      return EngineKind::DeviceToHost;
    default:
      return EngineKind::Compute;
    }
  }

  /// The device buffer a copy reads or writes.
  static Value deviceEndOf(StreamOpInterface copy) {
    SmallVector<BufferAccess, 8> accesses;
    copy.getBufferAccesses(accesses);
    for (const BufferAccess &access : accesses)
      if (access.space == BufferSpace::Device)
        return access.buffer;
    return {};
  }

  /// How long the work of `op` takes: a kernel's `vyre.cost_us` (or the
  /// model's default), a copy's latency plus its bytes over the bandwidth.
  FailureOr<double> workTime(StreamOpInterface op, DeviceWork work) {
    if (work != DeviceWork::Kernel)
      return copyTime(op, deviceEndOf(op), work == DeviceWork::CopyToDevice);
    double cost =
        getDeclaredKernelMicros(op).value_or(model.defaultKernelUs);
    if (cost < 0)
      return op->emitOpError("has a negative 'vyre.cost_us'");
    sumKernels += cost;
    return cost;
  }

  FailureOr<double> tokensDone(Operation *op, ValueRange tokens) {
    SmallVector<double> done;
    for (Value token : tokens) {
      auto it = tokenDone.find(token);
      if (it == tokenDone.end())
        return op->emitOpError("uses a token --vyre-simulate cannot resolve");
      done.push_back(it->second);
    }
    return choose(done);
  }

  /// The time of `copy`, computed on its first run: a copy in a loop runs
  /// many times, and finding its data layout costs the depth of its nest.
  FailureOr<double> copyTime(Operation *copy, Value deviceEnd, bool toDevice) {
    auto known = copyMicros.find(copy);
    if (known == copyMicros.end()) {
      FailureOr<double> micros = computeCopyTime(copy, deviceEnd, toDevice);
      if (failed(micros))
        return failure();
      known = copyMicros.try_emplace(copy, *micros).first;
    }
    (toDevice ? sumH2D : sumD2H) += known->second;
    return known->second;
  }

  FailureOr<double> computeCopyTime(Operation *copy, Value deviceEnd,
                                    bool toDevice) {
    auto type = cast<MemRefType>(deviceEnd.getType());
    if (!type.hasStaticShape())
      return copy->emitOpError("copies a buffer of dynamic size "
                               "(")
             << type << "), which --vyre-simulate cannot time";
    std::optional<uint64_t> elementBytes =
        getElementBytes(type.getElementType(), copy);
    if (!elementBytes)
      return copy->emitOpError("copies elements of type ")
             << type.getElementType()
             << ", whose size --vyre-simulate does not know";
    bool overflows = false;
    std::optional<uint64_t> size = getCopyBytes(deviceEnd, copy, &overflows);
    if (overflows || !size)
      return copy->emitOpError("copies a buffer of ")
             << type << ", more than 2^64 - 1 bytes";
    double bytes = double(*size);
    double gbps = toDevice ? model.h2dGBps : model.d2hGBps;
    return model.copyLatencyUs + bytes / (gbps * 1e3);
  }

  /// Starts `op` on `stream` and an engine of `kind` once it is issued, its
  /// stream is free, `ready` has passed and the engine is free.
  void issue(Operation *op, int64_t stream, EngineKind kind, double duration,
             double ready) {
    std::vector<double> &free = engineFree[kind];
    auto engine = std::min_element(free.begin(), free.end());
    // The engines of a kind are interchangeable: the choice among them is
    // recorded on their sorted times, as snapshots hold them.
    if (!loopRuns.empty()) {
      std::vector<double> sorted = free;
      llvm::sort(sorted);
      recordChoice(sorted, 0, /*isMinimum=*/true);
    }
    double start = choose({host, streamFree[stream], ready, *engine});
    double end = start + duration;
    *engine = end;
    streamFree[stream] = end;
    lastEnd = end;
    if (LoopWrites *writes = currentWrites()) {
      writes->issued = true;
      writes->streams.insert(stream);
      writes->engines.insert(kind);
    }
    lastDeviceEnd = std::max(lastDeviceEnd, end);
    if (model.keepSpans && spans.size() < model.maxSpans)
      spans.push_back({op->getName().getStringRef().str(), stream, kind,
                       unsigned(engine - free.begin()), start, end,
                       describeForTrace(op)});
    else if (model.keepSpans)
      ++spansLeftOut;
    noteDependencies(op, kind, duration);
  }

  /// The details of `op` that its trace event carries.
  llvm::json::Object describeForTrace(Operation *op) {
    llvm::json::Object args{{"location", describeLocation(op->getLoc())}};
    // An op --vyre-pipeline-loops wrote out stands for one in a loop.
    if (std::optional<PipelinedPosition> pipelined =
            getPipelinedPosition(op->getLoc()))
      args["pipelined from the loop at"] = describeLocation(pipelined->loop);
    auto slotOf = [&](Value buffer) -> std::string {
      if (std::optional<unsigned> slot = slots.getSlotNumber(
              SlotAccessAnalysis::resolveRoot(buffer)))
        return "slot " + std::to_string(*slot);
      return "host buffer";
    };
    auto copyArgs = [&](Value device, Value host) {
      args["buffer"] = slotOf(device);
      args["host buffer"] = slotOf(host);
      if (std::optional<uint64_t> bytes = getCopyBytes(device, op);
          bytes && *bytes <= uint64_t(INT64_MAX))
        args["bytes"] = int64_t(*bytes);
    };
    auto streamOp = dyn_cast<StreamOpInterface>(op);
    if (!streamOp)
      return args;
    if (SymbolRefAttr kernelSymbol = streamOp.getLaunchedKernel()) {
      std::string kernel;
      llvm::raw_string_ostream os(kernel);
      os << kernelSymbol;
      args["kernel"] = kernel;
      llvm::json::Array buffers;
      for (Value operand : streamOp.getKernelArguments())
        if (isa<BaseMemRefType>(operand.getType()))
          buffers.push_back(slotOf(operand));
      args["buffers"] = std::move(buffers);
      return args;
    }
    SmallVector<BufferAccess, 8> accesses;
    streamOp.getBufferAccesses(accesses);
    Value device, hostEnd;
    for (const BufferAccess &access : accesses)
      (access.space == BufferSpace::Device ? device : hostEnd) = access.buffer;
    if (device && hostEnd)
      copyArgs(device, hostEnd);
    return args;
  }

  /// Whether the dependency chain may follow `buffer` on the host: a whole
  /// buffer (not a view) the function takes or makes outside any region,
  /// which holds the same bytes at every use. A view, or a buffer made in a
  /// loop, may be other bytes each time; leaving it out only shortens the
  /// chain, so the bound stays a bound.
  bool isWholeHostBuffer(Value buffer) {
    if (!isa<BaseMemRefType>(buffer.getType()))
      return false;
    if (buffer.getParentBlock() != &function.getBody().front())
      return false;
    Operation *def = buffer.getDefiningOp();
    return !def || !isa<ViewLikeOpInterface>(def);
  }

  /// A host op's accesses to whole host buffers join the chain, taking no
  /// time: a copy into the device that reads what a host call wrote comes
  /// after it, and a host call that reads what a copy back wrote after the
  /// copy.
  void noteHostOp(Operation *op) {
    if (op->getNumRegions() != 0 || isa<StreamOpInterface>(op))
      return;
    bool touchesMemRefs = llvm::any_of(op->getOperandTypes(), [](Type type) {
      return isa<BaseMemRefType>(type);
    });
    if (!touchesMemRefs)
      return;
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
        collectHostEffects(op);
    if (!effects)
      return;
    SmallVector<std::pair<Value, bool>> hostAccesses;
    for (const MemoryEffects::EffectInstance &effect : *effects) {
      Value buffer = effect.getValue();
      bool write = isa<MemoryEffects::Write>(effect.getEffect());
      if (buffer && (write || isa<MemoryEffects::Read>(effect.getEffect())) &&
          isWholeHostBuffer(buffer))
        hostAccesses.push_back({buffer, write});
    }
    chainAccesses({}, hostAccesses, /*engine=*/std::nullopt, /*duration=*/0);
  }

  /// The longest chain of conflicting accesses, in program order: each op
  /// ends on the chain after every earlier op it conflicts with.
  void noteDependencies(Operation *op, EngineKind engine, double duration) {
    SmallVector<std::pair<unsigned, bool>> accesses;
    SmallVector<std::pair<Value, bool>> hostAccesses;
    auto addBuffer = [&](Value buffer, bool write) {
      for (unsigned slot : slots.getSlotsOf(buffer))
        accesses.push_back({slot, write});
    };
    auto streamOp = dyn_cast<StreamOpInterface>(op);
    if (!streamOp)
      return;
    if (streamOp.getLaunchedKernel()) {
      const AccessSummary &summary = slots.getSummary(op);
      for (unsigned slot : summary.getReads())
        accesses.push_back({slot, false});
      for (unsigned slot : summary.getWrites())
        accesses.push_back({slot, true});
    } else {
      SmallVector<BufferAccess, 8> buffers;
      streamOp.getBufferAccesses(buffers);
      for (const BufferAccess &access : buffers) {
        if (access.space == BufferSpace::Device)
          addBuffer(access.buffer, access.isWrite());
        else if (isWholeHostBuffer(access.buffer))
          hostAccesses.push_back({access.buffer, access.isWrite()});
      }
    }
    chainAccesses(accesses, hostAccesses, engine, duration);
  }

  /// Puts an op that makes `accesses` to device slots and `hostAccesses` to
  /// host buffers on the chain.
  void chainAccesses(ArrayRef<std::pair<unsigned, bool>> accesses,
                     ArrayRef<std::pair<Value, bool>> hostAccesses,
                     std::optional<EngineKind> engine, double duration) {
    SmallVector<double> after;
    for (auto [slot, write] : accesses) {
      after.push_back(lastWriteEnd.lookup(slot));
      if (write)
        after.push_back(lastReadEnd.lookup(slot));
    }
    for (auto [buffer, write] : hostAccesses) {
      after.push_back(hostLastWriteEnd.lookup(buffer));
      if (write)
        after.push_back(hostLastReadEnd.lookup(buffer));
    }
    double start = choose(after);
    double end = start + duration;
    longestPath = std::max(longestPath, end);
    fillAndDrain.add(engine ? std::optional<unsigned>(unsigned(*engine))
                            : std::nullopt,
                     start, duration, accesses, hostAccesses);
    LoopWrites *writes = currentWrites();
    for (auto [slot, write] : accesses) {
      double &slotEnd = write ? lastWriteEnd[slot] : lastReadEnd[slot];
      slotEnd = choose({slotEnd, end});
      if (writes)
        writes->slotEnds.insert({slot, unsigned(write)});
    }
    for (auto [buffer, write] : hostAccesses) {
      double &bufferEnd =
          write ? hostLastWriteEnd[buffer] : hostLastReadEnd[buffer];
      bufferEnd = choose({bufferEnd, end});
      if (writes)
        writes->hostEnds.insert({buffer, unsigned(write)});
    }
  }

  void setTokenDone(Value token, double time) {
    tokenDone[token] = time;
    if (LoopWrites *writes = currentWrites())
      writes->tokens.insert(token);
  }

  /// What the innermost loop being run has written so far, if any.
  LoopWrites *currentWrites() {
    return loopRuns.empty() ? nullptr : &loopRuns.back()->writes;
  }

  /// Records a choice among times in the iteration each loop being run is
  /// in (SteadyState.h).
  void recordChoice(ArrayRef<double> operands, unsigned winner,
                    bool isMinimum) {
    // Innermost first: the loops whose logs were dropped are the outermost.
    for (LoopRun *run : llvm::reverse(loopRuns)) {
      if (run->choicesDropped)
        break;
      run->choices.record(operands, winner, isMinimum);
      loggedChoiceOperands += operands.size();
    }
    for (LoopRun *run : loopRuns) {
      if (loggedChoiceOperands <= kMaxLoggedChoiceOperands)
        break;
      if (run->choicesDropped)
        continue;
      clearChoices(*run);
      run->choicesDropped = true;
    }
  }

  /// Empties `run`'s choice log.
  void clearChoices(LoopRun &run) {
    loggedChoiceOperands -= run.choices.getNumOperands();
    run.choices.clear();
  }

  /// The latest of `times` (0 if none), recorded as a choice.
  double choose(ArrayRef<double> times) {
    if (times.empty())
      return 0;
    unsigned winner = 0;
    for (unsigned i = 1; i < times.size(); ++i)
      if (times[i] > times[winner])
        winner = i;
    if (!loopRuns.empty())
      recordChoice(times, winner, /*isMinimum=*/false);
    return std::max(0.0, times[winner]);
  }
  double choose(std::initializer_list<double> times) {
    return choose(ArrayRef<double>(times.begin(), times.size()));
  }

  /// Runs `trips` iterations of `loop`: one by one, until two in a row
  /// repeat (SteadyState.h); then the rest at once. A loop with no steady
  /// state within max-trips iterations is an error.
  LogicalResult runLoop(scf::ForOp loop, uint64_t trips) {
    LoopRun run;
    run.inductionVariable = loop.getInductionVar();
    loopRuns.push_back(&run);
    simulation::SteadyStateDetector detector;
    size_t written = 0;
    LogicalResult result = success();
    std::optional<APInt> lower = constantInteger(loop.getLowerBound());
    std::optional<APInt> step = constantInteger(loop.getStep());
    for (uint64_t i = 0; i < trips; ++i) {
      // The induction variable's value, where the bounds say it.
      int64_t scaled = 0, value = 0;
      if (lower && step && lower->getSignificantBits() <= 64 &&
          step->getSignificantBits() <= 64 && i <= uint64_t(INT64_MAX) &&
          !llvm::MulOverflow(int64_t(i), step->getSExtValue(), scaled) &&
          !llvm::AddOverflow(lower->getSExtValue(), scaled, value))
        inductionValues[loop.getInductionVar()] = value;
      else
        inductionValues.erase(loop.getInductionVar());
      if (model.steadyState && i == model.maxTrips &&
          !run.branchesOnIterations && !run.choicesDropped) {
        result = emitErrorAt(loop) << "runs "
                 << trips << " iterations, and its first " << model.maxTrips
                 << " (max-trips) reach no steady state in --vyre-simulate; "
                    "raise max-trips to simulate it";
        break;
      }
      clearChoices(run);
      size_t iterationBegin = fillAndDrain.recordedOps();
      if (failed(runRegion(loop.getRegion()))) {
        result = failure();
        break;
      }
      waitAroundRegion(loop);
      // The ops whose ancestors the bound counts end with a loop's first
      // iteration, whether its later ones are run or extrapolated, so that
      // both give the same bound.
      if (i == 0)
        fillAndDrain.endCounting();
      if (!model.steadyState || i + 1 == trips || run.branchesOnIterations ||
          run.choicesDropped)
        continue;
      if (run.writes.size() != written) {
        detector.reset();
        written = run.writes.size();
      }
      loggedChoiceOperands -= run.choices.getNumOperands();
      if (std::optional<simulation::LoopPeriod> period = detector.add(
              snapshot(run.writes), std::move(run.choices))) {
        result = extrapolate(loop, run.writes, *period, trips - i - 1);
        fillAndDrain.repeat(iterationBegin, trips - i - 1);
        break;
      }
    }
    clearChoices(run);
    loopRuns.pop_back();
    inductionValues.erase(loop.getInductionVar());
    if (LoopWrites *outer = currentWrites())
      outer->merge(run.writes);
    return result;
  }

  /// The times the loop's iterations wrote, and the totals, in the order
  /// `extrapolate` reads them back. The engines of a kind are
  /// interchangeable (an op takes the earliest free one): their times are
  /// compared sorted.
  simulation::LoopSnapshot snapshot(const LoopWrites &writes) {
    simulation::LoopSnapshot state;
    std::vector<double> &times = state.times;
    if (writes.host)
      times.push_back(host);
    if (writes.issued)
      times.push_back(lastEnd);
    for (int64_t stream : writes.streams)
      times.push_back(streamFree[stream]);
    for (EngineKind kind : writes.engines) {
      std::vector<double> free = engineFree[kind];
      llvm::sort(free);
      times.insert(times.end(), free.begin(), free.end());
    }
    for (Value token : writes.tokens)
      times.push_back(tokenDone[token]);
    for (auto [slot, write] : writes.slotEnds)
      times.push_back((write ? lastWriteEnd : lastReadEnd).lookup(slot));
    for (auto [buffer, write] : writes.hostEnds)
      times.push_back(
          (write ? hostLastWriteEnd : hostLastReadEnd).lookup(buffer));
    state.totals = {sumH2D,
                    sumD2H,
                    sumKernels,
                    hostOverhead,
                    double(hostSyncs),
                    double(spansLeftOut),
                    idleForHostUs};
    return state;
  }

  /// Adds `remaining` iterations of `period` to the state, in the order
  /// `snapshot` took it.
  LogicalResult extrapolate(scf::ForOp loop, const LoopWrites &writes,
                            const simulation::LoopPeriod &period,
                            uint64_t remaining) {
    double count = double(remaining);
    const std::vector<double> &growth = period.growth.times;
    size_t next = 0;
    auto advance = [&](double &time) { time += count * growth[next++]; };
    // The ends of device ops are where streams and engines are free.
    auto advanceDevice = [&](double &time) {
      advance(time);
      lastDeviceEnd = std::max(lastDeviceEnd, time);
    };
    if (writes.host)
      advance(host);
    if (writes.issued)
      advanceDevice(lastEnd);
    for (int64_t stream : writes.streams)
      advanceDevice(streamFree[stream]);
    for (EngineKind kind : writes.engines) {
      std::vector<double> &free = engineFree[kind];
      llvm::sort(free);
      for (double &time : free)
        advanceDevice(time);
    }
    for (Value token : writes.tokens)
      advance(tokenDone[token]);
    for (auto [slot, write] : writes.slotEnds) {
      double &end = (write ? lastWriteEnd : lastReadEnd)[slot];
      advance(end);
      longestPath = std::max(longestPath, end);
    }
    for (auto [buffer, write] : writes.hostEnds) {
      double &end = (write ? hostLastWriteEnd : hostLastReadEnd)[buffer];
      advance(end);
      longestPath = std::max(longestPath, end);
    }
    const std::vector<double> &totals = period.growth.totals;
    sumH2D += count * totals[0];
    sumD2H += count * totals[1];
    sumKernels += count * totals[2];
    hostOverhead += count * totals[3];
    idleForHostUs += count * totals[6];
    // Each saturating call sets its flag, overflowed or not.
    bool syncsOverflow = false, spansOverflow = false, iterationsOverflow = false;
    hostSyncs = llvm::SaturatingMultiplyAdd(
        remaining, uint64_t(std::llround(totals[4])), hostSyncs,
        &syncsOverflow);
    spansLeftOut = llvm::SaturatingMultiplyAdd(
        remaining, uint64_t(std::llround(totals[5])), spansLeftOut,
        &spansOverflow);
    extrapolatedIterations = llvm::SaturatingAdd(
        extrapolatedIterations, remaining, &iterationsOverflow);
    if (syncsOverflow || spansOverflow || iterationsOverflow)
      return emitErrorAt(loop) << "runs "
             << remaining
             << " more iterations than --vyre-simulate can count the host "
                "synchronizations or the iterations of (more than "
                "2^64 - 1)";
    return success();
  }

  func::FuncOp function;
  SlotAccessAnalysis &slots;
  EngineModel model;
  AllocationGroups allocationGroups;
  /// Ops run so far (max-ops), and the top-level loop being run.
  uint64_t opsRun = 0;
  Operation *outermostLoop = nullptr;
  /// What each loop being run wrote, innermost last, and the iterations
  /// added from steady states.
  SmallVector<LoopRun *> loopRuns;
  /// Each copy's time, once computed (copyTime).
  DenseMap<Operation *, double> copyMicros;
  /// The times the choice logs of `loopRuns` hold together.
  size_t loggedChoiceOperands = 0;
  /// The value of the induction variable of each loop being run, in its
  /// current iteration.
  DenseMap<Value, int64_t> inductionValues;
  uint64_t extrapolatedIterations = 0;

  double host = 0;
  double lastEnd = 0;
  /// The latest end of any device op.
  double lastDeviceEnd = 0;
  /// Ops the trace leaves out, past `maxSpans`.
  uint64_t spansLeftOut = 0;
  DenseMap<int64_t, double> streamFree;
  std::map<EngineKind, std::vector<double>> engineFree;
  DenseMap<Value, double> tokenDone;
  std::vector<Span> spans;

  double sumH2D = 0, sumD2H = 0, sumKernels = 0, longestPath = 0;
  /// The ops on the dependency chain, for each engine's fill and drain.
  simulation::FillAndDrain fillAndDrain;
  double engineBound = 0;
  /// Host time spent in runtime calls, and host synchronizations.
  double hostOverhead = 0;
  /// The host's time in which the device has nothing to run (a free's
  /// synchronization and free, the first launch, the return's first
  /// synchronization), and whether an op was launched yet.
  double idleForHostUs = 0;
  bool launched = false;
  uint64_t hostSyncs = 0;
  /// Whether the host synchronizations passed 2^64 - 1.
  bool syncsOverflowed = false;
  DenseMap<unsigned, double> lastWriteEnd, lastReadEnd;
  /// The same for whole host buffers (isWholeHostBuffer).
  DenseMap<Value, double> hostLastWriteEnd, hostLastReadEnd;
};

struct SimulatePass : public vyre::impl::SimulatePassBase<SimulatePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    markAllAnalysesPreserved();
    Location loc = module.getLoc();
    StringRef pass = getArgument();
    if (failed(checkNumberOptions(
            loc, pass,
            {{"copy-latency-us", copyLatencyUs},
             {"default-kernel-us", defaultKernelUs},
             {"launch-us", launchUs},
             {"event-us", eventUs},
             {"stream-create-us", streamCreateUs},
             {"host-sync-us", hostSyncUs},
             {"alloc-free-us", allocFreeUs}},
            {{"h2d-gbps", h2dGBps}, {"d2h-gbps", d2hGBps}})) ||
        failed(checkCountOption(loc, pass, "compute-engines", computeEngines,
                                1, "kernels need an engine")) ||
        failed(checkCountOption(loc, pass, "h2d-engines", h2dEngines, 1,
                                "copies to the device need an engine")) ||
        failed(checkCountOption(loc, pass, "d2h-engines", d2hEngines, 1,
                                "copies to the host need an engine")))
      return signalPassFailure();
    EngineModel model{computeEngines,
                      h2dEngines,
                      d2hEngines,
                      h2dGBps,
                      d2hGBps,
                      copyLatencyUs,
                      defaultKernelUs,
                      defaultTripCount,
                      maxTrips,
                      steadyState,
                      maxOps,
                      /*keepSpans=*/!tracePath.empty(),
                      maxTraceEvents,
                      launchUs,
                      eventUs,
                      streamCreateUs,
                      hostSyncUs,
                      allocFreeUs};
    model.groupAllocations = groupAllocations;
    // Every function with a body, each on its own model of the device; the
    // trace holds them all, two processes (streams, engines) per function.
    llvm::json::Array events;
    int pid = 1;
    bool clean = true;
    module.walk([&](func::FuncOp function) {
      if (function.isExternal() || warnIfNotImported(function, getArgument()))
        return;
      // A host function of several blocks without vyre ops (a CPU helper)
      // has no device work to simulate, and blocks the simulator cannot
      // run: it is left out.
      if (!function.getBody().hasOneBlock() && !containsVyreOps(function))
        return;
      Simulator simulator(
          function, getChildAnalysis<SlotAccessAnalysis>(function), model);
      if (failed(simulator.run())) {
        clean = false;
        return;
      }
      simulator.appendTrace(events, pid);
      pid += 2;
    });
    if (!clean)
      return signalPassFailure();
    if (!tracePath.empty() && failed(writeTrace(module, std::move(events))))
      return signalPassFailure();
  }

  /// Writes `events` to the trace file, as Chrome trace-event JSON.
  LogicalResult writeTrace(ModuleOp module, llvm::json::Array events) {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(tracePath, &error);
    if (!file)
      return emitError(module.getLoc(), "cannot write the trace '")
             << tracePath << "': " << error;
    file->os() << llvm::formatv(
        "{0:2}", llvm::json::Value(llvm::json::Object{
                     {"traceEvents", std::move(events)},
                     {"displayTimeUnit", "ns"}}));
    file->os() << "\n";
    file->keep();
    return success();
  }
};

} // namespace

FailureOr<SimulatedRun> vyre::simulateFunction(func::FuncOp function,
                                               SlotAccessAnalysis &slots,
                                               const EngineModel &model,
                                               uint64_t *opsRun) {
  Simulator simulator(function, slots, model);
  FailureOr<SimulatedRun> run = simulator.simulate();
  if (opsRun)
    *opsRun = simulator.getOpsRun();
  return run;
}
