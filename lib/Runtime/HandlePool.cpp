//===- HandlePool.cpp - A bounded, thread-safe pool of driver handles -----===//

#include "vyre/Runtime/HandlePool.h"

#include <utility>

using namespace vyre::runtime;

HandlePool::HandlePool(HandleDriver driver, size_t capacity)
    : driver(std::move(driver)), maxIdle(capacity) {}

void *HandlePool::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex);
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

bool HandlePool::release(void *handle) {
  // A handle goes back idle: the next user must not inherit pending work.
  bool busy = driver.isIdle && !driver.isIdle(handle);
  if (busy)
    driver.waitIdle(handle);
  {
    std::lock_guard<std::mutex> lock(mutex);
    tally.waitedOnReturn += busy;
    if (idle.size() < maxIdle) {
      idle.push_back(handle);
      return busy;
    }
    ++tally.destroyed;
  }
  driver.destroy(handle);
  return busy;
}

void HandlePool::drain() {
  std::vector<void *> handles;
  {
    std::lock_guard<std::mutex> lock(mutex);
    handles.swap(idle);
    tally.destroyed += static_cast<int64_t>(handles.size());
  }
  for (void *handle : handles)
    driver.destroy(handle);
}

size_t HandlePool::idleCount() const {
  std::lock_guard<std::mutex> lock(mutex);
  return idle.size();
}

PoolCounts HandlePool::counts() const {
  std::lock_guard<std::mutex> lock(mutex);
  return tally;
}
