//===- DeviceQueues.cpp - Streams of queued device work ---------*- C++ -*-===//

#include "DeviceQueues.h"

using namespace mlir;
using namespace mlir::vyre::test;

unsigned DeviceQueues::createStream() {
  streams.emplace_back();
  return streams.size() - 1;
}

void DeviceQueues::enqueue(unsigned stream, Operation *op, Work work) {
  streams[stream].queue.push_back({op, std::move(work), std::nullopt});
  ++streams[stream].enqueued;
}

void DeviceQueues::enqueueWait(unsigned stream, Operation *op,
                               StreamPosition position) {
  streams[stream].queue.push_back({op, nullptr, position});
  ++streams[stream].enqueued;
}

bool DeviceQueues::canRunNext(unsigned stream) const {
  const Stream &queue = streams[stream];
  if (queue.queue.empty())
    return false;
  const Item &next = queue.queue.front();
  return !next.waitsFor || isDone(*next.waitsFor);
}

LogicalResult DeviceQueues::runNext(unsigned stream) {
  Item item = std::move(streams[stream].queue.front());
  streams[stream].queue.pop_front();
  ++streams[stream].done;
  return item.work ? item.work() : success();
}

LogicalResult DeviceQueues::runNeeded(StreamPosition position) {
  while (!isDone(position)) {
    const Item &next = streams[position.stream].queue.front();
    if (next.waitsFor && !isDone(*next.waitsFor) &&
        failed(runNeeded(*next.waitsFor)))
      return failure();
    if (failed(runNext(position.stream)))
      return failure();
  }
  return success();
}

LogicalResult DeviceQueues::runAll() {
  bool ran = true;
  while (ran) {
    ran = false;
    for (unsigned stream = 0; stream < streams.size(); ++stream)
      while (canRunNext(stream)) {
        if (failed(runNext(stream)))
          return failure();
        ran = true;
      }
  }
  return success();
}

FailureOr<bool> DeviceQueues::runRandomItem() {
  SmallVector<unsigned> runnable;
  for (unsigned stream = 0; stream < streams.size(); ++stream)
    if (canRunNext(stream))
      runnable.push_back(stream);
  if (runnable.empty())
    return false;
  if (failed(runNext(runnable[random() % runnable.size()])))
    return failure();
  return true;
}

LogicalResult DeviceQueues::runUntil(StreamPosition position) {
  switch (interleaving) {
  case Interleaving::Eager:
    if (failed(runAll()))
      return failure();
    break;
  case Interleaving::Lazy:
    break;
  case Interleaving::Random:
    // Unrelated work may run first; whatever is left, the wait runs.
    while (!isDone(position) && random() % 4 != 0) {
      FailureOr<bool> ran = runRandomItem();
      if (failed(ran))
        return failure();
      if (!*ran)
        break;
    }
    break;
  }
  return runNeeded(position);
}

LogicalResult DeviceQueues::afterHostOp() {
  switch (interleaving) {
  case Interleaving::Eager:
    return runAll();
  case Interleaving::Lazy:
    return success();
  case Interleaving::Random:
    while (random() % 2 == 0) {
      FailureOr<bool> ran = runRandomItem();
      if (failed(ran))
        return failure();
      if (!*ran)
        break;
    }
    return success();
  }
  return success();
}

Operation *DeviceQueues::findQueuedWork() const {
  // A wait alone does nothing: it matters only for the work behind it.
  for (const Stream &stream : streams)
    for (const Item &item : stream.queue)
      if (item.work)
        return item.op;
  return nullptr;
}
