//===- VyreTblgen.cpp - mlir-tblgen with vyre's pipeline options -*- C++ -*-===//
//
// mlir-tblgen and one more backend, -gen-pipeline-options: for each pass in a
// Passes.td, a block of pass-pipeline option declarations that mirrors the
// pass's ODS options (same names, types, defaults and descriptions), and a
// method that turns them into the pass's generated options struct. A pipeline
// includes the blocks of the passes it runs, so its options never drift from
// the passes' own:
//
//   struct MyPipelineOptions : PassPipelineOptions<MyPipelineOptions> {
//   #define GEN_PIPELINE_OPTIONS_MYPASS
//   #include "PipelineOptions.h.inc"
//   #define GEN_PIPELINE_OPTIONS_END
//   #include "PipelineOptions.h.inc"
//   };
//
// Passes of one pipeline that take options of the same name share them (one
// declaration, the first included); GEN_PIPELINE_OPTIONS_END ends the
// pipeline, so that the next declares its own.
//   ... createMyPass(options.getMyPassOptions()) ...
//
//===----------------------------------------------------------------------===//

#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Pass.h"
#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

#include <set>

using namespace mlir;
using namespace mlir::tblgen;

/// The macro that marks an option as declared in the pipeline options
/// being generated.
static std::string sharedGuard(const PassOption &option) {
  std::string name = "VYRE_PIPELINE_OPTION_" + option.getArgument().upper();
  llvm::replace(name, '-', '_');
  return name;
}

/// Emits, under GEN_PIPELINE_OPTIONS_END, the end of one pipeline's options:
/// the marks of the options declared are undefined, for the next pipeline.
static void emitPipelineOptionsEnd(ArrayRef<const llvm::Record *> passes,
                                   llvm::raw_ostream &os) {
  os << "#ifdef GEN_PIPELINE_OPTIONS_END\n#undef GEN_PIPELINE_OPTIONS_END\n";
  std::set<std::string> seen;
  for (const llvm::Record *def : passes) {
    Pass pass(def);
    for (const PassOption &option : pass.getOptions())
      if (seen.insert(sharedGuard(option)).second)
        os << "#undef " << sharedGuard(option) << "\n";
  }
  os << "#endif // GEN_PIPELINE_OPTIONS_END\n\n";
}

/// Emits the option declarations and the conversion for `pass`.
static void emitPipelineOptions(const Pass &pass, llvm::raw_ostream &os) {
  StringRef name = pass.getDef()->getName();
  std::string guard = "GEN_PIPELINE_OPTIONS_" + llvm::StringRef(name).upper();
  os << "#ifdef " << guard << "\n#undef " << guard << "\n";
  for (const PassOption &option : pass.getOptions()) {
    // Passes of one pipeline that take an option of the same name (the cost
    // models' bandwidths) share one pipeline option: the first block
    // included declares it.
    std::string shared = sharedGuard(option);
    os << "#ifndef " << shared << "\n#define " << shared << "\n";
    os << llvm::formatv("  /// --{0} option `{1}`.\n", pass.getArgument(),
                        option.getArgument());
    os << llvm::formatv("  ::mlir::detail::PassOptions::{0}<{1}> {2}{{*this, "
                        "\"{3}\", ::llvm::cl::desc(\"",
                        option.isListOption() ? "ListOption" : "Option",
                        option.getType(), option.getCppVariableName(),
                        option.getArgument());
    llvm::printEscapedString(option.getDescription().trim(), os);
    os << "\")";
    if (std::optional<StringRef> value = option.getDefaultValue())
      os << ", ::llvm::cl::init(" << *value << ")";
    if (std::optional<StringRef> flags = option.getAdditionalFlags())
      os << ", " << *flags;
    os << "};\n#endif\n";
  }
  os << llvm::formatv("  /// These options, for create{0}().\n", name);
  os << llvm::formatv("  {0}Options get{0}Options() const {{\n", name);
  os << llvm::formatv("    {0}Options options;\n", name);
  for (const PassOption &option : pass.getOptions()) {
    StringRef variable = option.getCppVariableName();
    if (option.isListOption())
      os << llvm::formatv("    options.{0}.assign({0}.begin(), {0}.end());\n",
                          variable);
    else
      os << llvm::formatv("    options.{0} = {0};\n", variable);
  }
  os << "    return options;\n  }\n#endif // " << guard << "\n\n";
}

static mlir::GenRegistration
    genPipelineOptions("gen-pipeline-options",
                       "Generate pass-pipeline options from pass options",
                       [](const llvm::RecordKeeper &records,
                          llvm::raw_ostream &os) {
                         llvm::emitSourceFileHeader("Pipeline options", os,
                                                    records);
                         auto passes =
                             records.getAllDerivedDefinitions("PassBase");
                         for (const llvm::Record *def : passes)
                           emitPipelineOptions(Pass(def), os);
                         emitPipelineOptionsEnd(passes, os);
                         return false;
                       });

int main(int argc, char **argv) { return MlirTblgenMain(argc, argv); }
