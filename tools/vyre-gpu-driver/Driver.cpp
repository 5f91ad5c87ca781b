//===- Driver.cpp - main() for vyre programs built into executables -*- C++ -*-===//
//
// scripts/build-executable.sh links a lowered vyre function with this driver.
// It fills every buffer with deterministic non-zero data (in pinned host
// memory unless --pageable), calls the function through the expanded memref
// calling convention, and prints a checksum of every buffer afterwards and the
// best wall time over --repeat runs; --profile adds the summed copy and
// kernel times, measured with CUDA events around each op, and the runtime's
// counts (RuntimeStats.h) of the first call and of the --repeat calls after
// it: from the second call on, a pooled runtime creates no streams or events.
//
// --row-hashes prints, after the first call, a hash of every row (the last
// dimension) of every buffer, so that tests can tell which rows moved where.
//
// --alias I=J passes argument I (counting --arg from 0) the buffer of
// argument J < I, of the same shape, instead of a buffer of its own: a call
// whose arguments alias. It is filled, checksummed and row-hashed once, as
// argument J.
//
// --profile-out FILE makes one more call with each kernel launch timed and
// writes the mean time per kernel as a profile file (KernelProfile.h), which
// `vyre-opt --vyre-apply-profile=FILE` reads into the next compile. The host
// runtime runs no kernel: its file has launch counts only.
//
// Usage: PROGRAM --function NAME [--arg f32:256x256 | --arg index:N]...
//                [--repeat N] [--profile] [--profile-out FILE] [--pageable]
//                [--row-hashes] [--alias I=J]...
//
//===----------------------------------------------------------------------===//

#include "vyre/Runtime/CudaRuntime.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Argument {
  bool isBuffer = false;
  std::vector<int64_t> shape;
  int64_t scalar = 0;
  float *data = nullptr;
  int64_t elements = 1;
  /// The argument whose buffer this one passes (--alias), or -1.
  int aliasOf = -1;
};

constexpr const char *kUsage =
    R"(usage: PROGRAM --function NAME [--arg f32:256x256 | --arg index:N]...
               [--repeat N] [--profile] [--profile-out FILE] [--pageable]
               [--row-hashes] [--alias I=J]...
Calls the lowered function NAME of this program on buffers filled with
deterministic data, and prints a checksum of every buffer and the best wall
time of the calls (scripts/run-signature.py prints the --arg list a function
needs).
  --function NAME  the function to call
  --arg TYPE:SHAPE a memref argument (f32:256x256, f64:16, i32:8, ...), in
                   order; --arg index:N an index argument
  --repeat N       calls after the first, timed; prints the best (5)
  --profile        time every copy and kernel with events, and print the
                   runtime's counts of the first call and of the later ones
  --profile-out F  one more call with each launch timed; write the mean time
                   per kernel to F, for vyre-opt --vyre-apply-profile=F
  --pageable       pageable host buffers instead of pinned ones
  --row-hashes     print a hash of every row of every buffer after the first
                   call
  --alias I=J      argument I is argument J's buffer (J < I, same shape)
  --help           print this, and stop
)";

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "vyre-gpu-driver: %s\n", message.c_str());
  std::exit(2);
}

Argument parseArgument(const std::string &spec) {
  Argument argument;
  if (spec.rfind("index:", 0) == 0) {
    argument.scalar = std::strtoll(spec.c_str() + 6, nullptr, 10);
    return argument;
  }
  if (spec.rfind("f32:", 0) != 0)
    fail("argument '" + spec + "' must be f32:DIMxDIM... or index:N");
  argument.isBuffer = true;
  std::string dims = spec.substr(4);
  size_t start = 0;
  while (start <= dims.size()) {
    size_t end = dims.find('x', start);
    if (end == std::string::npos)
      end = dims.size();
    int64_t size = std::strtoll(dims.substr(start, end - start).c_str(),
                                nullptr, 10);
    if (size <= 0)
      fail("argument '" + spec + "' has a dimension that is not positive");
    argument.shape.push_back(size);
    argument.elements *= size;
    start = end + 1;
  }
  return argument;
}

/// Deterministic, non-zero data that differs between buffers.
void fill(Argument &argument, size_t index) {
  for (int64_t i = 0; i < argument.elements; ++i) {
    uint64_t h = (uint64_t(i) + 1) * 2654435761u + index * 97;
    argument.data[i] = 0.5f + float(h % 1000) / 1000.0f;
  }
}

/// FNV-1a over `count` floats, continuing from `hash`.
uint64_t hashFloats(const float *data, int64_t count,
                    uint64_t hash = 1469598103934665603ull) {
  auto *bytes = reinterpret_cast<const unsigned char *>(data);
  for (int64_t i = 0; i < count * 4; ++i)
    hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

uint64_t checksum(const std::vector<Argument> &arguments) {
  uint64_t hash = 1469598103934665603ull;
  for (const Argument &argument : arguments)
    if (argument.isBuffer && argument.aliasOf < 0)
      hash = hashFloats(argument.data, argument.elements, hash);
  return hash;
}

/// `row BUFFER ROW HASH` for every row of every buffer argument.
void printRowHashes(const std::vector<Argument> &arguments) {
  for (size_t index = 0; index < arguments.size(); ++index) {
    const Argument &argument = arguments[index];
    if (!argument.isBuffer || argument.aliasOf >= 0)
      continue;
    int64_t rowLength = argument.shape.back();
    for (int64_t row = 0; row * rowLength < argument.elements; ++row)
      std::printf("row %zu %lld %016llx\n", index, static_cast<long long>(row),
                  static_cast<unsigned long long>(hashFloats(
                      argument.data + row * rowLength, rowLength)));
  }
}

/// The expanded calling convention of a lowered function: per memref
/// (allocated, aligned, offset, sizes..., strides...), per index one value.
/// On x86-64 all are passed as 64-bit integers; unused trailing arguments are
/// ignored by the callee.
constexpr int kMaxWords = 64;
using Entry = void (*)(
#define W int64_t
    W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W,
    W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W, W,
    W, W, W, W, W, W, W, W, W, W, W, W, W, W
#undef W
);

void call(Entry entry, const std::vector<int64_t> &words) {
  int64_t w[kMaxWords] = {};
  std::copy(words.begin(), words.end(), w);
  entry(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10],
        w[11], w[12], w[13], w[14], w[15], w[16], w[17], w[18], w[19], w[20],
        w[21], w[22], w[23], w[24], w[25], w[26], w[27], w[28], w[29], w[30],
        w[31], w[32], w[33], w[34], w[35], w[36], w[37], w[38], w[39], w[40],
        w[41], w[42], w[43], w[44], w[45], w[46], w[47], w[48], w[49], w[50],
        w[51], w[52], w[53], w[54], w[55], w[56], w[57], w[58], w[59], w[60],
        w[61], w[62], w[63]);
}

/// What the command line asks for.
struct Options {
  std::string function;
  std::vector<Argument> arguments;
  int repeat = 5;
  bool profile = false, pageable = false, rowHashes = false;
  std::string profileOut;
  /// --alias I=J, in order.
  std::vector<std::pair<int, int>> aliases;
};

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        fail("missing value after " + flag);
      return argv[++i];
    };
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (flag == "--function")
      options.function = value();
    else if (flag == "--arg")
      options.arguments.push_back(parseArgument(value()));
    else if (flag == "--repeat")
      options.repeat = std::max(1, std::atoi(value().c_str()));
    else if (flag == "--profile")
      options.profile = true;
    else if (flag == "--profile-out")
      options.profileOut = value();
    else if (flag == "--pageable")
      options.pageable = true;
    else if (flag == "--row-hashes")
      options.rowHashes = true;
    else if (flag == "--alias") {
      std::string pair = value();
      int aliased = -1, of = -1;
      char end = 0;
      if (std::sscanf(pair.c_str(), "%d=%d%c", &aliased, &of, &end) != 2)
        fail("--alias takes I=J (argument I passes argument J's buffer), "
             "not '" + pair + "'");
      options.aliases.push_back({aliased, of});
    } else
      fail("unknown flag '" + flag + "' (--help lists the flags)");
  }
  if (options.function.empty())
    fail("--function NAME is required");
  for (auto [aliased, of] : options.aliases) {
    int count = int(options.arguments.size());
    if (aliased < 0 || aliased >= count || of < 0 || of >= aliased)
      fail("--alias " + std::to_string(aliased) + "=" + std::to_string(of) +
           ": I and J must be arguments, with J < I");
    Argument &argument = options.arguments[aliased];
    const Argument &other = options.arguments[of];
    if (!argument.isBuffer || !other.isBuffer ||
        argument.shape != other.shape)
      fail("--alias " + std::to_string(aliased) + "=" + std::to_string(of) +
           ": both must be buffers of one shape");
    argument.aliasOf = other.aliasOf >= 0 ? other.aliasOf : of;
  }
  return options;
}

/// Allocates each buffer argument (pinned unless `pageable`) and returns the
/// words of the expanded calling convention for `arguments`.
std::vector<int64_t> marshal(std::vector<Argument> &arguments, bool pageable) {
  std::vector<int64_t> words;
  for (Argument &argument : arguments) {
    if (!argument.isBuffer) {
      words.push_back(argument.scalar);
      continue;
    }
    size_t bytes = size_t(argument.elements) * sizeof(float);
    if (argument.aliasOf >= 0)
      argument.data = arguments[argument.aliasOf].data;
    else
      argument.data = pageable
                          ? static_cast<float *>(std::malloc(bytes))
                          : static_cast<float *>(vyreAllocPinnedHost(bytes));
    auto address = reinterpret_cast<int64_t>(argument.data);
    words.insert(words.end(), {address, address, 0});
    words.insert(words.end(), argument.shape.begin(), argument.shape.end());
    int64_t stride = 1;
    std::vector<int64_t> strides(argument.shape.size());
    for (size_t d = argument.shape.size(); d-- > 0;) {
      strides[d] = stride;
      stride *= argument.shape[d];
    }
    words.insert(words.end(), strides.begin(), strides.end());
  }
  if (words.size() > size_t(kMaxWords))
    fail("too many arguments for the driver");
  return words;
}

/// Fills every buffer argument afresh.
void refill(std::vector<Argument> &arguments) {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].isBuffer && arguments[i].aliasOf < 0)
      fill(arguments[i], i);
}

/// The best wall time of `repeat` calls, in microseconds.
double bestTime(Entry entry, const std::vector<int64_t> &words,
                std::vector<Argument> &arguments, int repeat) {
  double best = 1e300;
  for (int run = 0; run < repeat; ++run) {
    refill(arguments);
    auto start = std::chrono::steady_clock::now();
    call(entry, words);
    auto stop = std::chrono::steady_clock::now();
    best = std::min(best,
                    std::chrono::duration<double, std::micro>(stop - start)
                        .count());
  }
  return best;
}

/// One more call, with CUDA events around each op; prints the totals.
void printProfile(Entry entry, const std::vector<int64_t> &words,
                  std::vector<Argument> &arguments) {
  refill(arguments);
  vyreProfileReset();
  vyreProfileEnable(true);
  call(entry, words);
  vyreProfileEnable(false);
  double copyMicros, kernelMicros;
  int64_t copies, kernels;
  vyreProfileTotals(&copyMicros, &kernelMicros, &copies, &kernels);
  std::printf("copy_us %.1f\nkernel_us %.1f\ncopies %lld\nkernels %lld\n",
              copyMicros, kernelMicros, static_cast<long long>(copies),
              static_cast<long long>(kernels));
}

/// One more call with each kernel launch timed; writes the profile file.
void writeProfile(Entry entry, const std::vector<int64_t> &words,
                  std::vector<Argument> &arguments, const std::string &path) {
  refill(arguments);
  vyreProfileReset();
  vyreProfileEnable(true);
  call(entry, words);
  vyreProfileEnable(false);
  if (!vyreProfileWrite(path.c_str()))
    fail("cannot write the profile file '" + path + "'");
  std::printf("profile_out %s\n", path.c_str());
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  auto entry =
      reinterpret_cast<Entry>(dlsym(RTLD_DEFAULT, options.function.c_str()));
  if (!entry)
    fail("no function '" + options.function + "' in this executable");
  std::vector<Argument> &arguments = options.arguments;
  std::vector<int64_t> words = marshal(arguments, options.pageable);

  // One run for the checksum (and to load the module and warm up).
  refill(arguments);
  VyreRuntimeStats start, afterFirst, afterLater;
  vyreRuntimeStatsRead(&start);
  call(entry, words);
  vyreRuntimeStatsRead(&afterFirst);
  std::printf("checksum %016llx\n",
              static_cast<unsigned long long>(checksum(arguments)));
  if (options.rowHashes)
    printRowHashes(arguments);

  std::printf("time_us %.1f\n",
              bestTime(entry, words, arguments, options.repeat));
  vyreRuntimeStatsRead(&afterLater);
  if (options.profile) {
    printProfile(entry, words, arguments);
    using vyre::runtime::printRuntimeStats, vyre::runtime::runtimeStatsSince;
    printRuntimeStats(stdout, runtimeStatsSince(start, afterFirst),
                      "first_call_");
    std::printf("later_calls %d\n", options.repeat);
    printRuntimeStats(stdout, runtimeStatsSince(afterFirst, afterLater),
                      "later_calls_");
  }
  if (!options.profileOut.empty())
    writeProfile(entry, words, arguments, options.profileOut);
  std::fflush(stdout);
  return 0;
}
