//===- VerifyGPUStreams.cpp - Check async gpu IR as gpu-to-llvm runs it ---===//
//
// --vyre-verify-gpu-streams: a referee for lowered host code in the upstream
// gpu dialect, whoever produced it. It runs each host function on a model of
// what upstream gpu-to-llvm makes of its tokens (streams, events, blocking
// waits), unfolded into traces (scf.for and scf.while twice or not at all,
// every combination of scf.if and scf.index_switch branches; tokens and
// memrefs followed through iter_args, yields and results), builds
// happens-before over each trace and reports races, unfinished work, misuse
// of allocations, and streams and events used after they are destroyed,
// destroyed twice or leaked.
//
// It shares no code with vyre's own analyses: kernel argument accesses are
// read off the gpu.func bodies here.
//
// The pieces, in GPUStreams/:
//  - GPUWork: which ops hold gpu work, which tokens gpu-to-llvm traces to a
//    stream;
//  - KernelSummaries: what each kernel does with its arguments;
//  - Trace: streams, events and the steps of one trace;
//  - TraceChoices: the combinations of branches and trip counts;
//  - TraceInterpreter (and UnfoldRegions): runs a function into a trace;
//  - CheckTrace and Reporter: what is wrong in a trace, reported once.
//
//===----------------------------------------------------------------------===//

#include "vyre/Verification/Passes.h"

#include "GPUStreams/CheckTrace.h"
#include "GPUStreams/GPUWork.h"
#include "GPUStreams/TraceInterpreter.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/TokenContract.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Support/PassDiagnostics.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_VERIFYGPUSTREAMSPASS
#include "vyre/Verification/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

/// gpu-to-llvm records an event for each traceable join dependency right
/// after the op that defined it.
static EventsAfter findEventsAfter(FunctionOpInterface function,
                                   const TraceableStreams &traceable) {
  EventsAfter eventsAfter;
  function->walk([&](gpu::WaitOp wait) {
    if (!wait.getAsyncToken())
      return;
    for (auto [index, dependency] :
         llvm::enumerate(wait.getAsyncDependencies()))
      if (traceable.contains(dependency))
        eventsAfter[dependency.getDefiningOp()].push_back(
            {wait.getOperation(), static_cast<unsigned>(index)});
  });
  return eventsAfter;
}

/// Builds the trace of the current choices and checks it, reporting to
/// `reporter`; with `runRepeatsOnce`, loop runs that repeat an earlier one
/// run once (RepeatedLoops.cpp). `shortened` says whether one did, and
/// `chained` whether the iterations of the runs in full were chained as that
/// needs (if not, the trace is not checked).
/// Failure where the model does not cover the function (an error emitted).
static LogicalResult
buildAndCheckTrace(FunctionOpInterface function, KernelSummaries &kernels,
                   const TraceableStreams &traceable,
                   const EventsAfter &eventsAfter, TraceChoices &choices,
                   Reporter &reporter, unsigned maxTraceNodes,
                   bool runRepeatsOnce, bool &shortened, bool &chained) {
  Block &entry = function.getFunctionBody().front();
  choices.startTrace();
  Trace trace(eventsAfter);
  TraceInterpreter interpreter(kernels, traceable, choices, trace, reporter,
                               maxTraceNodes, runRepeatsOnce);
  shortened = false;
  chained = true;
  if (failed(interpreter.runBlock(entry)))
    return failure();
  FailureOr<unsigned> returnNode =
      interpreter.runReturn(entry.getTerminator());
  if (failed(returnNode))
    return failure();
  HappensBefore before(trace.getNodes());
  shortened = interpreter.ranRepeatsOnce();
  // A shortened trace whose iterations are not chained as the argument
  // needs is not checked: it is built again in full.
  chained = !shortened || llvm::all_of(interpreter.getIterationChains(),
                                       [&](std::pair<unsigned, unsigned> c) {
                                         return before(c.first, c.second);
                                       });
  if (chained)
    checkTrace(function, trace, before, *returnNode, reporter);
  return success();
}

/// Unfolds `function` into at most `maxTraces` traces, each of at most
/// `maxTraceNodes` nodes, and checks each; with `repeatsOnce`, a loop run
/// that repeats an earlier one runs once where that is sound.
/// Failure when it reported anything.
static LogicalResult checkFunction(FunctionOpInterface function,
                                   KernelSummaries &kernels,
                                   unsigned maxTraces, unsigned maxTraceNodes,
                                   bool repeatsOnce) {
  for (BlockArgument argument :
       function.getFunctionBody().front().getArguments())
    if (isa<gpu::AsyncTokenType>(argument.getType()))
      return vyre::emitErrorAt(function) <<
          "takes a !gpu.async.token argument, whose stream "
          "--vyre-verify-gpu-streams cannot follow";

  TraceableStreams traceable(function);
  EventsAfter eventsAfter = findEventsAfter(function, traceable);
  TraceChoices choices;
  Reporter reporter;
  unsigned traces = 0;
  do {
    if (++traces > maxTraces)
      return vyre::emitErrorAt(function) << "has more than "
             << maxTraces
             << " combinations of scf.if branches and loop trip counts, "
                "more than --vyre-verify-gpu-streams checks: raise its "
                "max-traces to check it (each combination is one trace)";
    // A trace whose loop runs were shortened misses no problem, but may
    // miss orderings that a second iteration makes (an event waited on
    // before the iteration records it again), and so report what is not
    // there: what it reports is held, and where it reports anything new,
    // the trace is built again in full, with the same choices (shortened
    // runs make none of their own), and that report stands where it could
    // be built.
    reporter.hold();
    bool shortened = false, chained = true;
    LogicalResult result = buildAndCheckTrace(
        function, kernels, traceable, eventsAfter, choices, reporter,
        maxTraceNodes, repeatsOnce, shortened, chained);
    if (succeeded(result) && shortened &&
        (!chained || reporter.holdsNewProblems())) {
      // Where the trace in full passes max-trace-nodes, a chained shortened
      // trace's report stands instead: it misses nothing.
      bool shortenedReportStands = chained;
      std::vector<Reporter::Held> shortenedProblems = reporter.takeHeld();
      SmallVector<Diagnostic> inFull;
      {
        ScopedDiagnosticHandler capture(
            function->getContext(), [&](Diagnostic &diagnostic) {
              inFull.push_back(std::move(diagnostic));
              return success();
            });
        result = buildAndCheckTrace(function, kernels, traceable,
                                    eventsAfter, choices, reporter,
                                    maxTraceNodes, /*runRepeatsOnce=*/false,
                                    shortened, chained);
      }
      if (failed(result) && shortenedReportStands) {
        reporter.discard();
        reporter.hold();
        reporter.restoreHeld(std::move(shortenedProblems));
        result = success();
      } else {
        for (Diagnostic &diagnostic : inFull)
          function->getContext()->getDiagEngine().emit(std::move(diagnostic));
      }
    }
    reporter.release();
    if (failed(result))
      return failure();
  } while (choices.nextTrace());
  return success(!reporter.reportedAny());
}

namespace {

struct VerifyGPUStreamsPass
    : public vyre::impl::VerifyGPUStreamsPassBase<VerifyGPUStreamsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Host functions, in order; kernels live in gpu.module ops, which the
    // walk skips (in pre-order: after the fact, a skip skips nothing).
    SmallVector<FunctionOpInterface> functions;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto function = dyn_cast<FunctionOpInterface>(op))
        if (!function.isExternal())
          functions.push_back(function);
      return WalkResult::advance();
    });

    // Waits that take a token for its stream: right as gpu-to-llvm runs
    // them, wrong once canonicalize takes the token for its op.
    vyre::findWaitsOnOlderTokens(
        getOperation(), [](Operation *wait, Value, Operation *later) {
          wait->emitWarning(vyre::describeWaitOnOlderToken(later))
                  .attachNote(later->getLoc())
              << "the work enqueued after the token";
        });
    KernelSummaries kernels;
    bool clean = true;
    for (FunctionOpInterface function : functions) {
      if (!holdsGPUWork(function))
        continue;
      // What vyre did not import, it did not schedule: the function is as
      // its author, or upstream's --gpu-async-region, wrote it.
      if (function->hasAttr(vyre::VyreDialect::getNotImportedAttrName()))
        continue;
      Region &body = function.getFunctionBody();
      if (!body.hasOneBlock()) {
        vyre::emitErrorAt(function) <<
            "holds gpu work in a body of several blocks, which "
            "--vyre-verify-gpu-streams cannot unfold";
        clean = false;
        continue;
      }
      if (failed(vyre::diagnoseHostAccessToDeviceMemory(function)) ||
          failed(checkFunction(function, kernels, maxTraces, maxTraceNodes,
                            repeatsOnce)))
        clean = false;
    }
    if (!clean)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
