//===- ProgramGenerator.cpp - Random vyre programs --------------*- C++ -*-===//

#include "ProgramGenerator.h"

#include <memory>
#include <random>

using namespace mlir::vyre::test;

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
    gpu.func @attr_w_r(%a: memref<16xf32>, %b: memref<16xf32>)
        workgroup(%s0: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s1: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s2: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s3: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s4: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s5: memref<4xf32, #gpu.address_space<workgroup>>)
        private(%p0: memref<4xf32, #gpu.address_space<private>>,
                %p1: memref<4xf32, #gpu.address_space<private>>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %b[%i] : memref<16xf32>
      memref.store %v, %a[%i] : memref<16xf32>
      gpu.return
    }
    func.func private @opaque(%a: memref<16xf32>, %b: memref<16xf32>) attributes {gpu.kernel}
  }
  func.func private @host_call()
  func.func private @host_tick() attributes {vyre.effects = "none"}
  func.func @host_fill(%b: memref<16xf32>, %v: f32) {
    %c0 = arith.constant 0 : index
    memref.store %v, %b[%c0] : memref<16xf32>
    return
  }
  func.func @host_fill_at(%b: memref<16xf32>, %i: index) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %at = arith.remui %i, %c16 : index
    %x = memref.load %b[%c1] : memref<16xf32>
    memref.store %x, %b[%at] : memref<16xf32>
    return
  }
)mlir";

constexpr const char *kKernelNames[] = {"r_w",  "r_r",      "w_w",
                                        "rw_n", "n_n",      "attr_w_r",
                                        "opaque"};

} // namespace

ProgramGenerator::ProgramGenerator(uint64_t seed)
    : draw([random = std::make_shared<std::mt19937_64>(seed)]() {
        return (*random)();
      }) {}

ProgramGenerator::ProgramGenerator(llvm::ArrayRef<uint8_t> bytes)
    : draw([bytes, position = size_t(0)]() mutable -> uint64_t {
        // Two bytes a choice; zeros once the input runs out, so that every
        // input is a program.
        uint64_t value = 0;
        for (int i = 0; i < 2; ++i)
          value = value << 8 | (position < bytes.size() ? bytes[position++] : 0);
        return value;
      }) {}

namespace {
class Writer {
public:
  Writer(std::function<uint64_t()> &draw, bool gpu) : draw(draw), gpu(gpu) {}

  std::string generate() {
    out = gpu ? "module attributes {gpu.container_module} {\n" : "";
    out += kKernels;
    header();
    // Some programs have no copy at all: they keep their sequential meaning
    // through every pass.
    copyFree = uniform(0, 9) == 0;
    // Most programs can be lowered: no bodiless kernel (the lowering refuses
    // it with an error). Upstream gpu code has none: the import would keep
    // such a function as written.
    lowerable = gpu || uniform(0, 9) < 8;
    for (int d = 0; d < 4; ++d)
      alloc("%d" + std::to_string(d), "memref<16xf32>");
    // A buffer only ever copied into: canonicalization erases those copies.
    alloc("%dead", "memref<16xf32>");
    alloc("%big", "memref<32xf32>");
    // Two views of one allocation: the same slot.
    line("%lo = memref.subview %big[0] [16] [1] : memref<32xf32> to "
         "memref<16xf32, strided<[1]>>");
    line("%hi = memref.subview %big[16] [16] [1] : memref<32xf32> to "
         "memref<16xf32, strided<[1], offset: 16>>");
    line("%vlo = memref.cast %lo : memref<16xf32, strided<[1]>> to "
         "memref<16xf32>");
    statements(uniform(12, 30), /*depth=*/0);
    for (int d = 0; d < 4; ++d)
      dealloc("%d" + std::to_string(d), "memref<16xf32>");
    dealloc("%dead", "memref<16xf32>");
    dealloc("%big", "memref<32xf32>");
    line("return");
    out += "  }\n";
    if (gpu)
      out += "}\n";
    return out;
  }

private:
  bool coin() { return draw() & 1; }
  unsigned uniform(unsigned lo, unsigned hi) {
    return lo + draw() % (hi - lo + 1);
  }
  void line(const std::string &text) {
    out += std::string(4 + 2 * depth, ' ') + text + "\n";
  }

  /// The function's signature and constants. Host buffers are arguments in
  /// vyre (some `llvm.noalias`); in gpu code they are allocations, some
  /// registered, so that the import can tell each copy's direction.
  void header() {
    bool noalias[3] = {coin(), coin(), coin()};
    out += "  func.func @f(";
    for (int h = 0; h < 3 && !gpu; ++h)
      out += "%h" + std::to_string(h) + ": memref<16xf32>" +
             (noalias[h] ? " {llvm.noalias}" : "") + ", ";
    out += "%g: memref<16xf32>, %v: f32, %n: index, %c: i1) {\n";
    line("%c0 = arith.constant 0 : index");
    line("%c1 = arith.constant 1 : index");
    line("%c16 = arith.constant 16 : index");
    line("%c3 = arith.constant 3 : index");
    line("%c4 = arith.constant 4 : index");
    line("%c5 = arith.constant 5 : index");
    if (!gpu)
      line("%hs = arith.select %c, %h0, %h1 : memref<16xf32>");
    for (int h = 0; h < 3 && gpu; ++h) {
      std::string name = "%h" + std::to_string(h);
      line(name + " = memref.alloc() : memref<16xf32>");
      if (!noalias[h])
        continue;
      line(name + "u = memref.cast " + name +
           " : memref<16xf32> to memref<*xf32>");
      line("gpu.host_register " + name + "u : memref<*xf32>");
    }
  }

  void alloc(const std::string &name, const std::string &type) {
    line(name + (gpu ? " = gpu.alloc () : " : " = vyre.alloc : ") + type);
  }
  void dealloc(const std::string &name, const std::string &type) {
    line((gpu ? "gpu.dealloc " : "vyre.dealloc ") + name + " : " + type);
  }
  /// A copy from `source` into `target`, both memref<16xf32> unless said.
  void copy(bool toDevice, const std::string &source,
            const std::string &target,
            const std::string &targetType = "memref<16xf32>",
            const std::string &sourceType = "memref<16xf32>") {
    if (gpu)
      line("gpu.memcpy " + target + ", " + source + " : " + targetType +
           ", " + sourceType);
    else
      line(std::string(toDevice ? "vyre.copy_h2d " : "vyre.copy_d2h ") +
           source + " to " + target + " : " + sourceType + " to " +
           targetType);
  }
  void dispatch(const std::string &kernel, const std::string &a,
                const std::string &b) {
    if (gpu) {
      line("gpu.launch_func @k::@" + kernel +
           " blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(" + a +
           " : memref<16xf32>, " + b + " : memref<16xf32>)");
      return;
    }
    line("vyre.dispatch @k::@" + kernel +
         " blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(" + a + ", " +
         b + " : memref<16xf32>, memref<16xf32>)" +
         (kernel == "opaque" ? " access [read, write]" : ""));
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
  /// A host buffer: an argument, or (vyre form, one time in eight) a select
  /// between two of them, a buffer of unknown origin to the planner. One draw
  /// either way, so that earlier seeds keep their programs' shapes.
  std::string hostBuffer() {
    uint64_t value = draw();
    if (!gpu && (value / 3) % 8 == 0)
      return "%hs";
    return "%h" + std::to_string(value % 3);
  }

  void statements(unsigned count, unsigned nesting) {
    for (unsigned i = 0; i < count; ++i) {
      unsigned kind = uniform(0, 99);
      if (copyFree && (kind < 30 || (kind >= 84 && kind < 87)))
        kind = 30;
      if (kind < 30 && uniform(0, 9) == 0) {
        copy(/*toDevice=*/true, hostBuffer(), "%dead");
      } else if (kind < 30) {
        // The draws in a fixed order, last operand first, as the seeds of
        // earlier campaigns drew them.
        std::string target = deviceBuffer();
        copy(/*toDevice=*/true, hostBuffer(), target);
      } else if (kind < 65) {
        std::string kernel = kKernelNames[uniform(0, lowerable ? 5 : 6)];
        std::string b = deviceBuffer();
        dispatch(kernel, deviceBuffer(), b);
      } else if (kind < 75) {
        std::string target = hostBuffer();
        copy(/*toDevice=*/false, deviceBuffer(), target);
      } else if (kind < 78) {
        line("memref.store %v, " + hostBuffer() + "[%c0] : memref<16xf32>");
      } else if (kind < 80) {
        line("%l" + std::to_string(counter++) + " = memref.load " +
             hostBuffer() + "[%c0] : memref<16xf32>");
      } else if (kind < 81) {
        // A host store through a pointer taken from a buffer: the passes
        // cannot tell which buffer it writes.
        std::string id = std::to_string(counter++);
        line("%a" + id + " = memref.extract_aligned_pointer_as_index " +
             hostBuffer() + " : memref<16xf32> -> index");
        line("%i" + id + " = arith.index_cast %a" + id + " : index to i64");
        line("%p" + id + " = llvm.inttoptr %i" + id + " : i64 to !llvm.ptr");
        line("llvm.store %v, %p" + id + " : f32, !llvm.ptr");
      } else if (kind < 84) {
        // A call of unknown effect, one that touches nothing, and one that
        // writes its argument (--vyre-function-effects says which).
        unsigned callee = uniform(0, 2);
        if (callee == 0)
          line("func.call @host_call() : () -> ()");
        else if (callee == 1)
          line("func.call @host_tick() : () -> ()");
        else
          line("func.call @host_fill(" + hostBuffer() +
               ", %v) : (memref<16xf32>, f32) -> ()");
      } else if (kind < 86) {
        // A copy into the upper half of the big buffer: the same slot as
        // the lower view, through a view with an offset (lowered through an
        // identity-layout alias).
        copy(/*toDevice=*/true, hostBuffer(), "%hi",
             "memref<16xf32, strided<[1], offset: 16>>");
      } else if (kind < 87) {
        tileCopy();
      } else if (kind < 90 && nesting < 2) {
        if (nesting == 0 && uniform(0, 2) == 0)
          nestedStreamingLoop();
        else
          streamingLoop();
      } else if (kind < 94 && nesting < 3) {
        line("scf.for %i" + std::to_string(counter++) +
             " = %c0 to %n step %c1 {");
        ++depth;
        statements(uniform(1, 5), nesting + 1);
        if (uniform(0, 3) == 0)
          temporaryBuffer();
        --depth;
        line("}");
      } else if (nesting < 3 && numIfs < 6) {
        // The checker enumerates branch combinations, at most 14 ifs:
        // 6 leaves room for the copies --vyre-pipeline-loops makes.
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

  /// A 2-D tile copy, either direction: two columns of a buffer seen as
  /// 4 x 4 (4 rows of 2 elements, 4 apart), from or into two columns of
  /// another (lowered as one vyreMemcpy2DAsync). Tiles of one buffer in
  /// different columns are disjoint views.
  void tileCopy() {
    bool toDevice = coin();
    std::string host = hostBuffer(), device = deviceBuffer();
    if (device == "%vlo")
      device = "%d0";
    unsigned hostColumn = uniform(0, 2), deviceColumn = uniform(0, 2);
    auto tile = [&](const std::string &buffer, unsigned column) {
      std::string id = std::to_string(counter++);
      line("%sq" + id + " = memref.reinterpret_cast " + buffer +
           " to offset: [0], sizes: [4, 4], strides: [4, 1] : "
           "memref<16xf32> to memref<4x4xf32>");
      std::string type = "memref<4x2xf32, strided<[4, 1], offset: " +
                         std::to_string(column) + ">>";
      line("%tl" + id + " = memref.subview %sq" + id + "[0, " +
           std::to_string(column) + "] [4, 2] [1, 1] : memref<4x4xf32> to " +
           type);
      return std::make_pair("%tl" + id, type);
    };
    auto [hostTile, hostType] = tile(host, hostColumn);
    auto [deviceTile, deviceType] = tile(device, deviceColumn);
    if (toDevice)
      copy(toDevice, hostTile, deviceTile, deviceType, hostType);
    else
      copy(toDevice, deviceTile, hostTile, hostType, deviceType);
  }

  /// A copy into `buffer` from a host buffer (`host`, or one drawn) through
  /// a view computed in the loop body (named after `id`).
  void fillThroughView(const std::string &id, const std::string &buffer,
                       std::string host = "") {
    if (host.empty())
      host = hostBuffer();
    line("%sv" + id + " = memref.subview " + host +
         "[0] [16] [1] : memref<16xf32> to memref<16xf32, strided<[1]>>");
    line("%sc" + id + " = memref.cast %sv" + id +
         " : memref<16xf32, strided<[1]>> to memref<16xf32>");
    copy(/*toDevice=*/true, "%sc" + id, buffer);
  }

  /// A buffer allocated and freed in a loop body: filled from the host, read
  /// by a kernel.
  void temporaryBuffer() {
    std::string buffer = "%t" + std::to_string(counter++);
    alloc(buffer, "memref<16xf32>");
    copy(/*toDevice=*/true, hostBuffer(), buffer);
    std::string other = deviceBuffer();
    dispatch("r_w", buffer, other);
    dealloc(buffer, "memref<16xf32>");
  }

  /// A loop whose body uses a buffer before an inner loop that streams into
  /// it: in the next outer iteration, that use runs after the inner loop.
  /// The inner loop fills the buffer from a row the body computes or from
  /// one host buffer every iteration, and a launch reads it into a buffer
  /// it overwrites or into another.
  void nestedStreamingLoop() {
    std::string id = std::to_string(counter++);
    std::string buffer = "%s" + id, result = "%o" + id;
    alloc(buffer, "memref<16xf32>");
    alloc(result, "memref<16xf32>");
    const char *trips[] = {"%n", "%c3"};
    line("scf.for %b" + id + " = %c0 to " + trips[uniform(0, 1)] +
         " step %c1 {");
    ++depth;
    // The use before the inner loop, under a branch or not.
    bool branch = numIfs < 6 && coin();
    if (branch) {
      ++numIfs;
      line("scf.if %c {");
      ++depth;
    }
    switch (uniform(0, 2)) {
    case 0:
      copy(/*toDevice=*/false, buffer, hostBuffer());
      break;
    case 1:
      copy(/*toDevice=*/false, result, hostBuffer());
      break;
    default:
      dispatch("r_w", buffer, "%d" + std::to_string(uniform(0, 3)));
      break;
    }
    if (branch) {
      --depth;
      line("}");
    }
    line("scf.for %j" + id + " = %c0 to " + trips[uniform(0, 1)] +
         " step %c1 {");
    ++depth;
    if (coin()) {
      fillThroughView(id, buffer);
    } else {
      // The same bytes every iteration: a copy the pass may move out.
      copy(/*toDevice=*/true, hostBuffer(), buffer);
    }
    if (coin() && !gpu)
      line("vyre.dispatch @k::@r_w blocks(%c1, %c1, %c1) threads(%c16, %c1, "
           "%c1) args(" +
           buffer + ", " + result +
           " : memref<16xf32>, memref<16xf32>) access [read, overwrite]");
    else
      dispatch(coin() ? "r_w" : "r_r", buffer,
               coin() ? result : deviceBuffer());
    --depth;
    line("}");
    --depth;
    line("}");
    dealloc(buffer, "memref<16xf32>");
    dealloc(result, "memref<16xf32>");
  }

  /// A loop that streams into a buffer of its own, which each iteration
  /// fills first (what --vyre-pipeline-loops rotates), reads it with a
  /// kernel, and may copy a result back and read it on the host; other
  /// statements around may block the rewrite.
  void streamingLoop() {
    std::string id = std::to_string(counter++);
    std::string buffer = "%s" + id;
    alloc(buffer, "memref<16xf32>");
    alloc("%o" + id, "memref<16xf32>");
    const char *trips[] = {"%n", "%c3", "%c4", "%c5"};
    line("scf.for %i" + id + " = %c0 to " + trips[uniform(0, 3)] +
         " step %c1 {");
    ++depth;
    if (uniform(0, 3) == 0)
      statements(1, /*nesting=*/2);
    if (numIfs < 6 && uniform(0, 3) == 0) {
      branchyStreamingBody(id, buffer);
      --depth;
      line("}");
      dealloc(buffer, "memref<16xf32>");
      dealloc("%o" + id, "memref<16xf32>");
      return;
    }
    // A host call that writes, each iteration, the staging buffer the copy
    // then reads (a decode, then the copy in): the pipeline may issue the
    // call early with the copy.
    std::string staging;
    if (uniform(0, 2) == 0) {
      staging = hostBuffer();
      line("func.call @host_fill_at(" + staging + ", %i" + id +
           ") : (memref<16xf32>, index) -> ()");
    }
    fillThroughView(id, buffer, staging);
    if (coin()) {
      // A result buffer of its own, which the launch promises to overwrite
      // (upstream gpu code cannot say so), copied back each iteration.
      std::string result = "%o" + id;
      if (gpu)
        dispatch("r_w", buffer, result);
      else
        line("vyre.dispatch @k::@r_w blocks(%c1, %c1, %c1) threads(%c16, "
             "%c1, %c1) args(" + buffer + ", " + result +
             " : memref<16xf32>, memref<16xf32>) access [read, overwrite]");
      std::string host = hostBuffer();
      copy(/*toDevice=*/false, result, host);
      if (coin()) {
        // The host reads the result in the same iteration, and keeps it.
        std::string value = "%r" + std::to_string(counter++);
        line(value + " = memref.load " + host + "[%c0] : memref<16xf32>");
        line("memref.store " + value + ", " + hostBuffer() +
             "[%c1] : memref<16xf32>");
      }
      --depth;
      line("}");
      dealloc(buffer, "memref<16xf32>");
      dealloc(result, "memref<16xf32>");
      return;
    }
    std::string kernel = kKernelNames[uniform(0, lowerable ? 5 : 6)];
    dispatch(kernel, buffer, deviceBuffer());
    if (coin()) {
      std::string result = hostBuffer();
      copy(/*toDevice=*/false, deviceBuffer(), result);
      line("%l" + std::to_string(counter++) + " = memref.load " + result +
           "[%c0] : memref<16xf32>");
    }
    if (uniform(0, 3) == 0)
      statements(1, /*nesting=*/2);
    --depth;
    line("}");
    dealloc(buffer, "memref<16xf32>");
    dealloc("%o" + id, "memref<16xf32>");
  }

  /// The body of a streaming loop that branches, on the function's i1
  /// argument or on the parity of the induction variable: the fill in one
  /// branch (its kernel with it, another kernel in the other branch), in
  /// both branches from different sources (the kernel after them), or
  /// before the branch (which picks the kernel).
  void branchyStreamingBody(const std::string &id, const std::string &buffer) {
    std::string condition = "%c";
    if (coin()) {
      line("%q" + id + " = arith.remui %i" + id + ", %c3 : index");
      condition = "%p" + id;
      line(condition + " = arith.cmpi eq, %q" + id + ", %c0 : index");
    }
    ++numIfs;
    std::string kernel = kKernelNames[uniform(0, lowerable ? 5 : 6)];
    std::string other = kKernelNames[uniform(0, lowerable ? 5 : 6)];
    switch (uniform(0, 2)) {
    case 0:
      line("scf.if " + condition + " {");
      ++depth;
      fillThroughView(id, buffer);
      dispatch(kernel, buffer, deviceBuffer());
      --depth;
      line("} else {");
      ++depth;
      dispatch(other, deviceBuffer(), deviceBuffer());
      --depth;
      line("}");
      break;
    case 1:
      line("scf.if " + condition + " {");
      ++depth;
      fillThroughView(id, buffer);
      --depth;
      line("} else {");
      ++depth;
      copy(/*toDevice=*/true, hostBuffer(), buffer);
      --depth;
      line("}");
      dispatch(kernel, buffer, deviceBuffer());
      break;
    default:
      fillThroughView(id, buffer);
      line("scf.if " + condition + " {");
      ++depth;
      dispatch(kernel, buffer, deviceBuffer());
      --depth;
      line("} else {");
      ++depth;
      dispatch(other, buffer, deviceBuffer());
      --depth;
      line("}");
      break;
    }
  }

  std::function<uint64_t()> &draw;
  std::string out;
  unsigned depth = 0;
  unsigned counter = 0;
  unsigned numIfs = 0;
  bool copyFree = false;
  bool lowerable = true;
  /// Whether the host code is upstream gpu dialect.
  bool gpu = false;
};

} // namespace

std::string ProgramGenerator::generate(Form form) {
  return Writer(draw, form == Form::UpstreamGPU).generate();
}
