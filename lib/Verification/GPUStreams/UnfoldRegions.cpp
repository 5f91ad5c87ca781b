//===- UnfoldRegions.cpp - scf region ops, unfolded into the trace --------===//
//
// scf.for and scf.while run twice or not at all (a known trip count as
// such, at most twice), scf.if and scf.index_switch take the branch the
// trace chooses; tokens and memrefs are followed through iter_args, yields
// and results.
//
//===----------------------------------------------------------------------===//

#include "TraceInterpreter.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

/// How many times a loop body runs in a trace where it runs at all.
constexpr unsigned kLoopIterations = 2;

FailureOr<Block *> TraceInterpreter::singleBlock(Region &region) {
  if (region.empty())
    return static_cast<Block *>(nullptr);
  if (!region.hasOneBlock())
    return region.getParentOp()->emitOpError(
        "has a region of several blocks, which --vyre-verify-gpu-streams "
        "cannot unfold");
  return &region.front();
}

LogicalResult TraceInterpreter::collect(Operation *user, ValueRange values,
                                        SmallVectorImpl<Carried> &carried) {
  carried.clear();
  for (Value value : values) {
    Carried held;
    if (isa<gpu::AsyncTokenType>(value.getType())) {
      FailureOr<unsigned> stream = streamOf(user, value);
      if (failed(stream))
        return failure();
      held.stream = *stream;
    } else if (isa<BaseMemRefType>(value.getType())) {
      held.buffer = bufferOf(value);
    } else if (auto event = eventOf.find(value); event != eventOf.end()) {
      held.event = event->second;
    }
    carried.push_back(held);
  }
  return success();
}

void TraceInterpreter::bind(ValueRange targets, ArrayRef<Carried> carried) {
  for (auto [target, held] : llvm::zip(targets, carried)) {
    if (held.stream)
      tokenStream[target] = *held.stream;
    if (held.buffer)
      memrefBinding[target] = *held.buffer;
    if (held.event)
      eventOf[target] = *held.event;
  }
}

unsigned TraceInterpreter::unknownTrips(Operation *loop) {
  auto [it, inserted] = loopTrips.try_emplace(loop, 0);
  if (inserted)
    it->second = choices.choose(2) == 0 ? kLoopIterations : 0;
  return it->second;
}

LogicalResult TraceInterpreter::runRegionOp(Operation *op) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](scf::ForOp loop) { return runFor(loop); })
      .Case([&](scf::IfOp branch) { return runIf(branch); })
      .Case(
          [&](scf::ExecuteRegionOp region) { return runExecuteRegion(region); })
      .Case([&](scf::WhileOp loop) { return runWhile(loop); })
      .Case([&](scf::IndexSwitchOp cases) { return runIndexSwitch(cases); });
}

LogicalResult TraceInterpreter::runFor(scf::ForOp loop) {
  FailureOr<Block *> body = singleBlock(loop.getRegion());
  if (failed(body))
    return failure();
  // A known trip count runs as such (at most twice); an unknown one runs
  // twice in one trace and not at all in another.
  unsigned trips = kLoopIterations;
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (lower && upper && step && *step > 0) {
    int64_t span = 0;
    if (*upper <= *lower)
      trips = 0;
    else if (!llvm::SubOverflow(*upper, *lower, span) && span <= *step)
      trips = 1;
  } else {
    trips = unknownTrips(loop);
  }

  // A run that repeats an earlier run in full runs once; a run in full is
  // recorded for the runs after it (RepeatedLoops.cpp).
  std::optional<std::vector<int64_t>> signature;
  if (trips == kLoopIterations && runRepeatsOnce) {
    if (const SmallVector<Value> *inputs = repeatableInputs(loop)) {
      signature = entrySignature(*inputs);
      if (fullRuns[loop].count(*signature)) {
        trips = 1;
        ranOnce = true;
        signature.reset();
      }
    }
  }
  unsigned firstStart = trace.getNodes().size(), secondStart = firstStart;

  // Tokens travel through iter_args as the streams they carry, memrefs as
  // the buffers they hold.
  SmallVector<Carried> carried;
  if (failed(collect(loop, loop.getInitArgs(), carried)))
    return failure();
  for (unsigned trip = 0; trip < trips; ++trip) {
    if (trip == 1)
      secondStart = trace.getNodes().size();
    bind(loop.getRegionIterArgs(), carried);
    if (failed(runBlock(**body)))
      return failure();
    Operation *yield = (*body)->getTerminator();
    if (failed(collect(yield, yield->getOperands(), carried)))
      return failure();
  }
  bind(loop.getResults(), carried);
  if (signature) {
    recordIterationChains(firstStart, secondStart, trace.getNodes().size());
    fullRuns[loop].insert(std::move(*signature));
  }
  return success();
}

/// The before region runs, and its scf.condition decides: the after region
/// runs twice (or, for a condition known false, not at all) with the before
/// region again after each run, or not at all, as for an scf.for.
LogicalResult TraceInterpreter::runWhile(scf::WhileOp loop) {
  FailureOr<Block *> before = singleBlock(loop.getBefore());
  if (failed(before))
    return failure();
  FailureOr<Block *> after = singleBlock(loop.getAfter());
  if (failed(after))
    return failure();
  if (!*before || !*after)
    return success();
  scf::ConditionOp condition = loop.getConditionOp();
  std::optional<int64_t> known = getConstantIntValue(condition.getCondition());
  unsigned trips = known && *known == 0 ? 0 : unknownTrips(loop);

  SmallVector<Carried> carried;
  if (failed(collect(loop, loop.getInits(), carried)))
    return failure();
  for (unsigned trip = 0;; ++trip) {
    bind(loop.getBeforeArguments(), carried);
    if (failed(runBlock(**before)))
      return failure();
    if (failed(collect(condition, condition.getArgs(), carried)))
      return failure();
    if (trip == trips)
      break;
    bind(loop.getAfterArguments(), carried);
    if (failed(runBlock(**after)))
      return failure();
    scf::YieldOp yield = loop.getYieldOp();
    if (failed(collect(yield, yield.getOperands(), carried)))
      return failure();
  }
  bind(loop.getResults(), carried);
  return success();
}

LogicalResult TraceInterpreter::runIf(scf::IfOp branch) {
  Value condition = branch.getCondition();
  unsigned choice = 0;
  if (isa<FunctionOpInterface>(condition.getParentRegion()->getParentOp())) {
    auto [it, inserted] = branchOnCondition.try_emplace(condition, 0);
    if (inserted)
      it->second = choices.choose(2);
    choice = it->second;
  } else {
    choice = choices.choose(2);
  }
  Region &taken = choice == 0 ? branch.getThenRegion() : branch.getElseRegion();
  return runYieldingRegion(taken, branch->getResults());
}

/// A switch on a known index takes its case; otherwise every case (and the
/// default) is a choice.
LogicalResult TraceInterpreter::runIndexSwitch(scf::IndexSwitchOp cases) {
  ArrayRef<int64_t> values = cases.getCases();
  unsigned index = 0;
  if (std::optional<int64_t> known = getConstantIntValue(cases.getArg()))
    index = std::distance(values.begin(), llvm::find(values, *known));
  else
    index = choices.choose(values.size() + 1);
  Region &taken = index == values.size() ? cases.getDefaultRegion()
                                         : cases.getCaseRegions()[index];
  return runYieldingRegion(taken, cases->getResults());
}

LogicalResult TraceInterpreter::runExecuteRegion(scf::ExecuteRegionOp region) {
  return runYieldingRegion(region.getRegion(), region->getResults());
}

/// Runs the single block of `region` and binds `results` to what its
/// terminator yields.
LogicalResult TraceInterpreter::runYieldingRegion(Region &region,
                                                  ResultRange results) {
  FailureOr<Block *> body = singleBlock(region);
  if (failed(body))
    return failure();
  if (!*body)
    return success();
  if (failed(runBlock(**body)))
    return failure();
  Operation *terminator = (*body)->getTerminator();
  SmallVector<Carried> carried;
  if (failed(collect(terminator, terminator->getOperands(), carried)))
    return failure();
  bind(results, carried);
  return success();
}
