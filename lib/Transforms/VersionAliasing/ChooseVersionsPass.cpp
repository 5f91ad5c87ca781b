//===- ChooseVersionsPass.cpp - Keep run-time versions that pay -*- C++ -*-===//
//
// --vyre-choose-versions: after scheduling, a function versioned for aliasing
// keeps its versions only where the copy with the arguments llvm.noalias is
// faster on --vyre-simulate's model; elsewhere the dispatcher takes the
// as-written copy's body back (docs/VersionAliasing.md).
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/Passes.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/Simulation/SimulateFunction.h"
#include "vyre/Support/PassDiagnostics.h"
#include "vyre/Transforms/VersionAliasing/FunctionVersions.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Remarks.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

namespace mlir::vyre {
#define GEN_PASS_DEF_CHOOSEVERSIONSPASS
#include "vyre/Transforms/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr StringLiteral kRemarkCategory = "version-aliasing";

std::string formatUs(double us) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.1f", us) << " us";
  return text;
}

struct ChooseVersionsPass
    : public vyre::impl::ChooseVersionsPassBase<ChooseVersionsPass> {
  using Base::Base;
  // (The options are the base's protected members.)
  friend EngineModel(vyre::engineModelOf<ChooseVersionsPass>)(
      const ChooseVersionsPass &);

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (onlyIfFaster &&
        failed(checkRuntimeCostOptions(
            module.getLoc(), getArgument(),
            {h2dGBps, d2hGBps, copyLatencyUs, defaultKernelUs, launchUs,
             eventUs, hostSyncUs, streamCreateUs})))
      return signalPassFailure();
    SymbolTable symbols(module);
    SmallVector<FunctionVersions> versioned;
    for (func::FuncOp function : module.getOps<func::FuncOp>())
      if (std::optional<FunctionVersions> versions =
              FunctionVersions::of(function, symbols))
        versioned.push_back(*versions);
    if (versioned.empty())
      return markAllAnalysesPreserved();
    for (FunctionVersions versions : versioned)
      choose(versions);
  }

  EngineModel engineModel() const { return engineModelOf(*this); }

  /// A simulated run of `function`'s schedule, or why the simulator cannot
  /// time it.
  FailureOr<SimulatedRun> simulate(func::FuncOp function,
                                   std::string &whyNot) {
    // What the simulator cannot run is its error; here it only means the
    // choice is made another way.
    ScopedDiagnosticHandler quiet(&getContext(), [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
          whyNot.empty())
        whyNot = diagnostic.str();
      return success();
    });
    SlotAccessAnalysis slots(function);
    FailureOr<SimulatedRun> run =
        simulateFunction(function, slots, engineModel());
    if (failed(run))
      return failure();
    return *run;
  }

  void choose(FunctionVersions versions) {
    std::string name = "@" + versions.dispatcher.getSymName().str();
    std::string arguments = versions.describeArguments();
    if (!onlyIfFaster) {
      keep(versions, "arguments " + arguments + " of " + name +
                         " are checked disjoint at run time (only-if-faster="
                         "false)");
      return;
    }
    std::string whyNot;
    FailureOr<SimulatedRun> disjoint = simulate(versions.disjoint, whyNot);
    FailureOr<SimulatedRun> mayAlias =
        failed(disjoint) ? FailureOr<SimulatedRun>(failure())
                         : simulate(versions.mayAlias, whyNot);
    // Both copies do the same device work; where the simulations count
    // different amounts, they guessed loops' trip counts differently (a
    // pipelined loop of unknown trip count is several loops, each run
    // default-trip-count times), and their makespans do not compare.
    bool comparable =
        succeeded(disjoint) && succeeded(mayAlias) &&
        std::abs(disjoint->deviceTimeUs - mayAlias->deviceTimeUs) <=
            1e-9 * std::max(1.0, mayAlias->deviceTimeUs);
    if (comparable) {
      std::string times = "simulated " + formatUs(disjoint->makespanUs) +
                          " with them disjoint, " +
                          formatUs(mayAlias->makespanUs) + " as written";
      if (disjoint->makespanUs < mayAlias->makespanUs)
        keep(versions, "arguments " + arguments + " of " + name +
                           " are checked disjoint at run time: @" +
                           versions.disjoint.getSymName().str() +
                           " runs when they are, @" +
                           versions.mayAlias.getSymName().str() +
                           " otherwise (" + times + ")");
      else
        foldBack(versions, "versioning " + name + " on arguments " +
                               arguments + " does not pay: " + times);
      return;
    }
    if (succeeded(mayAlias))
      whyNot = "the two count different device work, " +
               formatUs(disjoint->deviceTimeUs) + " with them disjoint and " +
               formatUs(mayAlias->deviceTimeUs) +
               " as written: it runs each loop of unknown trip count "
               "default-trip-count times, and pipelining makes one such "
               "loop several";
    // Without times, the versions pay only if their schedules differ.
    bool alike = OperationEquivalence::isRegionEquivalentTo(
        &versions.disjoint.getBody(), &versions.mayAlias.getBody(),
        OperationEquivalence::IgnoreLocations);
    std::string untimed = "the simulator cannot time it (" + whyNot + ")";
    if (succeeded(mayAlias))
      untimed = "the simulator cannot compare them (" + whyNot + ")";
    if (alike)
      foldBack(versions, "versioning " + name + " on arguments " + arguments +
                             " does not pay: both are scheduled alike; " +
                             untimed);
    else
      keep(versions, "arguments " + arguments + " of " + name +
                         " are checked disjoint at run time: they are "
                         "scheduled differently when disjoint; " +
                         untimed);
  }

  void keep(FunctionVersions versions, const std::string &why) {
    versions.forget();
    remark::passed(vyre::getSourceLocation(versions.dispatcher.getLoc()),
                   options("ArgumentsVersioned"))
        << why;
  }

  /// The dispatcher takes the as-written copy's body again; both copies go.
  void foldBack(FunctionVersions versions, const std::string &why) {
    func::FuncOp dispatcher = versions.dispatcher;
    versions.forget();
    dispatcher.getBody().dropAllReferences();
    dispatcher.getBody().getBlocks().clear();
    dispatcher.getBody().takeBody(versions.mayAlias.getBody());
    // What the passes wrote on the copy (its summaries) describes this body.
    for (NamedAttribute attribute : versions.mayAlias->getDiscardableAttrs())
      dispatcher->setDiscardableAttr(attribute.getName(),
                                     attribute.getValue());
    versions.mayAlias.erase();
    versions.disjoint.erase();
    remark::missed(vyre::getSourceLocation(dispatcher.getLoc()),
                   options("VersioningDeclined"))
        << why + "; " + "@" + dispatcher.getSymName().str() +
               " stays as written";
  }

  remark::RemarkOpts options(StringRef name) {
    return remark::RemarkOpts::name(name).category(kRemarkCategory);
  }
};

} // namespace
