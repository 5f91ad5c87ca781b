//===- HandlePool.h - A bounded, thread-safe pool of driver handles -*- C++ -*-===//
//
// Upstream's gpu-to-llvm makes every join a new stream and every dependency a
// new event: `mgpuStreamCreate`, `mgpuEventCreate`, ... `mgpuEventDestroy`,
// `mgpuStreamDestroy`. Creating a CUDA stream costs microseconds of driver
// time, so the runtime does not: a destroyed handle goes back to a pool, and
// the next create takes it from there. This file knows nothing of CUDA; a
// `HandleDriver` makes, readies and frees the handles.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_RUNTIME_HANDLEPOOL_H
#define VYRE_RUNTIME_HANDLEPOOL_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace vyre::runtime {

/// What a pool did since its counts were last reset. `created` and
/// `destroyed` are driver calls; `reused` are handles served from the pool.
struct PoolCounts {
  int64_t created = 0;
  int64_t reused = 0;
  int64_t destroyed = 0;
  /// Handles that came back with work pending (kept aside until idle).
  int64_t retiredBusy = 0;
};

/// How a pool makes, checks, waits for and frees one kind of handle.
struct HandleDriver {
  std::function<void *()> create;
  std::function<void(void *)> destroy;
  /// True when the handle has no work pending. Null: always idle.
  std::function<bool(void *)> isIdle;
  /// Blocks until the handle has no work pending (only when draining).
  std::function<void(void *)> waitIdle;
};

/// Released handles of one kind, at most `capacity` of them. `release` keeps
/// a handle, or destroys it when the pool is full; it never waits: a handle
/// with work pending (a stream destroyed before its work is done, which the
/// driver allows) is kept aside until that work is done. `acquire` takes an
/// idle handle, or creates one. Thread-safe.
class HandlePool {
public:
  HandlePool(HandleDriver driver, size_t capacity);
  HandlePool(const HandlePool &) = delete;
  HandlePool &operator=(const HandlePool &) = delete;

  void *acquire();
  void release(void *handle);
  /// Destroys every handle kept, once its work is done (at exit).
  void drain();

  /// Handles kept, idle or with work pending.
  size_t idleCount() const;
  size_t capacity() const { return maxIdle; }
  PoolCounts counts() const;

private:
  /// Moves the handles kept aside whose work is done to `idle`.
  void reclaimRetiring();

  HandleDriver driver;
  size_t maxIdle;
  mutable std::mutex mutex;
  std::vector<void *> idle;
  /// Released with work pending.
  std::vector<void *> retiring;
  PoolCounts tally;
};

} // namespace vyre::runtime

#endif // VYRE_RUNTIME_HANDLEPOOL_H
