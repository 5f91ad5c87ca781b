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
//===----------------------------------------------------------------------===//

#include "RuntimeInstance.h"

#include "vyre/Runtime/CudaRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

/// Streams and events are distinct heap addresses; all work is already done.
class HostDevice final : public vyre::runtime::DeviceApi {
public:
  void *enterContext() override { return this; }
  void *createStream() override { return new char('s'); }
  void destroyStream(void *stream) override { delete static_cast<char *>(stream); }
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
  bool enabled = false;
  int64_t copies = 0, kernels = 0;
};

HostProfile &profile() {
  static HostProfile instance;
  return instance;
}

} // namespace

vyre::runtime::DeviceApi &vyre::runtime::device() {
  static HostDevice instance;
  return instance;
}

extern "C" {

void *mgpuModuleLoad(void *data, size_t /*sizeInBytes*/) {
  vyre::runtime::streamsAndEvents();
  return data;
}

void *mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  vyre::runtime::streamsAndEvents();
  return data;
}

void mgpuModuleUnload(void * /*module*/) {}

void *mgpuModuleGetFunction(void * /*module*/, const char *name) {
  return const_cast<char *>(name);
}

void mgpuLaunchKernel(void * /*function*/, intptr_t, intptr_t, intptr_t,
                      intptr_t, intptr_t, intptr_t, int32_t, void * /*stream*/,
                      void ** /*params*/, void ** /*extra*/, size_t) {
  vyre::runtime::streamsAndEvents().countKernelLaunch();
  profile().kernels += profile().enabled;
}

void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/, bool /*isHostShared*/) {
  return sizeBytes ? std::calloc(1, sizeBytes) : nullptr;
}

void mgpuMemFree(void *pointer, void * /*stream*/) {
  vyre::runtime::streamsAndEvents().countHostSynchronization();
  std::free(pointer);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void * /*stream*/) {
  vyre::runtime::streamsAndEvents().countMemcpy();
  profile().copies += profile().enabled;
  std::memmove(dst, src, sizeBytes);
}

void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t) {}

void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {}

void *vyreAllocPinnedHost(size_t sizeBytes) { return std::calloc(1, sizeBytes); }

void vyreFreePinnedHost(void *pointer) { std::free(pointer); }

void vyreProfileEnable(bool enabled) { profile().enabled = enabled; }

void vyreProfileTotals(double *copyMicros, double *kernelMicros,
                       int64_t *numCopies, int64_t *numKernels) {
  *copyMicros = *kernelMicros = 0;
  *numCopies = profile().copies;
  *numKernels = profile().kernels;
}

void vyreProfileReset() { profile().copies = profile().kernels = 0; }
}
