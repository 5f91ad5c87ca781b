//===- CudaRuntime.h - The mgpu* functions lowered code calls ---*- C++ -*-===//
//
// Upstream gpu-to-llvm lowers gpu dialect ops to calls of `mgpu*` functions;
// Debian's MLIR ships no library that defines them. vyre has two that do:
// libvyre_cuda_runtime.so, on the CUDA driver API, and
// libvyre_host_runtime.so, which runs lowered host code without a GPU (see
// HostRuntime.cpp). Both fail the same way (FaultInjection.h): one line,
// `vyre runtime: <call> failed: <reason>`, on stderr, then abort. In the CUDA
// runtime every CUDA call is checked, and the reason is CUDA's error name and
// string; the host runtime fails when host memory runs out. For tests,
// VYRE_RUNTIME_FAIL makes a chosen allocation, stream or event creation,
// memcpy or launch fail that way.
//
// The CUDA runtime is bound to device 0's primary context: each call makes
// it current in the calling thread if it is not. Every function may be called
// from several threads at once; the counts and profile totals stay exact.
//
// The signatures are read off the LLVM IR that upstream LLVM 22 emits.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_RUNTIME_CUDARUNTIME_H
#define VYRE_RUNTIME_CUDARUNTIME_H

#include "vyre/Runtime/RuntimeStats.h"

#include <cstddef>
#include <cstdint>

extern "C" {

// Modules and kernels.
void *mgpuModuleLoad(void *data, size_t sizeInBytes);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemoryBytes, void *stream,
                      void **params, void **extra, size_t paramsCount);

// Streams and events. Create takes an idle handle from the calling thread's
// context's pool, or creates one; destroy gives it back (a stream once it has
// no work left), so from a function's second call on, joins cost no driver
// allocation. The pools keep at most VYRE_RUNTIME_POOL_CAPACITY (256) idle
// handles of each kind per context, and are drained at exit; a malformed
// value aborts when the runtime starts (RuntimeEnvironment.h).
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate();
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);

// Memory. Allocation is synchronous (cuMemAlloc): a buffer is usable on any
// stream once mgpuMemAlloc returns. A free waits for its stream first. A
// zero-byte allocation returns null (freeing null does nothing), and a
// zero-byte memcpy copies nothing (it is counted, but not profiled).
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
/// A 2-D tile copy, either direction, on `stream`: `rows` rows of `rowBytes`
/// bytes each, the first at `dst` and `src`, the next ones `dstPitch` and
/// `srcPitch` bytes further (cuMemcpy2DAsync; the driver tells host from
/// device memory by address). --convert-vyre-to-gpu emits it for a copy of
/// a strided view, which gpu.memcpy cannot express. It returns `stream`, so
/// that lowered code can name the point after the copy on it. A pitch
/// smaller than a row is an error; a copy of no bytes is counted, not made.
void *vyreMemcpy2DAsync(void *dst, int64_t dstPitch, void *src,
                        int64_t srcPitch, int64_t rowBytes, int64_t rows,
                        void *stream);
/// gpu.host_register: page-locks the memory of a memref descriptor. A memref
/// with no elements spans no memory: registering and unregistering it do
/// nothing.
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes);

// For drivers and benchmarks (not called by lowered code).

/// Page-locked host memory, zero-filled; null for zero bytes.
void *vyreAllocPinnedHost(size_t sizeBytes);
void vyreFreePinnedHost(void *pointer);
/// When profiling is on, every memcpy and kernel launch is timed with events
/// on its stream; the totals (in microseconds) accumulate until reset.
void vyreProfileEnable(bool enabled);
void vyreProfileTotals(double *copyMicros, double *kernelMicros,
                       int64_t *numCopies, int64_t *numKernels);
void vyreProfileReset();
/// Writes the kernel launches profiled so far, per kernel name, as a
/// profile file for --vyre-apply-profile (KernelProfile.h); returns false
/// if the file cannot be written. The host runtime times no kernel: its
/// file has launch counts only.
bool vyreProfileWrite(const char *path);
/// Counts of driver streams and events created, reused from the pools and
/// destroyed, host synchronizations, launches and memcpys, since the runtime
/// started (subtract two reads to count a call). VYRE_RUNTIME_STATS=1 prints
/// them to stderr at exit.
void vyreRuntimeStatsRead(VyreRuntimeStats *stats);
}

#endif // VYRE_RUNTIME_CUDARUNTIME_H
