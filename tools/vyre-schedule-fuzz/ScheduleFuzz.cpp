//===- ScheduleFuzz.cpp - Random programs through both referees -*- C++ -*-===//
//
// A property test: generates seeded random vyre programs (H2D and D2H copies,
// dispatches of kernels with varied read/write sets, shared host buffers,
// buffer reuse, aliasing views and arguments, dead copies, host loads and
// stores, stores through pointers, opaque calls, host calls filling a
// loop's staging buffer, nested scf.for and scf.if,
// 2-D tile copies both ways, programs without copies) and checks each at
// every level it is run at:
//
//  1. the serial build: --convert-vyre-to-gpu, canonicalize and cse on the
//     input, then --vyre-verify-gpu-streams (the input's sequential meaning
//     survives the lowering alone);
//  2. the overlapped build: the passes of --vyre-to-gpu-pipeline with
//     verify=true: --overlap-copies, --vyre-verify-schedule, the lowering,
//     canonicalize, cse, and --vyre-verify-gpu-streams;
//  3. the imported build: the same program written as upstream gpu host code
//     (gpu.alloc, gpu.memcpy, gpu.launch_func), imported whole by
//     --convert-gpu-host-to-vyre, then the overlapped build's passes with
//     both referees;
//  4. the pipelined meaning: the vyre form before and after
//     --vyre-pipeline-loops, run on symbolic data with several values of its
//     index and i1 arguments, must leave the same digest;
//  5. values: each lowered build runs on symbolic data (ValueInterpreter.h)
//     with trip counts 0 to 5, both branch conditions, arguments apart and
//     aliased, under eager, lazy and random interleavings of its streams,
//     and must compute what its input computes (--referees 0 runs this check
//     alone);
//  6. the simulator's bound: the input, the program after
//     --vyre-pipeline-loops and its schedule after --overlap-copies, each
//     simulated with and without the runtime's overheads, take no less than
//     the bound the simulator gives for them (a bound above a makespan would
//     make every figure measured against it wrong);
//  7. with --llvm-every N, every Nth program's three builds also go through
//     upstream's --gpu-lower-to-nvvm-pipeline (PTX, no ptxas), and the LLVM
//     dialect's stream and event creates and destroys must pair on every path.
//
// The gpu-level referee checks up to 4096 combinations of branches and loop
// trip counts per function, the vyre-level one 2^14 combinations of
// branches; a program with more is counted as skipped. The
// overlapped and imported builds run with one or two side streams, D2H
// copies on the main stream or their own, copies left on the main stream
// asynchronous there or not (async-in-place), pipeline depths 2 to 4 with the
// default buffer budget or a small one, and the cost model off or on (it
// moves some of the programs' copies of 64 bytes, those with a kernel beside
// them and no join to pay for, and leaves the others). A lowering refusal (a
// kernel without a body) ends a program's checks; any other diagnostic fails
// the run and prints the seed, a command that reproduces it, and the program.
//
// Usage: vyre-schedule-fuzz [--count N] [--seed S] [--llvm-every N]
//                           [--referees 0|1] [--print SEED] [--print-gpu SEED]
//
//===----------------------------------------------------------------------===//

#include "ProgramGenerator.h"
#include "TestStreamBalance.h"
#include "ValueInterpreter.h"

#include "vyre/Analysis/Passes.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Conversion/Passes.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/InitVyre.h"
#include "vyre/Pipelines/Pipelines.h"
#include "vyre/Simulation/SimulateFunction.h"
#include "vyre/Transforms/Passes.h"
#include "vyre/Verification/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <string>

using namespace mlir;
using mlir::vyre::test::ProgramGenerator;

namespace {

/// The most traces the gpu-level referee checks per function.
constexpr unsigned kMaxTraces = 4096;

/// How a program's overlapped and imported builds are configured.
struct BuildOptions {
  unsigned sideStreams = 1;
  bool asyncD2H = false;
  bool costModel = false;
  unsigned pipelineDepth = 2;
  /// Bytes of rotating buffers --vyre-pipeline-loops may add; 0: the pass's
  /// default.
  uint64_t bufferBudget = 0;
  /// Whether the referees and the vyre-level check of the pipelined meaning
  /// run; without them, only the values of what runs are checked (to show
  /// what that check catches on its own).
  bool referees = true;
  /// --overlap-copies' async-in-place.
  bool asyncInPlace = true;
  /// Whether the overlapped build keeps every run-time versioning
  /// (--vyre-choose-versions only-if-faster=false), so that both versions
  /// run, or only those that pay.
  bool keepAllVersions = false;
};

/// What happened to one program: empty if it passed; `skipped` if it has
/// more traces than the referee checks.
struct Outcome {
  std::string failure;
  bool skipped = false;
  /// How many builds were lowered all the way (not refused, not skipped),
  /// and how many of those went on through upstream's LLVM lowering.
  unsigned lowered = 0;
  unsigned throughLLVM = 0;
  /// Whether --vyre-pipeline-loops rewrote a loop of the program, and the
  /// rewritten function was run on symbolic data against the input.
  bool meaningChecked = false;
  /// How many lowered builds were run on symbolic data and computed what
  /// their input computed, under every interleaving.
  unsigned valuesChecked = 0;
  /// How many lowered builds kept a function versioned for aliasing
  /// (--vyre-version-aliasing): its dispatcher ran with arguments apart and
  /// aliased.
  unsigned versioned = 0;
  /// How many functions were simulated against their bound.
  unsigned boundsChecked = 0;
};

/// The gpu-level referee, checking up to kMaxTraces traces.
std::unique_ptr<Pass> createGPUReferee() {
  vyre::VerifyGPUStreamsPassOptions options;
  options.maxTraces = kMaxTraces;
  return vyre::createVerifyGPUStreamsPass(options);
}

/// Whether `log` reports a program with more traces than a referee checks
/// (the branches --vyre-pipeline-loops writes out, one per iteration it
/// unrolls, on conditions computed from the induction variable).
bool isTooManyTraces(const std::string &log) {
  return log.find("combinations of scf.if branches and loop trip counts") !=
             std::string::npos ||
         log.find("scf.if ops on distinct conditions") != std::string::npos;
}

/// Collects the error diagnostics of one step.
class ErrorLog {
public:
  explicit ErrorLog(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() == DiagnosticSeverity::Error) {
            llvm::raw_string_ostream os(text);
            os << diagnostic.getLocation() << ": " << diagnostic.str() << "\n";
          }
          return success();
        }) {}

  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

/// Takes `module`, a lowered gpu-dialect program, through upstream's pipeline
/// to the LLVM dialect and checks that streams and events pair on every path.
std::string checkUpstreamLowering(MLIRContext &context, ModuleOp module) {
  ErrorLog log(context);
  PassManager pm(&context);
  gpu::GPUToNVVMPipelineOptions options;
  options.cubinChip = "sm_90";
  options.cubinFeatures = "+ptx80";
  options.cubinFormat = "isa";
  gpu::buildLowerToNVVMPassPipeline(pm, options);
  if (failed(pm.run(module)))
    return "upstream --gpu-lower-to-nvvm-pipeline failed:\n" + log.text;
  if (failed(vyre::test::checkStreamBalance(module)))
    return "streams or events unpaired in the LLVM dialect:\n" + log.text;
  return "";
}

//===----------------------------------------------------------------------===//
// Values: what a build computes against what its input computes
//===----------------------------------------------------------------------===//

/// One choice of a function's inputs: every index argument (a trip count)
/// 0 to 5, every i1 argument false and true, memref arguments apart and
/// aliased where they may alias.
struct InputChoice {
  int64_t index;
  bool condition;
  bool aliasArguments;
};

SmallVector<InputChoice> allInputChoices() {
  SmallVector<InputChoice> choices;
  for (bool alias : {false, true})
    for (int64_t index = 0; index <= 5; ++index)
      for (bool condition : {false, true})
        choices.push_back({index, condition, alias});
  return choices;
}

std::string describe(const InputChoice &choice) {
  return "index=" + std::to_string(choice.index) +
         " condition=" + (choice.condition ? "true" : "false") +
         " alias-arguments=" + (choice.aliasArguments ? "true" : "false");
}

/// The effects callees declare in `input`, which the lowering drops.
std::function<std::optional<vyre::FunctionEffects>(StringRef)>
declaredEffects(ModuleOp input) {
  llvm::StringMap<vyre::FunctionEffects> effects;
  for (auto function : input.getOps<func::FuncOp>())
    if (std::optional<vyre::FunctionEffects> declared =
            vyre::getDeclaredEffects(function))
      effects[function.getName()] = *declared;
  return [effects](StringRef callee) -> std::optional<vyre::FunctionEffects> {
    auto it = effects.find(callee);
    if (it == effects.end())
      return std::nullopt;
    return it->second;
  };
}

/// What each function of the input computes, for each input choice: the
/// digest, or none where the interpreter does not model the function or
/// the input itself faults.
using Meanings = llvm::StringMap<SmallVector<std::optional<uint64_t>>>;

Meanings computeMeanings(ModuleOp input) {
  Meanings meanings;
  SmallVector<InputChoice> choices = allInputChoices();
  for (auto function : input.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    auto &digests = meanings[function.getName()];
    for (const InputChoice &choice : choices) {
      vyre::test::ValueRunOptions options;
      options.index = choice.index;
      options.condition = choice.condition;
      options.aliasArguments = choice.aliasArguments;
      vyre::test::ValueRun run =
          vyre::test::runOnSymbolicData(function, options);
      digests.push_back(run.status == vyre::test::ValueRun::Status::Returned
                            ? std::optional<uint64_t>(run.digest)
                            : std::nullopt);
    }
  }
  return meanings;
}

/// The interleavings every build runs under: eager, lazy, and two random
/// ones.
SmallVector<std::pair<vyre::test::Interleaving, uint64_t>> allInterleavings() {
  return {{vyre::test::Interleaving::Eager, 0},
          {vyre::test::Interleaving::Lazy, 0},
          {vyre::test::Interleaving::Random, 1},
          {vyre::test::Interleaving::Random, 2}};
}

/// Runs each function of `built` on symbolic data under every input choice
/// and interleaving; each run must return what the input's function
/// computes. Empty if so, else what differs.
std::string checkValues(ModuleOp built, const Meanings &meanings,
                        ModuleOp input, bool &checked) {
  SmallVector<InputChoice> choices = allInputChoices();
  auto effects = declaredEffects(input);
  for (auto function : built.getOps<func::FuncOp>()) {
    auto meaning = meanings.find(function.getName());
    if (function.isExternal() || meaning == meanings.end())
      continue;
    for (auto [choice, expected] : llvm::zip(choices, meaning->second)) {
      if (!expected)
        continue;
      for (auto [interleaving, seed] : allInterleavings()) {
        vyre::test::ValueRunOptions options;
        options.index = choice.index;
        options.condition = choice.condition;
        options.aliasArguments = choice.aliasArguments;
        options.interleaving = interleaving;
        options.seed = seed;
        options.calleeEffects = effects;
        vyre::test::ValueRun run =
            vyre::test::runOnSymbolicData(function, options);
        std::string where =
            "@" + function.getName().str() + " with " + describe(choice) +
            " interleaving=" +
            vyre::test::stringifyInterleaving(interleaving).str() +
            " seed=" + std::to_string(seed);
        if (run.status == vyre::test::ValueRun::Status::Unmodelled)
          return "the value interpreter does not model the lowered " + where +
                 ": " + run.message;
        if (run.status == vyre::test::ValueRun::Status::Fault)
          return "the lowered " + where + " faults: " + run.message;
        if (run.digest != *expected)
          return "the lowered " + where +
                 " computes other values than its input (reproduce: compare "
                 "the remarks of --test-vyre-value-digest=\"" +
                 describe(choice) + " interleaving=" +
                 vyre::test::stringifyInterleaving(interleaving).str() +
                 " seed=" + std::to_string(seed) +
                 "\" on the input and on the build)";
        checked = true;
      }
    }
  }
  return "";
}

/// Runs `pm` on a copy of `input`, then, if asked, upstream's lowering.
/// `reference` is the program whose meaning the build must keep.
Outcome runBuild(MLIRContext &context, ModuleOp input, PassManager &pm,
                 StringRef name, bool toLLVM, ModuleOp reference) {
  OwningOpRef<ModuleOp> module = input.clone();
  ErrorLog log(context);
  if (failed(pm.run(*module))) {
    if (log.text.find("cannot be lowered") != std::string::npos)
      return {};
    if (isTooManyTraces(log.text))
      return {"", /*skipped=*/true};
    return {("the " + name + " failed:\n").str() + log.text};
  }
  Outcome outcome;
  outcome.lowered = 1;
  bool checked = false;
  std::string values =
      checkValues(*module, computeMeanings(reference), reference, checked);
  if (!values.empty())
    return {("the " + name + ": ").str() + values};
  outcome.valuesChecked = checked;
  for (auto function : module->getOps<func::FuncOp>())
    if (function.isPrivate() && function.getName().ends_with("_disjoint")) {
      outcome.versioned = 1;
      break;
    }
  if (toLLVM) {
    outcome.failure = checkUpstreamLowering(context, *module);
    outcome.throughLLVM = 1;
  }
  return outcome;
}

/// The options of --vyre-pipeline-loops that `build` runs with.
vyre::PipelineLoopsPassOptions pipelineOptions(const BuildOptions &build) {
  vyre::PipelineLoopsPassOptions pipelining;
  pipelining.pipelineDepth = build.pipelineDepth;
  if (build.bufferBudget)
    pipelining.bufferBudget = build.bufferBudget;
  return pipelining;
}

/// The options of --overlap-copies that `build` runs with.
vyre::OverlapCopiesPassOptions overlapOptions(const BuildOptions &build) {
  vyre::OverlapCopiesPassOptions overlap;
  overlap.sideStreams = build.sideStreams;
  overlap.asyncD2H = build.asyncD2H;
  // As many D2H streams as side streams: one or two of each.
  overlap.d2hStreams = build.sideStreams;
  overlap.costModel = build.costModel;
  overlap.asyncInPlace = build.asyncInPlace;
  return overlap;
}

/// Adds the kernels' and the functions' summaries to `module`; what failed,
/// or "".
std::string addSummaries(MLIRContext &context, ModuleOp module) {
  ErrorLog log(context);
  PassManager summaries(&context);
  summaries.addPass(vyre::createKernelAccessPass());
  summaries.addPass(vyre::createFunctionEffectsPass());
  if (failed(summaries.run(module)))
    return "the kernel and function summaries failed:\n" + log.text;
  return "";
}

/// The serial build: the lowering alone keeps the input's sequential
/// meaning.
Outcome checkSerial(MLIRContext &context, ModuleOp input,
                    const BuildOptions &build, bool toLLVM) {
  PassManager pm(&context);
  pm.addPass(vyre::createConvertVyreToGPUPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (build.referees)
    pm.addPass(createGPUReferee());
  return runBuild(context, input, pm,
                  "serial build (--convert-vyre-to-gpu --canonicalize --cse "
                  "--vyre-verify-gpu-streams)",
                  toLLVM, input);
}

/// The overlapped build: the passes of --vyre-to-gpu-pipeline, with the
/// schedule's referee after --overlap-copies and the gpu dialect's at the end.
Outcome checkOverlapped(MLIRContext &context, ModuleOp input,
                        const BuildOptions &build, bool toLLVM) {
  PassManager pm(&context);
  pm.addPass(vyre::createDeduceNoAliasPass());
  pm.addPass(vyre::createVersionAliasingPass());
  pm.addPass(vyre::createKernelAccessPass());
  pm.addPass(vyre::createEstimateKernelCostsPass());
  pm.addPass(vyre::createFunctionEffectsPass());
  pm.nest<func::FuncOp>().addPass(
      vyre::createPipelineLoopsPass(pipelineOptions(build)));
  pm.nest<func::FuncOp>().addPass(
      vyre::createOverlapCopiesPass(overlapOptions(build)));
  vyre::ChooseVersionsPassOptions choice;
  choice.onlyIfFaster = !build.keepAllVersions;
  pm.addPass(vyre::createChooseVersionsPass(choice));
  if (build.referees)
    pm.nest<func::FuncOp>().addPass(vyre::createVerifySchedulePass());
  vyre::ConvertVyreToGPUPassOptions lowering;
  lowering.keepEffects = true;
  pm.addPass(vyre::createConvertVyreToGPUPass(lowering));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (build.referees)
    pm.addPass(createGPUReferee());
  pm.addPass(vyre::createConvertVyreToGPUPass());
  return runBuild(context, input, pm,
                  "overlapped build (--vyre-to-gpu-pipeline=verify=true)",
                  toLLVM, input);
}

/// The imported build: the same program written as upstream gpu host code,
/// imported whole by --convert-gpu-host-to-vyre, then the overlapped build's
/// passes with both referees (--vyre-gpu-async-pipeline=verify=true).
Outcome checkImported(MLIRContext &context, ModuleOp input,
                      const BuildOptions &build, bool toLLVM) {
  OwningOpRef<ModuleOp> module = input.clone();
  ErrorLog log(context);
  PassManager import(&context);
  import.nest<func::FuncOp>().addPass(vyre::createConvertGPUHostToVyrePass());
  if (failed(import.run(*module)))
    return {"--convert-gpu-host-to-vyre failed:\n" + log.text};
  WalkResult notImported = module->walk([](func::FuncOp function) {
    return function->hasAttr(vyre::VyreDialect::getNotImportedAttrName())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (notImported.wasInterrupted())
    return {"--convert-gpu-host-to-vyre left a generated function as "
            "written"};
  PassManager pm(&context);
  vyre::VyreToGPUPipelineOptions options;
  options.sideStreams = build.sideStreams;
  options.asyncD2H = build.asyncD2H;
  options.d2hStreams = build.sideStreams;
  options.costModel = build.costModel;
  options.asyncInPlace = build.asyncInPlace;
  options.pipelineDepth = build.pipelineDepth;
  if (build.bufferBudget)
    options.bufferBudget = build.bufferBudget;
  options.verify = build.referees;
  options.maxTraces = kMaxTraces;
  vyre::buildVyreToGPUPipeline(pm, options);
  return runBuild(context, *module, pm,
                  "imported build (--vyre-gpu-async-pipeline=verify=true)",
                  toLLVM, input);
}

/// What the command line asks for.
struct Options {
  uint64_t count = 200, seed = 1, llvmEvery = 0;
  bool referees = true, help = false;
  std::optional<uint64_t> printSeed, printGPUSeed;
};

constexpr const char *kUsage = R"(usage: vyre-schedule-fuzz [FLAG VALUE]...
Generates seeded random vyre programs and checks each at every level it runs
at: both referees, the lowered program's values under three interleavings of
its streams, and (every Nth) upstream's lowering to LLVM. Prints one line per
failing seed, with the command that reproduces it, then the totals; exits 1
if any failed.
  --count N        programs to check (200)
  --seed S         the first program's seed; the others follow it (1)
  --llvm-every N   every Nth program also through upstream's LLVM lowering
                   (0: none)
  --referees 0|1   0: check values only, without the referees (1)
  --print S        print the vyre program of seed S, and stop
  --print-gpu S    print seed S as upstream gpu host code, and stop
  --help           print this, and stop
)";

/// Reads the flags into `options`; false, after a message, on a bad one.
bool parseOptions(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-help" || flag == "-h") {
      options.help = true;
      return true;
    }
    if (i + 1 >= argc) {
      llvm::errs() << "vyre-schedule-fuzz: missing value after " << flag
                   << " (--help lists the flags)\n";
      return false;
    }
    std::string text = argv[++i];
    uint64_t value = 0;
    if (StringRef(text).getAsInteger(10, value)) {
      llvm::errs() << "vyre-schedule-fuzz: " << flag << " takes a decimal "
                   << "number, not '" << text << "'\n";
      return false;
    }
    if (flag == "--count")
      options.count = value;
    else if (flag == "--seed")
      options.seed = value;
    else if (flag == "--llvm-every")
      options.llvmEvery = value;
    else if (flag == "--referees")
      options.referees = value != 0;
    else if (flag == "--print")
      options.printSeed = value;
    else if (flag == "--print-gpu")
      options.printGPUSeed = value;
    else {
      llvm::errs() << "vyre-schedule-fuzz: unknown flag " << flag
                   << " (--help lists the flags)\n";
      return false;
    }
  }
  return true;
}

/// Parses `program`, or reports why it does not parse.
OwningOpRef<ModuleOp> parseProgram(MLIRContext &context,
                                   const std::string &program,
                                   Outcome &outcome) {
  ErrorLog log(context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(program, &context, "program.mlir");
  if (!module)
    outcome.failure =
        "the generated program does not parse or verify:\n" + log.text;
  return module;
}

/// Checks that --vyre-pipeline-loops keeps what the program computes: the
/// input and its pipelined form, both sequential, are run on symbolic data
/// (ValueInterpreter.h) under every input choice, and must leave the same
/// digest. A function the interpreter does not model is not compared. The
/// lowered builds are compared with the input too; this check says which
/// pass changed the values.
Outcome checkPipelinedMeaning(MLIRContext &context, ModuleOp input,
                              const BuildOptions &build) {
  Outcome outcome;
  OwningOpRef<ModuleOp> original = input.clone();
  std::string failure = addSummaries(context, *original);
  if (!failure.empty())
    return {failure};
  ErrorLog log(context);
  OwningOpRef<ModuleOp> pipelined = original->clone();
  PassManager pipeline(&context);
  pipeline.nest<func::FuncOp>().addPass(
      vyre::createPipelineLoopsPass(pipelineOptions(build)));
  if (failed(pipeline.run(*pipelined)))
    return {"--vyre-pipeline-loops failed:\n" + log.text};
  // Only functions the pass rewrote: what it emits carries tagged locations.
  bool changed = pipelined
                     ->walk([](Operation *op) {
                       return vyre::getPipelinedPosition(op->getLoc())
                                  ? WalkResult::interrupt()
                                  : WalkResult::advance();
                     })
                     .wasInterrupted();
  if (!changed)
    return outcome;
  Meanings before = computeMeanings(*original);
  Meanings after = computeMeanings(*pipelined);
  SmallVector<InputChoice> choices = allInputChoices();
  for (auto &entry : before)
    for (auto [choice, digest, rewritten] :
         llvm::zip(choices, entry.second, after[entry.first()])) {
      if (!digest)
        continue;
      if (digest != rewritten)
        return {"--vyre-pipeline-loops=\"pipeline-depth=" +
                std::to_string(build.pipelineDepth) + "\" changed what @" +
                entry.first().str() + " computes with " + describe(choice) +
                " (reproduce: compare the remarks of vyre-opt "
                "--vyre-kernel-access --vyre-function-effects "
                "[--vyre-pipeline-loops] --test-vyre-value-digest=\"" +
                describe(choice) + "\")"};
      outcome.meaningChecked = true;
    }
  return outcome;
}

/// Simulates each function of `module` with and without the runtime's
/// overheads: each makespan must be at least its bound. A function the
/// simulator cannot run is not checked.
std::string checkBounds(ModuleOp module, StringRef stage, StringRef passes,
                        unsigned &checked) {
  vyre::EngineModel withOverheads;
  withOverheads.maxOps = 200000;
  vyre::EngineModel withoutOverheads = withOverheads;
  withoutOverheads.launchUs = withoutOverheads.eventUs =
      withoutOverheads.streamCreateUs = withoutOverheads.hostSyncUs =
          withoutOverheads.allocFreeUs = 0;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    vyre::SlotAccessAnalysis slots(function);
    for (bool overheads : {false, true}) {
      FailureOr<vyre::SimulatedRun> run = vyre::simulateFunction(
          function, slots, overheads ? withOverheads : withoutOverheads);
      if (failed(run))
        continue;
      ++checked;
      double slack = 1e-9 * std::max(1.0, run->boundUs);
      if (run->makespanUs + slack >= run->boundUs)
        continue;
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "the simulator's bound of @" << function.getName() << " " << stage
         << " is " << llvm::format("%.3f", run->boundUs)
         << " us, above its makespan " << llvm::format("%.3f", run->makespanUs)
         << " us (reproduce: vyre-opt --vyre-kernel-access "
            "--vyre-function-effects "
         << passes
         << (overheads ? "--vyre-simulate)"
                       : "--vyre-simulate=\"launch-us=0 event-us=0 "
                         "host-sync-us=0 alloc-free-us=0\")");
      return text;
    }
  }
  return "";
}

/// The simulator's bound holds on the input, after --vyre-pipeline-loops,
/// and after --overlap-copies.
Outcome checkSimulatedBounds(MLIRContext &context, ModuleOp input,
                             const BuildOptions &build) {
  Outcome outcome;
  OwningOpRef<ModuleOp> module = input.clone();
  std::string failure = addSummaries(context, *module);
  if (!failure.empty())
    return {failure};
  failure = checkBounds(*module, "as written", "", outcome.boundsChecked);
  if (!failure.empty())
    return {failure};
  ErrorLog log(context);
  std::string depth =
      "--vyre-pipeline-loops=\"pipeline-depth=" +
      std::to_string(build.pipelineDepth) +
      (build.bufferBudget
           ? " buffer-budget=" + std::to_string(build.bufferBudget)
           : std::string()) +
      "\" ";
  PassManager pipeline(&context);
  pipeline.nest<func::FuncOp>().addPass(
      vyre::createPipelineLoopsPass(pipelineOptions(build)));
  if (failed(pipeline.run(*module)))
    return {"--vyre-pipeline-loops failed:\n" + log.text};
  failure = checkBounds(*module, "after --vyre-pipeline-loops", depth,
                        outcome.boundsChecked);
  if (!failure.empty())
    return {failure};
  PassManager schedule(&context);
  schedule.nest<func::FuncOp>().addPass(
      vyre::createOverlapCopiesPass(overlapOptions(build)));
  if (failed(schedule.run(*module)))
    return {"--overlap-copies failed:\n" + log.text};
  failure = checkBounds(
      *module, "after --overlap-copies",
      depth + "--overlap-copies=\"side-streams=" +
          std::to_string(build.sideStreams) +
          " d2h-streams=" + std::to_string(build.sideStreams) +
          " async-d2h=" + (build.asyncD2H ? "true" : "false") +
          " cost-model=" + (build.costModel ? "true" : "false") +
          " async-in-place=" + (build.asyncInPlace ? "true" : "false") + "\" ",
      outcome.boundsChecked);
  if (!failure.empty())
    return {failure};
  return outcome;
}

/// Adds `build`'s result to `outcome`; false if it failed.
bool merge(Outcome &outcome, const Outcome &build) {
  outcome.failure = build.failure;
  outcome.skipped |= build.skipped;
  outcome.lowered += build.lowered;
  outcome.throughLLVM += build.throughLLVM;
  outcome.meaningChecked |= build.meaningChecked;
  outcome.valuesChecked += build.valuesChecked;
  outcome.versioned += build.versioned;
  outcome.boundsChecked += build.boundsChecked;
  return outcome.failure.empty();
}

/// Checks the serial and overlapped builds of the vyre form of a program,
/// then the imported build of its upstream gpu form.
Outcome checkProgram(MLIRContext &context, const std::string &program,
                     const std::string &gpuProgram, const BuildOptions &build,
                     bool toLLVM) {
  Outcome outcome;
  OwningOpRef<ModuleOp> module = parseProgram(context, program, outcome);
  if (!module ||
      (build.referees &&
       !merge(outcome, checkPipelinedMeaning(context, *module, build))) ||
      !merge(outcome, checkSimulatedBounds(context, *module, build)) ||
      !merge(outcome, checkSerial(context, *module, build, toLLVM)) ||
      !merge(outcome, checkOverlapped(context, *module, build, toLLVM)))
    return outcome;
  OwningOpRef<ModuleOp> gpuModule = parseProgram(context, gpuProgram, outcome);
  if (gpuModule)
    merge(outcome, checkImported(context, *gpuModule, build, toLLVM));
  return outcome;
}

/// What the programs of a run came to.
struct Totals {
  uint64_t throughLLVM = 0, skipped = 0, lowered = 0, meaningChecked = 0,
           valuesChecked = 0, versioned = 0, boundsChecked = 0;

  void add(const Outcome &outcome) {
    skipped += outcome.skipped;
    lowered += outcome.lowered;
    throughLLVM += outcome.throughLLVM;
    meaningChecked += outcome.meaningChecked;
    valuesChecked += outcome.valuesChecked;
    versioned += outcome.versioned;
    boundsChecked += outcome.boundsChecked;
  }
};

/// Prints the seed that fails, a command that reproduces it, why, and the
/// program.
void reportFailure(uint64_t programSeed, const BuildOptions &build,
                   const std::string &failure,
                   const std::string &program,
                   const std::string &gpuProgram) {
  bool imported = failure.find("imported build") != std::string::npos ||
                  failure.find("convert-gpu-host-to-vyre") != std::string::npos;
  llvm::errs() << "vyre-schedule-fuzz: seed " << programSeed
               << " fails (reproduce: vyre-schedule-fuzz "
               << (imported ? "--print-gpu " : "--print ") << programSeed
               << " | vyre-opt "
               << (imported ? "--vyre-gpu-async-pipeline"
                            : "--vyre-to-gpu-pipeline")
               << "=\"side-streams=" << build.sideStreams
               << " d2h-streams=" << build.sideStreams
               << " async-d2h=" << (build.asyncD2H ? "true" : "false")
               << " cost-model=" << (build.costModel ? "true" : "false")
               << " async-in-place="
               << (build.asyncInPlace ? "true" : "false")
               << " pipeline-depth=" << build.pipelineDepth
               << (build.bufferBudget
                       ? " buffer-budget=" + std::to_string(build.bufferBudget)
                       : std::string())
               << " verify=true\")\n"
               << (build.keepAllVersions && !imported
                       ? "the overlapped build keeps every run-time "
                         "versioning (--vyre-choose-versions="
                         "only-if-faster=false)\n"
                       : "")
               << failure << "\n"
               << (imported ? gpuProgram : program);
}

void printSummary(const Options &options, double seconds,
                  const Totals &totals) {
  llvm::outs() << "schedule-fuzz: seeds " << options.seed << ".."
               << options.seed + options.count - 1 << " in "
               << llvm::format("%.1f", seconds) << " s: " << totals.lowered
               << " of " << 3 * options.count
               << " builds (serial, overlapped, and imported from upstream "
                  "gpu code) lowered and checked at the gpu level, "
               << totals.skipped << " programs skipped (more than "
               << kMaxTraces << " traces); " << totals.throughLLVM
               << " builds also through upstream's LLVM lowering; "
               << totals.meaningChecked
               << " programs whose loops --vyre-pipeline-loops rewrote run "
                  "on symbolic data before and after; "
               << totals.valuesChecked
               << " lowered builds run on symbolic data under eager, lazy and "
                  "random interleavings, computing what their input "
                  "computes; "
               << totals.versioned
               << " builds with a function versioned for aliasing, run with "
                  "arguments apart and aliased; "
               << totals.boundsChecked
               << " runs of functions (as written, pipelined and scheduled; "
                  "with and without overheads) none shorter than its "
                  "bound\n";
  llvm::outs() << options.count << " passed, 0 failed\n";
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseOptions(argc, argv, options))
    return 2;
  if (options.help) {
    llvm::outs() << kUsage;
    return 0;
  }
  if (options.printSeed) {
    llvm::outs() << ProgramGenerator(*options.printSeed).generate();
    return 0;
  }
  if (options.printGPUSeed) {
    llvm::outs() << ProgramGenerator(*options.printGPUSeed)
                        .generate(ProgramGenerator::Form::UpstreamGPU);
    return 0;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  vyre::registerVyreDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.disableMultithreading();

  auto start = std::chrono::steady_clock::now();
  Totals totals;
  for (uint64_t i = 0; i < options.count; ++i) {
    uint64_t programSeed = options.seed + i;
    // Every combination of one or two side streams, D2H copies on the
    // main stream or on their own, and the cost model off or on.
    // Pipeline depths 2 to 4, and a buffer budget that cuts them or the
    // pass's default.
    BuildOptions build{
        1 + unsigned(programSeed % 2),    bool(programSeed / 2 % 2),
        bool(programSeed / 4 % 2),        2 + unsigned(programSeed / 8 % 3),
        programSeed / 24 % 2 ? 128u : 0u, options.referees};
    // Copies left in place asynchronous on the main stream, in three
    // programs of four.
    build.asyncInPlace = programSeed / 48 % 4 != 0;
    // Every versioning kept in half of the programs, so that both versions
    // of a versioned function run.
    build.keepAllVersions = programSeed / 192 % 2 == 0;
    // The depth chosen per loop by simulation (pipeline-depth=0) in half of
    // the programs.
    if (programSeed / 384 % 2)
      build.pipelineDepth = 0;
    bool toLLVM =
        options.llvmEvery != 0 && programSeed % options.llvmEvery == 0;
    std::string program = ProgramGenerator(programSeed).generate();
    std::string gpuProgram = ProgramGenerator(programSeed).generate(
        ProgramGenerator::Form::UpstreamGPU);
    Outcome outcome =
        checkProgram(context, program, gpuProgram, build, toLLVM);
    totals.add(outcome);
    if (!outcome.failure.empty()) {
      reportFailure(programSeed, build, outcome.failure, program,
                    gpuProgram);
      llvm::outs() << "schedule-fuzz: " << i << " passed, 1 failed\n";
      return 1;
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  printSummary(options, seconds, totals);
  return 0;
}
