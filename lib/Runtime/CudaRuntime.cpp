//===- CudaRuntime.cpp - The mgpu* functions on the CUDA driver -*- C++ -*-===//
//
// A small runtime for code lowered by upstream gpu-to-llvm. It uses the
// device's primary context (device 0), made current on first use in each
// thread. Streams and events come from pools (MgpuStreamsAndEvents.cpp); this
// file makes their driver calls, and those of modules, launches and memory.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInstance.h"

#include "vyre/Runtime/CudaRuntime.h"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace {

/// Aborts with the call's name and CUDA's explanation if `result` is an
/// error.
void check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = "unknown";
  const char *message = "unknown error";
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &message);
  std::fprintf(stderr, "vyre runtime: %s failed: %s (%s, CUresult %d)\n",
               call, name, message, static_cast<int>(result));
  std::fflush(stderr);
  std::abort();
}

#define VYRE_CHECK(call) check((call), #call)

/// Destroying a handle at exit may come after the driver shut down: the
/// handle is gone already.
void checkUnlessDeinitialized(CUresult result, const char *call) {
  if (result != CUDA_ERROR_DEINITIALIZED)
    check(result, call);
}

/// Makes device 0's primary context current in the calling thread; returns
/// it.
CUcontext ensureContext() {
  static CUcontext context = [] {
    VYRE_CHECK(cuInit(0));
    CUdevice device;
    VYRE_CHECK(cuDeviceGet(&device, 0));
    CUcontext primary;
    VYRE_CHECK(cuDevicePrimaryCtxRetain(&primary, device));
    return primary;
  }();
  thread_local bool current = false;
  if (!current) {
    VYRE_CHECK(cuCtxSetCurrent(context));
    current = true;
  }
  return context;
}

/// The driver calls behind the pooled streams and events.
class CudaDevice final : public vyre::runtime::DeviceApi {
public:
  void *enterContext() override { return ensureContext(); }
  void *createStream() override {
    CUstream stream;
    VYRE_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    return stream;
  }
  void destroyStream(void *stream) override {
    checkUnlessDeinitialized(cuStreamDestroy(static_cast<CUstream>(stream)),
                             "cuStreamDestroy(stream)");
  }
  bool isStreamIdle(void *stream) override {
    CUresult result = cuStreamQuery(static_cast<CUstream>(stream));
    if (result == CUDA_ERROR_NOT_READY)
      return false;
    check(result, "cuStreamQuery(stream)");
    return true;
  }
  void synchronizeStream(void *stream) override {
    VYRE_CHECK(cuStreamSynchronize(static_cast<CUstream>(stream)));
  }
  void *createEvent() override {
    CUevent event;
    VYRE_CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    return event;
  }
  void destroyEvent(void *event) override {
    checkUnlessDeinitialized(cuEventDestroy(static_cast<CUevent>(event)),
                             "cuEventDestroy(event)");
  }
  void recordEvent(void *event, void *stream) override {
    VYRE_CHECK(cuEventRecord(static_cast<CUevent>(event),
                             static_cast<CUstream>(stream)));
  }
  void streamWaitEvent(void *stream, void *event) override {
    VYRE_CHECK(cuStreamWaitEvent(static_cast<CUstream>(stream),
                                 static_cast<CUevent>(event), 0));
  }
  void synchronizeEvent(void *event) override {
    VYRE_CHECK(cuEventSynchronize(static_cast<CUevent>(event)));
  }
};

/// Per-op timing for benchmarks.
struct Profile {
  bool enabled = false;
  struct Pending {
    CUevent start, stop;
    bool isCopy;
  };
  std::vector<Pending> pending;
  double copyMicros = 0, kernelMicros = 0;
  int64_t numCopies = 0, numKernels = 0;
  std::mutex mutex;

  void begin(CUstream stream, CUevent &start) {
    VYRE_CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    VYRE_CHECK(cuEventRecord(start, stream));
  }
  void end(CUstream stream, CUevent start, bool isCopy) {
    CUevent stop;
    VYRE_CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    VYRE_CHECK(cuEventRecord(stop, stream));
    std::lock_guard<std::mutex> lock(mutex);
    pending.push_back({start, stop, isCopy});
  }
  void collect() {
    std::lock_guard<std::mutex> lock(mutex);
    for (Pending &op : pending) {
      VYRE_CHECK(cuEventSynchronize(op.stop));
      float millis = 0;
      VYRE_CHECK(cuEventElapsedTime(&millis, op.start, op.stop));
      (op.isCopy ? copyMicros : kernelMicros) += millis * 1000.0;
      ++(op.isCopy ? numCopies : numKernels);
      VYRE_CHECK(cuEventDestroy(op.start));
      VYRE_CHECK(cuEventDestroy(op.stop));
    }
    pending.clear();
  }
};

Profile &profile() {
  static Profile instance;
  return instance;
}

/// The size in bytes of the memory a ranked memref descriptor spans.
size_t describedBytes(int64_t rank, void *descriptor, int64_t elementSize,
                      void **base) {
  // {allocated, aligned, offset, sizes[rank], strides[rank]}
  auto *fields = static_cast<int64_t *>(descriptor);
  auto *aligned = reinterpret_cast<char *>(fields[1]);
  int64_t offset = fields[2];
  int64_t extent = 1;
  for (int64_t dim = 0; dim < rank; ++dim)
    extent += (fields[3 + dim] - 1) * fields[3 + rank + dim];
  *base = aligned + offset * elementSize;
  return static_cast<size_t>(extent * elementSize);
}

} // namespace

vyre::runtime::DeviceApi &vyre::runtime::device() {
  static CudaDevice instance;
  return instance;
}

extern "C" {

void *mgpuModuleLoad(void *data, size_t /*sizeInBytes*/) {
  ensureContext();
  // The pools' exit handler is registered after the driver started.
  vyre::runtime::streamsAndEvents();
  CUmodule module;
  VYRE_CHECK(cuModuleLoadData(&module, data));
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  ensureContext();
  vyre::runtime::streamsAndEvents();
  CUmodule module;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  VYRE_CHECK(cuModuleLoadDataEx(&module, data, 1, options, values));
  return module;
}

void mgpuModuleUnload(void *module) {
  // Lowered code unloads its module from a global destructor, which may run
  // after the CUDA driver has shut down at exit: the module is gone already.
  CUresult result = cuModuleUnload(static_cast<CUmodule>(module));
  if (result != CUDA_ERROR_DEINITIALIZED)
    check(result, "cuModuleUnload(module)");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  ensureContext();
  CUfunction function;
  VYRE_CHECK(
      cuModuleGetFunction(&function, static_cast<CUmodule>(module), name));
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemoryBytes, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  ensureContext();
  auto cuStream = static_cast<CUstream>(stream);
  vyre::runtime::streamsAndEvents().countKernelLaunch();
  CUevent start = nullptr;
  if (profile().enabled)
    profile().begin(cuStream, start);
  VYRE_CHECK(cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY,
                            gridZ, blockX, blockY, blockZ, sharedMemoryBytes,
                            cuStream, params, extra));
  if (profile().enabled)
    profile().end(cuStream, start, /*isCopy=*/false);
}

void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/, bool isHostShared) {
  ensureContext();
  if (isHostShared) {
    std::fprintf(stderr, "vyre runtime: mgpuMemAlloc: host-shared "
                         "allocations are not supported\n");
    std::abort();
  }
  if (sizeBytes == 0)
    return nullptr;
  CUdeviceptr pointer;
  VYRE_CHECK(cuMemAlloc(&pointer, sizeBytes));
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, void *stream) {
  ensureContext();
  // Work enqueued on the stream before the free may still use the buffer.
  vyre::runtime::streamsAndEvents().countHostSynchronization();
  VYRE_CHECK(cuStreamSynchronize(static_cast<CUstream>(stream)));
  if (pointer)
    VYRE_CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  ensureContext();
  auto cuStream = static_cast<CUstream>(stream);
  vyre::runtime::streamsAndEvents().countMemcpy();
  CUevent start = nullptr;
  if (profile().enabled)
    profile().begin(cuStream, start);
  VYRE_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                           reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                           cuStream));
  if (profile().enabled)
    profile().end(cuStream, start, /*isCopy=*/true);
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  ensureContext();
  void *base;
  size_t bytes = describedBytes(rank, descriptor, elementSizeBytes, &base);
  VYRE_CHECK(cuMemHostRegister(base, bytes, /*Flags=*/0));
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  ensureContext();
  void *base;
  describedBytes(rank, descriptor, elementSizeBytes, &base);
  VYRE_CHECK(cuMemHostUnregister(base));
}

void *vyreAllocPinnedHost(size_t sizeBytes) {
  ensureContext();
  void *pointer = nullptr;
  VYRE_CHECK(cuMemAllocHost(&pointer, sizeBytes));
  return pointer;
}

void vyreFreePinnedHost(void *pointer) {
  ensureContext();
  VYRE_CHECK(cuMemFreeHost(pointer));
}

void vyreProfileEnable(bool enabled) { profile().enabled = enabled; }

void vyreProfileTotals(double *copyMicros, double *kernelMicros,
                       int64_t *numCopies, int64_t *numKernels) {
  profile().collect();
  *copyMicros = profile().copyMicros;
  *kernelMicros = profile().kernelMicros;
  *numCopies = profile().numCopies;
  *numKernels = profile().numKernels;
}

void vyreProfileReset() {
  profile().collect();
  profile().copyMicros = profile().kernelMicros = 0;
  profile().numCopies = profile().numKernels = 0;
}
}
