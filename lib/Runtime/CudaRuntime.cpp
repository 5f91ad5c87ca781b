//===- CudaRuntime.cpp - The mgpu* functions on the CUDA driver -*- C++ -*-===//
//
// A small runtime for code lowered by upstream gpu-to-llvm. Streams and
// events come from pools (MgpuStreamsAndEvents.cpp); this file makes their
// driver calls, and those of modules, launches and memory.
//
// The runtime is bound to the primary context of device 0. Every entry point
// that calls the driver first makes that context current in the calling
// thread if it is not (it asks the driver on every call, so code that made
// another context current between two calls gets the primary one back), and
// leaves it current.
//
// A failure prints `vyre runtime: <call> failed: <reason>` and aborts
// (FaultInjection.h), as in the host runtime; VYRE_RUNTIME_FAIL injects one
// before the driver is called.
//
//===----------------------------------------------------------------------===//

#include "DescribedMemory.h"
#include "RuntimeInstance.h"
#include "TileCopy.h"

#include "vyre/Runtime/CudaRuntime.h"
#include "vyre/Runtime/FaultInjection.h"
#include "vyre/Runtime/KernelProfile.h"

#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

using namespace vyre::runtime;

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
  reportFailure(call, std::string(name) + " (" + message + ", CUresult " +
                          std::to_string(static_cast<int>(result)) + ")");
}

#define VYRE_CHECK(call) check((call), #call)

/// Destroying a handle at exit may come after the driver shut down: the
/// handle is gone already.
void checkUnlessDeinitialized(CUresult result, const char *call) {
  if (result != CUDA_ERROR_DEINITIALIZED)
    check(result, call);
}

/// Device 0's primary context, retained on first use.
CUcontext primaryContext() {
  static CUcontext context = [] {
    VYRE_CHECK(cuInit(0));
    CUdevice device;
    VYRE_CHECK(cuDeviceGet(&device, 0));
    CUcontext primary;
    VYRE_CHECK(cuDevicePrimaryCtxRetain(&primary, device));
    return primary;
  }();
  return context;
}

/// Makes the primary context current in the calling thread unless it is
/// already; `call` names the last driver call made. Asked on every call,
/// not cached per thread: the caller may have made another context current
/// since the runtime's last call.
CUresult makePrimaryContextCurrent(const char *&call) {
  CUcontext context = primaryContext();
  CUcontext current = nullptr;
  call = "cuCtxGetCurrent(&current)";
  CUresult result = cuCtxGetCurrent(&current);
  if (result != CUDA_SUCCESS || current == context)
    return result;
  call = "cuCtxSetCurrent(context)";
  return cuCtxSetCurrent(context);
}

/// Makes the primary context current in the calling thread; returns it.
CUcontext ensureContext() {
  const char *call = nullptr;
  check(makePrimaryContextCurrent(call), call);
  return primaryContext();
}

/// The driver calls behind the pooled streams and events.
class CudaDevice final : public DeviceApi {
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

/// Per-op timing for benchmarks. Thread-safe: `enabled` is read once per
/// op, and the pending events and the totals are guarded by `mutex`.
class Profile {
public:
  std::atomic<bool> enabled{false};

  void begin(CUstream stream, CUevent &start) {
    VYRE_CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    VYRE_CHECK(cuEventRecord(start, stream));
  }
  /// `function`: the kernel launched, null for a copy.
  void end(CUstream stream, CUevent start, bool isCopy,
           const void *function = nullptr) {
    CUevent stop;
    VYRE_CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    VYRE_CHECK(cuEventRecord(stop, stream));
    std::lock_guard<std::mutex> lock(mutex);
    pending.push_back({start, stop, isCopy, function});
  }
  /// Collects what is pending, so that kernelProfile() is complete.
  void flush() {
    std::lock_guard<std::mutex> lock(mutex);
    collect();
  }
  /// The totals, with every op ended so far.
  void totals(double *copies, double *kernels, int64_t *copyCount,
              int64_t *kernelCount) {
    std::lock_guard<std::mutex> lock(mutex);
    collect();
    *copies = copyMicros;
    *kernels = kernelMicros;
    *copyCount = numCopies;
    *kernelCount = numKernels;
  }
  void reset() {
    std::lock_guard<std::mutex> lock(mutex);
    collect();
    copyMicros = kernelMicros = 0;
    numCopies = numKernels = 0;
    kernelProfile().reset();
  }

private:
  /// Adds the times of the pending ops to the totals. Needs `mutex`.
  void collect() {
    for (Pending &op : pending) {
      VYRE_CHECK(cuEventSynchronize(op.stop));
      float millis = 0;
      VYRE_CHECK(cuEventElapsedTime(&millis, op.start, op.stop));
      (op.isCopy ? copyMicros : kernelMicros) += millis * 1000.0;
      ++(op.isCopy ? numCopies : numKernels);
      if (!op.isCopy)
        kernelProfile().addLaunch(op.function, millis * 1000.0,
                                  /*measured=*/true);
      VYRE_CHECK(cuEventDestroy(op.start));
      VYRE_CHECK(cuEventDestroy(op.stop));
    }
    pending.clear();
  }

  struct Pending {
    CUevent start, stop;
    bool isCopy;
    const void *function;
  };
  std::mutex mutex;
  std::vector<Pending> pending;
  double copyMicros = 0, kernelMicros = 0;
  int64_t numCopies = 0, numKernels = 0;
};

Profile &profile() {
  static Profile instance;
  return instance;
}

} // namespace

DeviceApi &vyre::runtime::device() {
  static CudaDevice instance;
  return instance;
}

extern "C" {

void *mgpuModuleLoad(void *data, size_t /*sizeInBytes*/) {
  ensureContext();
  // The pools' exit handler is registered after the driver started.
  streamsAndEvents();
  CUmodule module;
  VYRE_CHECK(cuModuleLoadData(&module, data));
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  ensureContext();
  streamsAndEvents();
  CUmodule module;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  VYRE_CHECK(cuModuleLoadDataEx(&module, data, 1, options, values));
  return module;
}

void mgpuModuleUnload(void *module) {
  // Lowered code unloads its module from a global destructor, which may run
  // after the CUDA driver has shut down at exit: the module is gone already.
  const char *call = nullptr;
  CUresult result = makePrimaryContextCurrent(call);
  if (result == CUDA_SUCCESS) {
    call = "cuModuleUnload(module)";
    result = cuModuleUnload(static_cast<CUmodule>(module));
  }
  checkUnlessDeinitialized(result, call);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  ensureContext();
  CUfunction function;
  VYRE_CHECK(
      cuModuleGetFunction(&function, static_cast<CUmodule>(module), name));
  kernelProfile().nameFunction(function, name);
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemoryBytes, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  faultInjection().check(FaultKind::Launch, "mgpuLaunchKernel");
  ensureContext();
  auto cuStream = static_cast<CUstream>(stream);
  streamsAndEvents().countKernelLaunch();
  bool profiled = profile().enabled;
  CUevent start = nullptr;
  if (profiled)
    profile().begin(cuStream, start);
  VYRE_CHECK(cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY,
                            gridZ, blockX, blockY, blockZ, sharedMemoryBytes,
                            cuStream, params, extra));
  if (profiled)
    profile().end(cuStream, start, /*isCopy=*/false, function);
}

void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/, bool isHostShared) {
  faultInjection().check(FaultKind::Alloc, "mgpuMemAlloc");
  ensureContext();
  if (sizeBytes == 0)
    return nullptr;
  CUdeviceptr pointer;
  // `gpu.alloc host_shared`: managed memory, which the host and every
  // stream may use (as upstream's runtime allocates it); cuMemFree frees it.
  if (isHostShared)
    VYRE_CHECK(cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    VYRE_CHECK(cuMemAlloc(&pointer, sizeBytes));
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, void *stream) {
  ensureContext();
  // Work enqueued on the stream before the free may still use the buffer.
  streamsAndEvents().countHostSynchronization();
  VYRE_CHECK(cuStreamSynchronize(static_cast<CUstream>(stream)));
  if (pointer)
    VYRE_CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  faultInjection().check(FaultKind::Memcpy, "mgpuMemcpy");
  ensureContext();
  auto cuStream = static_cast<CUstream>(stream);
  streamsAndEvents().countMemcpy();
  // A zero-byte copy may name the null buffer of a zero-byte allocation; it
  // is counted, not made nor profiled.
  if (sizeBytes == 0)
    return;
  bool profiled = profile().enabled;
  CUevent start = nullptr;
  if (profiled)
    profile().begin(cuStream, start);
  VYRE_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                           reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                           cuStream));
  if (profiled)
    profile().end(cuStream, start, /*isCopy=*/true);
}

void *vyreMemcpy2DAsync(void *dst, int64_t dstPitch, void *src,
                        int64_t srcPitch, int64_t rowBytes, int64_t rows,
                        void *stream) {
  faultInjection().check(FaultKind::Memcpy, "vyreMemcpy2DAsync");
  checkTileCopy(dstPitch, srcPitch, rowBytes, rows);
  ensureContext();
  auto cuStream = static_cast<CUstream>(stream);
  streamsAndEvents().countMemcpy();
  if (rowBytes == 0 || rows == 0)
    return stream;
  bool profiled = profile().enabled;
  CUevent start = nullptr;
  if (profiled)
    profile().begin(cuStream, start);
  CUDA_MEMCPY2D copy = {};
  // Unified addressing: the driver finds out where each pointer lives.
  copy.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(src);
  copy.srcPitch = static_cast<size_t>(srcPitch);
  copy.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  copy.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
  copy.dstPitch = static_cast<size_t>(dstPitch);
  copy.WidthInBytes = static_cast<size_t>(rowBytes);
  copy.Height = static_cast<size_t>(rows);
  VYRE_CHECK(cuMemcpy2DAsync(&copy, cuStream));
  if (profiled)
    profile().end(cuStream, start, /*isCopy=*/true);
  return stream;
}

/// A memref that spans no bytes is not registered (cuMemHostRegister
/// refuses zero bytes): both calls do nothing.
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  DescribedMemory memory =
      getDescribedMemory(rank, descriptor, elementSizeBytes);
  if (memory.bytes == 0)
    return;
  ensureContext();
  VYRE_CHECK(cuMemHostRegister(memory.base, memory.bytes, /*Flags=*/0));
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  DescribedMemory memory =
      getDescribedMemory(rank, descriptor, elementSizeBytes);
  if (memory.bytes == 0)
    return;
  ensureContext();
  VYRE_CHECK(cuMemHostUnregister(memory.base));
}

void *vyreAllocPinnedHost(size_t sizeBytes) {
  if (sizeBytes == 0)
    return nullptr;
  ensureContext();
  void *pointer = nullptr;
  VYRE_CHECK(cuMemAllocHost(&pointer, sizeBytes));
  return pointer;
}

void vyreFreePinnedHost(void *pointer) {
  if (!pointer)
    return;
  ensureContext();
  VYRE_CHECK(cuMemFreeHost(pointer));
}

void vyreProfileEnable(bool enabled) { profile().enabled = enabled; }

void vyreProfileTotals(double *copyMicros, double *kernelMicros,
                       int64_t *numCopies, int64_t *numKernels) {
  profile().totals(copyMicros, kernelMicros, numCopies, numKernels);
}

void vyreProfileReset() { profile().reset(); }

bool vyreProfileWrite(const char *path) {
  profile().flush();
  return writeKernelProfile(kernelProfile(), "cuda", path);
}
}
