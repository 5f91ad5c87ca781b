//===- DeviceQueues.h - Streams of queued device work -----------*- C++ -*-===//
//
// Part of the value interpreter (ValueInterpreter.h): CUDA streams as queues
// of device work, events as positions in them, and the interleaving that
// decides when queued work runs. A position (stream, n) is done once the
// stream has run its first n items; a wait item holds its stream until a
// position of another stream is done.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TEST_VERIFICATION_DEVICEQUEUES_H
#define VYRE_TEST_VERIFICATION_DEVICEQUEUES_H

#include "ValueInterpreter.h"

#include "mlir/IR/Operation.h"

#include <deque>
#include <functional>
#include <random>
#include <vector>

namespace mlir::vyre::test {

/// A point in a stream's work: done once the stream has run `count` items.
struct StreamPosition {
  unsigned stream = 0;
  uint64_t count = 0;
};

/// The streams of one run.
class DeviceQueues {
public:
  /// Runs one item of work; fails (with the interpreter's message set) on a
  /// fault.
  using Work = std::function<LogicalResult()>;

  DeviceQueues(Interleaving interleaving, uint64_t seed)
      : interleaving(interleaving), random(seed) {}

  unsigned createStream();
  /// Whether `stream` was destroyed.
  bool isDestroyed(unsigned stream) const { return streams[stream].destroyed; }
  void destroy(unsigned stream) { streams[stream].destroyed = true; }

  /// The position after the work enqueued on `stream` so far.
  StreamPosition tail(unsigned stream) const {
    return {stream, streams[stream].enqueued};
  }

  /// Queues `work`, which `op` enqueued, on `stream`.
  void enqueue(unsigned stream, Operation *op, Work work);
  /// Holds `stream`'s later work until `position` is done; `op` made the
  /// wait.
  void enqueueWait(unsigned stream, Operation *op, StreamPosition position);

  /// Runs work until `position` is done, as the interleaving chooses.
  LogicalResult runUntil(StreamPosition position);

  /// Gives the interleaving a chance to run work after a host op.
  LogicalResult afterHostOp();

  /// The op that enqueued the first work still queued on any stream (waits
  /// aside), or null when none is.
  Operation *findQueuedWork() const;

private:
  struct Item {
    Operation *op = nullptr;
    Work work;
    /// For a wait: the position it waits for.
    std::optional<StreamPosition> waitsFor;
  };
  struct Stream {
    std::deque<Item> queue;
    uint64_t enqueued = 0, done = 0;
    bool destroyed = false;
  };

  bool isDone(StreamPosition position) const {
    return streams[position.stream].done >= position.count;
  }
  bool canRunNext(unsigned stream) const;
  LogicalResult runNext(unsigned stream);
  /// Runs exactly the work `position` needs, first what it waits for.
  LogicalResult runNeeded(StreamPosition position);
  /// Runs every item that can run until none can.
  LogicalResult runAll();
  /// Runs one item that can run, picked at random; false if none can.
  FailureOr<bool> runRandomItem();

  Interleaving interleaving;
  std::mt19937_64 random;
  std::vector<Stream> streams;
};

} // namespace mlir::vyre::test

#endif // VYRE_TEST_VERIFICATION_DEVICEQUEUES_H
