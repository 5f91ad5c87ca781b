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

namespace {

/// Kernels over two buffers, by what they do to each: r, w, rw or -.
constexpr const char *kKernels = R"mlir(
  gpu.module @k {
    gpu.func @r_w(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      memref.store %v, %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @r_r(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      %w = memref.load %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @w_w(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %a[%i] : memref<16xf32>
      memref.store %z, %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @rw_n(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%i] : memref<16xf32>
      %old = memref.atomic_rmw addf %v, %a[%c0] : (f32, memref<16xf32>) -> f32
      gpu.return
    }
    gpu.func @n_n(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      gpu.return
    }
    func.func private @opaque(%a: memref<16xf32>, %b: memref<16xf32>) attributes {gpu.kernel}
  }
  func.func private @host_call()
)mlir";

constexpr const char *kKernelNames[] = {"r_w", "r_r", "w_w", "rw_n", "n_n",
                                        "opaque"};

/// Writes one random program, one op per line.
class ProgramGenerator {
public:
  explicit ProgramGenerator(uint64_t seed) : random(seed) {}

  std::string generate() {
    out = kKernels;
    bool noalias[3] = {coin(), coin(), coin()};
    out += "  func.func @f(";
    for (int h = 0; h < 3; ++h)
      out += "%h" + std::to_string(h) + ": memref<16xf32>" +
             (noalias[h] ? " {llvm.noalias}" : "") + ", ";
    out += "%g: memref<16xf32>, %v: f32, %n: index, %c: i1) {\n";
    line("%c0 = arith.constant 0 : index");
    line("%c1 = arith.constant 1 : index");
    line("%c16 = arith.constant 16 : index");
    for (int d = 0; d < 4; ++d)
      line("%d" + std::to_string(d) + " = vyre.alloc : memref<16xf32>");
    line("%big = vyre.alloc : memref<32xf32>");
    // Two views of one allocation: the same slot.
    line("%lo = memref.subview %big[0] [16] [1] : memref<32xf32> to "
         "memref<16xf32, strided<[1]>>");
    line("%hi = memref.subview %big[16] [16] [1] : memref<32xf32> to "
         "memref<16xf32, strided<[1], offset: 16>>");
    line("%vlo = memref.cast %lo : memref<16xf32, strided<[1]>> to "
         "memref<16xf32>");
    statements(uniform(12, 30), /*depth=*/0);
    for (int d = 0; d < 4; ++d)
      line("vyre.dealloc %d" + std::to_string(d) + " : memref<16xf32>");
    line("vyre.dealloc %big : memref<32xf32>");
    line("return");
    out += "  }\n";
    return out;
  }

private:
  bool coin() { return random() & 1; }
  unsigned uniform(unsigned lo, unsigned hi) {
    return lo + random() % (hi - lo + 1);
  }
  void line(const std::string &text) {
    out += std::string(4 + 2 * depth, ' ') + text + "\n";
  }

  /// A device buffer: an allocation, the view, or the device argument.
  std::string deviceBuffer() {
    unsigned pick = uniform(0, 9);
    if (pick < 6)
      return "%d" + std::to_string(pick % 4);
    if (pick < 8)
      return "%vlo";
    return "%g";
  }
  std::string hostBuffer() { return "%h" + std::to_string(uniform(0, 2)); }

  void statements(unsigned count, unsigned nesting) {
    for (unsigned i = 0; i < count; ++i) {
      unsigned kind = uniform(0, 99);
      if (kind < 30) {
        line("vyre.copy_h2d " + hostBuffer() + " to " + deviceBuffer() +
             " : memref<16xf32> to memref<16xf32>");
      } else if (kind < 65) {
        std::string kernel = kKernelNames[uniform(0, 5)];
        line("vyre.dispatch @k::@" + kernel +
             " blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(" +
             deviceBuffer() + ", " + deviceBuffer() +
             " : memref<16xf32>, memref<16xf32>)" +
             (kernel == "opaque" ? " access [read, write]" : ""));
      } else if (kind < 75) {
        line("vyre.copy_d2h " + deviceBuffer() + " to " + hostBuffer() +
             " : memref<16xf32> to memref<16xf32>");
      } else if (kind < 81) {
        line("memref.store %v, " + hostBuffer() + "[%c0] : memref<16xf32>");
      } else if (kind < 84) {
        line("func.call @host_call() : () -> ()");
      } else if (kind < 87) {
        // A copy into the upper half of the big buffer: the same slot as
        // the lower view, through a strided view.
        line("vyre.copy_h2d " + hostBuffer() +
             " to %hi : memref<16xf32> to memref<16xf32, strided<[1], "
             "offset: 16>>");
      } else if (kind < 94 && nesting < 2) {
        line("scf.for %i" + std::to_string(counter++) +
             " = %c0 to %n step %c1 {");
        ++depth;
        statements(uniform(1, 5), nesting + 1);
        --depth;
        line("}");
      } else if (nesting < 2 && numIfs < 6) {
        // The checker enumerates branch combinations: at most 6 ifs.
        ++numIfs;
        line("scf.if %c {");
        ++depth;
        statements(uniform(1, 4), nesting + 1);
        --depth;
        line("} else {");
        ++depth;
        statements(uniform(0, 3), nesting + 1);
        --depth;
        line("}");
      }
    }
  }

  std::mt19937_64 random;
  std::string out;
  unsigned depth = 0;
  unsigned counter = 0;
  unsigned numIfs = 0;
};

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
