//===- HandlePool.cpp - A bounded, thread-safe pool of driver handles -----===//

#include "vyre/Runtime/HandlePool.h"

#include <utility>

using namespace vyre::runtime;

HandlePool::HandlePool(HandleDriver driver, size_t capacity)
    : driver(std::move(driver)), maxIdle(capacity) {}

void *HandlePool::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (idle.empty())
      reclaimRetiring();
    if (!idle.empty()) {
      void *handle = idle.back();
      idle.pop_back();
      ++tally.reused;
      return handle;
    }
    ++tally.created;
  }
  // The driver call runs unlocked: other threads need not wait for it.
  return driver.create();
}

void HandlePool::reclaimRetiring() {
  for (size_t i = 0; i < retiring.size();) {
    if (!driver.isIdle(retiring[i])) {
      ++i;
      continue;
    }
    idle.push_back(retiring[i]);
    retiring[i] = retiring.back();
    retiring.pop_back();
  }
}

void HandlePool::release(void *handle) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (idle.size() + retiring.size() < maxIdle) {
      // A handle with work pending is kept aside: the next user must not
      // inherit it, and the host does not wait for it.
      bool busy = driver.isIdle && !driver.isIdle(handle);
      (busy ? retiring : idle).push_back(handle);
      tally.retiredBusy += busy;
      return;
    }
    ++tally.destroyed;
  }
  // The driver frees a handle destroyed with work pending once it is done.
  driver.destroy(handle);
}

void HandlePool::drain() {
  std::vector<void *> handles, busy;
  {
    std::lock_guard<std::mutex> lock(mutex);
    handles.swap(idle);
    busy.swap(retiring);
    tally.destroyed += static_cast<int64_t>(handles.size() + busy.size());
  }
  for (void *handle : busy) {
    driver.waitIdle(handle);
    driver.destroy(handle);
  }
  for (void *handle : handles)
    driver.destroy(handle);
}

size_t HandlePool::idleCount() const {
  std::lock_guard<std::mutex> lock(mutex);
  return idle.size() + retiring.size();
}

PoolCounts HandlePool::counts() const {
  std::lock_guard<std::mutex> lock(mutex);
  return tally;
}
