//===- ScheduleFuzz.cpp - Random programs through the referee ---*- C++ -*-===//
//
// A property test: generates seeded random vyre programs (H2D and D2H copies,
// dispatches of kernels with varied read/write sets, shared host buffers,
// buffer reuse, aliasing views and arguments, host writes, opaque calls,
// scf.for and scf.if), runs --overlap-copies, checks the result with
// --vyre-verify-schedule, and lowers
// it with --convert-vyre-to-gpu. Any race, verifier error, or pass failure
// other than a lowering refusal fails the run and prints the seed and the
// program that reproduce it.
//
// Usage: vyre-schedule-fuzz [--count N] [--seed S] [--print SEED]
//
//===----------------------------------------------------------------------===//

#include "ProgramGenerator.h"

#include "vyre/Conversion/Passes.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"
#include "vyre/Transforms/Passes.h"
#include "vyre/Verification/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>

using namespace mlir;
using mlir::vyre::test::ProgramGenerator;

namespace {

/// What went wrong with one program, or empty.
std::string runOne(MLIRContext &context, const std::string &program,
                   unsigned sideStreams) {
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error) {
      llvm::raw_string_ostream os(errors);
      os << diagnostic.getLocation() << ": " << diagnostic.str() << "\n";
    }
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(program, &context, "program.mlir");
  if (!module)
    return "the generated program does not parse or verify:\n" + errors;

  // The input has sequential semantics; only the pass's output has streams
  // to check. A function without copies is left as it is.
  bool hasCopies = false;
  module->walk([&](vyre::CopyH2DOp) { hasCopies = true; });
  if (!hasCopies)
    return "";

  PassManager pm(&context);
  vyre::OverlapCopiesOptions options;
  options.sideStreams = sideStreams;
  pm.nest<func::FuncOp>().addPass(vyre::createOverlapCopies(options));
  pm.nest<func::FuncOp>().addPass(vyre::createVerifySchedule());
  if (failed(pm.run(*module)))
    return "--overlap-copies produced a race or invalid IR:\n" + errors;

  // The lowering may refuse what it cannot lower (a strided copy, a kernel
  // without a body) with a diagnostic; it must not fail otherwise.
  errors.clear();
  PassManager lower(&context);
  lower.addPass(vyre::createConvertVyreToGPU());
  if (failed(lower.run(*module)) &&
      errors.find("cannot be lowered") == std::string::npos)
    return "--convert-vyre-to-gpu failed:\n" + errors;
  return "";
}

} // namespace

int main(int argc, char **argv) {
  uint64_t count = 200, seed = 1;
  std::optional<uint64_t> printSeed;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) {
      llvm::errs() << "vyre-schedule-fuzz: missing value after " << flag
                   << "\n";
      return 2;
    }
    uint64_t value = std::strtoull(argv[++i], nullptr, 10);
    if (flag == "--count")
      count = value;
    else if (flag == "--seed")
      seed = value;
    else if (flag == "--print")
      printSeed = value;
    else {
      llvm::errs() << "vyre-schedule-fuzz: unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (printSeed) {
    llvm::outs() << ProgramGenerator(*printSeed).generate();
    return 0;
  }

  DialectRegistry registry;
  vyre::registerVyreDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.disableMultithreading();

  auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t programSeed = seed + i;
    std::string program = ProgramGenerator(programSeed).generate();
    std::string failure = runOne(context, program, 1 + programSeed % 2);
    if (!failure.empty()) {
      llvm::errs() << "vyre-schedule-fuzz: seed " << programSeed
                   << " fails (reproduce: vyre-schedule-fuzz --print "
                   << programSeed << " | vyre-opt --overlap-copies="
                   << "\"side-streams=" << 1 + programSeed % 2
                   << "\" --vyre-verify-schedule)\n"
                   << failure << "\n"
                   << program;
      llvm::outs() << "schedule-fuzz: " << i << " passed, 1 failed\n";
      return 1;
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  llvm::outs() << "schedule-fuzz: seeds " << seed << ".." << seed + count - 1
               << " in " << llvm::format("%.1f", seconds) << " s\n";
  llvm::outs() << count << " passed, 0 failed\n";
  return 0;
}
