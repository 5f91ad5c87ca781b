//===- HostRuntime.cpp - The mgpu* functions without a GPU ------*- C++ -*-===//
//
// libvyre_host_runtime.so runs lowered host code on a machine without a GPU,
// so that tests can execute what upstream made of vyre's output:
// - device memory is host memory, and a memcpy copies at once;
// - a kernel launch is counted, not run (its module is never compiled);
// - a stream or an event is a token with no work behind it.
// The streams and events go through the same pools and counts as in the CUDA
// runtime (MgpuStreamsAndEvents.cpp), so a test can count what a program
// created, reused and waited for. Values computed by kernels are not
// produced; values moved by copies are.
//
// It fails as the CUDA runtime does (FaultInjection.h): a failed allocation,
// or a fault injected with VYRE_RUNTIME_FAIL, prints the call and the reason,
// then aborts. Host registration is checked as CUDA checks it: registering
// memory twice, or unregistering memory not registered, fails.
//
//===----------------------------------------------------------------------===//

#include "DescribedMemory.h"
#include "RuntimeInstance.h"
#include "TileCopy.h"

#include "vyre/Runtime/CudaRuntime.h"
#include "vyre/Runtime/FaultInjection.h"
#include "vyre/Runtime/KernelProfile.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

using namespace vyre::runtime;

namespace {

/// Streams and events are distinct heap addresses; all work is already done.
class HostDevice final : public DeviceApi {
public:
  void *enterContext() override { return this; }
  void *createStream() override { return new char('s'); }
  void destroyStream(void *stream) override {
    delete static_cast<char *>(stream);
  }
  bool isStreamIdle(void *) override { return true; }
  void synchronizeStream(void *) override {}
  void *createEvent() override { return new char('e'); }
  void destroyEvent(void *event) override { delete static_cast<char *>(event); }
  void recordEvent(void *, void *) override {}
  void streamWaitEvent(void *, void *) override {}
  void synchronizeEvent(void *) override {}
};

/// Kernels launched and memcpys while profiling was on.
struct HostProfile {
  std::atomic<bool> enabled{false};
  std::atomic<int64_t> copies{0}, kernels{0};
};

HostProfile &profile() {
  static HostProfile instance;
  return instance;
}

/// The host memory registered (gpu.host_register) and not yet unregistered:
/// its first byte and size.
class HostRegistrations {
public:
  void add(const char *call, DescribedMemory memory) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!registered.emplace(memory.base, memory.bytes).second)
      reportFailure(call, "memory at " + describe(memory.base) +
                              " is already registered");
  }
  void remove(const char *call, DescribedMemory memory) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!registered.erase(memory.base))
      reportFailure(call, "memory at " + describe(memory.base) +
                              " is not registered");
  }

private:
  static std::string describe(void *pointer) {
    char text[32];
    std::snprintf(text, sizeof(text), "%p", pointer);
    return text;
  }

  std::mutex mutex;
  std::map<void *, size_t> registered;
};

HostRegistrations &registrations() {
  static HostRegistrations instance;
  return instance;
}

} // namespace

DeviceApi &vyre::runtime::device() {
  static HostDevice instance;
  return instance;
}

extern "C" {

void *mgpuModuleLoad(void *data, size_t /*sizeInBytes*/) {
  streamsAndEvents();
  return data;
}

void *mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  streamsAndEvents();
  return data;
}

void mgpuModuleUnload(void * /*module*/) {}

void *mgpuModuleGetFunction(void * /*module*/, const char *name) {
  kernelProfile().nameFunction(name, name);
  return const_cast<char *>(name);
}

void mgpuLaunchKernel(void *function, intptr_t, intptr_t, intptr_t, intptr_t,
                      intptr_t, intptr_t, int32_t, void * /*stream*/,
                      void ** /*params*/, void ** /*extra*/, size_t) {
  faultInjection().check(FaultKind::Launch, "mgpuLaunchKernel");
  streamsAndEvents().countKernelLaunch();
  if (profile().enabled) {
    ++profile().kernels;
    // Counted, not run: no time to give.
    kernelProfile().addLaunch(function, 0, /*measured=*/false);
  }
}

/// Zero-filled host memory; null for zero bytes, as in the CUDA runtime.
/// Host memory is host-shared already.
void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/,
                   bool /*isHostShared*/) {
  faultInjection().check(FaultKind::Alloc, "mgpuMemAlloc");
  if (sizeBytes == 0)
    return nullptr;
  void *pointer = std::calloc(1, static_cast<size_t>(sizeBytes));
  if (!pointer)
    reportFailure("mgpuMemAlloc", "out of host memory (" +
                                      std::to_string(sizeBytes) + " bytes)");
  return pointer;
}

void mgpuMemFree(void *pointer, void * /*stream*/) {
  streamsAndEvents().countHostSynchronization();
  std::free(pointer);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void * /*stream*/) {
  faultInjection().check(FaultKind::Memcpy, "mgpuMemcpy");
  streamsAndEvents().countMemcpy();
  // A zero-byte copy may name the null buffer of a zero-byte allocation. As
  // in the CUDA runtime, it is not profiled.
  if (sizeBytes == 0)
    return;
  if (profile().enabled)
    ++profile().copies;
  std::memmove(dst, src, sizeBytes);
}

void *vyreMemcpy2DAsync(void *dst, int64_t dstPitch, void *src,
                        int64_t srcPitch, int64_t rowBytes, int64_t rows,
                        void *stream) {
  faultInjection().check(FaultKind::Memcpy, "vyreMemcpy2DAsync");
  checkTileCopy(dstPitch, srcPitch, rowBytes, rows);
  streamsAndEvents().countMemcpy();
  if (rowBytes == 0 || rows == 0)
    return stream;
  if (profile().enabled)
    ++profile().copies;
  for (int64_t row = 0; row < rows; ++row)
    std::memmove(static_cast<char *>(dst) + row * dstPitch,
                 static_cast<const char *>(src) + row * srcPitch,
                 static_cast<size_t>(rowBytes));
  return stream;
}

/// A memref that spans no bytes is not registered: both calls do nothing.
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  DescribedMemory memory =
      getDescribedMemory(rank, descriptor, elementSizeBytes);
  if (memory.bytes != 0)
    registrations().add("mgpuMemHostRegisterMemRef", memory);
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  DescribedMemory memory =
      getDescribedMemory(rank, descriptor, elementSizeBytes);
  if (memory.bytes != 0)
    registrations().remove("mgpuMemHostUnregisterMemRef", memory);
}

void *vyreAllocPinnedHost(size_t sizeBytes) {
  if (sizeBytes == 0)
    return nullptr;
  void *pointer = std::calloc(1, sizeBytes);
  if (!pointer)
    reportFailure("vyreAllocPinnedHost", "out of host memory (" +
                                             std::to_string(sizeBytes) +
                                             " bytes)");
  return pointer;
}

void vyreFreePinnedHost(void *pointer) { std::free(pointer); }

void vyreProfileEnable(bool enabled) { profile().enabled = enabled; }

void vyreProfileTotals(double *copyMicros, double *kernelMicros,
                       int64_t *numCopies, int64_t *numKernels) {
  *copyMicros = *kernelMicros = 0;
  *numCopies = profile().copies;
  *numKernels = profile().kernels;
}

void vyreProfileReset() {
  profile().copies = 0;
  profile().kernels = 0;
  kernelProfile().reset();
}

bool vyreProfileWrite(const char *path) {
  return writeKernelProfile(kernelProfile(), "host", path);
}
}
