//===- vyre-compile.cpp - A downstream driver of vyre's pipeline -*- C++ -*-===//
//
// What a compiler that puts vyre in its own pipeline does, in one file:
//  1. register the vyre dialect and the upstream dialects vyre programs use
//     (registerVyreDialects), in the compiler's own registry;
//  2. parse its input (a vyre program: vyre ops on host buffers, kernels as
//     gpu.func in a gpu.module);
//  3. build vyre's pipeline to the gpu dialect into its own PassManager, with
//     options set in C++ (VyreToGPUPipelineOptions: the fields are the
//     options of --vyre-to-gpu-pipeline, same names in camelCase);
//  4. run it, with the pass manager's own instrumentation (here, timing), and
//     print the result, which upstream's --gpu-lower-to-nvvm-pipeline
//     takes on.
//
// Usage: vyre-compile INPUT.mlir [--side-streams N] [--no-cost-model]
//                    [--verify] [--timing]
// Prints the gpu-dialect module on stdout; diagnostics (errors, and remarks
// where the pipeline emits them) go to stderr. Exits 1 if the input does not
// parse or a pass fails, 2 on a bad command line.
//
//===----------------------------------------------------------------------===//

#include "vyre/InitVyre.h"
#include "vyre/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

namespace {

struct CommandLine {
  std::string input;
  unsigned sideStreams = 1;
  bool costModel = true, verify = false, timing = false;
};

bool parseCommandLine(int argc, char **argv, CommandLine &line) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--side-streams" && i + 1 < argc) {
      if (llvm::StringRef(argv[++i]).getAsInteger(10, line.sideStreams))
        return false;
    } else if (arg == "--no-cost-model") {
      line.costModel = false;
    } else if (arg == "--verify") {
      line.verify = true;
    } else if (arg == "--timing") {
      line.timing = true;
    } else if (!arg.starts_with("-") && line.input.empty()) {
      line.input = arg.str();
    } else {
      return false;
    }
  }
  return !line.input.empty();
}

} // namespace

int main(int argc, char **argv) {
  CommandLine line;
  if (!parseCommandLine(argc, argv, line)) {
    llvm::errs() << "usage: vyre-compile INPUT.mlir [--side-streams N] "
                    "[--no-cost-model] [--verify] [--timing]\n";
    return 2;
  }

  // 1. The dialects: vyre's and those its programs use.
  mlir::DialectRegistry registry;
  mlir::vyre::registerVyreDialects(registry);
  mlir::MLIRContext context(registry);

  // 2. The input.
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler diagnostics(sources, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(line.input, sources,
                                            mlir::ParserConfig(&context));
  if (!module)
    return 1;

  // 3. The pipeline, with options set in C++.
  mlir::PassManager pm(&context);
  mlir::vyre::VyreToGPUPipelineOptions options;
  options.sideStreams = line.sideStreams;
  options.costModel = line.costModel;
  options.verify = line.verify;
  mlir::vyre::buildVyreToGPUPipeline(pm, options);
  if (line.timing)
    pm.enableTiming();

  // 4. Run and print.
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
