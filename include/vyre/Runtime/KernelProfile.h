//===- KernelProfile.h - Kernel times per kernel, for a profile file -*- C++ -*-===//
//
// While profiling is on (vyreProfileEnable), each runtime adds every kernel
// launch here under the kernel's name (the name lowered code asked
// mgpuModuleGetFunction for), with its time where the runtime measures it:
// the CUDA runtime times each launch with events on its stream; the host
// runtime runs no kernel and measures nothing. vyreProfileWrite writes the
// result as a profile file, which --vyre-apply-profile reads back into
// `vyre.cost_us` for a second compile.
//
// The file is JSON:
//   {"vyre_profile": 1, "runtime": "cuda",
//    "kernels": [{"name": "scale", "launches": 8, "mean_us": 12.5}, ...]}
// with "mean_us" absent for a kernel whose launches were not timed.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_RUNTIME_KERNELPROFILE_H
#define VYRE_RUNTIME_KERNELPROFILE_H

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace vyre::runtime {

/// Launches and summed times per kernel name. Every member may be called
/// from several threads at once.
class KernelProfile {
public:
  /// Remembers that `function` (an mgpuModuleGetFunction result) is the
  /// kernel `name`.
  void nameFunction(const void *function, const char *name);
  /// Adds one launch of `function`, which took `micros` if `measured`.
  void addLaunch(const void *function, double micros, bool measured);
  /// Forgets the launches (not the names).
  void reset();
  /// The profile as JSON, `runtime` naming the runtime that measured it.
  std::string toJSON(const char *runtime) const;

private:
  struct Entry {
    int64_t launches = 0;
    double micros = 0;
    bool measured = true;
  };
  mutable std::mutex mutex;
  std::map<const void *, std::string> names;
  std::map<std::string, Entry> entries;
};

/// The process's profile.
KernelProfile &kernelProfile();

/// Writes `profile.toJSON(runtime)` to `path`; false if it cannot.
bool writeKernelProfile(const KernelProfile &profile, const char *runtime,
                        const char *path);

} // namespace vyre::runtime

#endif // VYRE_RUNTIME_KERNELPROFILE_H
