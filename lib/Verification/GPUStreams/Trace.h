//===- Trace.h - One trace of a host function on streams and events -------===//
//
// Part of --vyre-verify-gpu-streams: the model of what upstream gpu-to-llvm
// makes of tokens (CUDA streams, the events a join records and destroys, the
// host blocking on a stream) and the trace a host function leaves on it: its
// executed steps in issue order, with the edges of happens-before.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACE_H
#define VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace mlir::vyre::gpu_streams {

/// A buffer: a root value (views resolved) and, for an allocation, which
/// execution of it made the buffer. `everything` stands for any buffer.
struct Buffer {
  bool everything = false;
  Value root;
  unsigned instance = 0;
  /// The bytes of `root` a `memref.view` at a constant offset selects
  /// ([begin, end)): the buffers the lowering carves out of one allocation.
  /// None: any of its bytes.
  std::optional<std::pair<int64_t, int64_t>> bytes;
};

/// The buffer that stands for any buffer.
inline Buffer anyBuffer() {
  Buffer buffer;
  buffer.everything = true;
  return buffer;
}

struct Access {
  Buffer buffer;
  bool write = false;
  /// For a copy, the view of `buffer` it names (through the identity-layout
  /// alias the lowering makes of it): two copies through disjoint views of
  /// one buffer never meet (ViewDisjointness.h).
  Value view;
};

/// One executed step: a host op, device work on a stream, or a point where
/// a stream starts (a join) or the host blocks (a blocking wait).
struct Node {
  Operation *op = nullptr;
  bool onDevice = false;
  SmallVector<Access, 2> accesses;
  SmallVector<unsigned, 4> predecessors;
  /// For a `gpu.alloc async`: the buffer it makes; for a `gpu.dealloc`: the
  /// buffer it frees.
  std::optional<Buffer> allocates, frees;
};

/// A CUDA stream as gpu-to-llvm makes it.
struct Stream {
  Operation *creator = nullptr;
  /// The last device node enqueued on it.
  std::optional<unsigned> tail;
  Operation *destroyer = nullptr;
};

/// A CUDA event: recorded after `definer` for dependency `operand` of the
/// join `join`, and destroyed by that join.
struct CudaEvent {
  Operation *join = nullptr;
  unsigned operand = 0;
  Operation *definer = nullptr;
  std::optional<unsigned> recorded;
  bool destroyed = false;
};

/// A CUDA event the host code creates itself (`mgpuEventCreate`, as
/// --convert-vyre-to-gpu does for the loops it chains on the device).
struct ExplicitEvent {
  Operation *creator = nullptr;
  /// The node it was last recorded after (none: recorded on a stream with
  /// no work, or not recorded).
  std::optional<unsigned> recorded;
  Operation *destroyer = nullptr;
};

/// For each op that defines a traceable join dependency: the joins and
/// operand numbers whose events gpu-to-llvm records right after it.
using EventsAfter =
    llvm::MapVector<Operation *, SmallVector<std::pair<Operation *, unsigned>>>;

/// The steps of one trace, in issue order; every edge points back. A host
/// step comes after the host steps before it, device work after those and
/// after the earlier work of its stream.
class Trace {
public:
  explicit Trace(const EventsAfter &eventsAfter) : eventsAfter(eventsAfter) {}

  /// A new stream made by `creator`; its id.
  unsigned createStream(Operation *creator);

  /// gpu-to-llvm's events recorded right after `definer`, on `stream`.
  void recordEventsAfter(Operation *definer, unsigned stream);

  /// The event last recorded for dependency `operand` of `join`, or null.
  CudaEvent *findCurrentEvent(Operation *join, unsigned operand);

  /// Device work on `stream`: after the host ops before it and the stream's
  /// earlier work.
  unsigned addDeviceNode(Node node, unsigned stream);

  unsigned addHostNode(Node node);

  /// A new explicit event made by `creator`; its id.
  unsigned createExplicitEvent(Operation *creator);
  ExplicitEvent &getExplicitEvent(unsigned id) { return explicitEvents[id]; }
  ArrayRef<ExplicitEvent> getExplicitEvents() const { return explicitEvents; }

  Stream &getStream(unsigned id) { return streams[id]; }
  ArrayRef<Node> getNodes() const { return nodes; }
  ArrayRef<Stream> getStreams() const { return streams; }
  ArrayRef<CudaEvent> getEvents() const { return events; }

private:
  unsigned addNode(Node node);

  const EventsAfter &eventsAfter;
  std::vector<Node> nodes;
  SmallVector<Stream> streams;
  SmallVector<CudaEvent> events;
  SmallVector<ExplicitEvent> explicitEvents;
  DenseMap<std::pair<Operation *, unsigned>, unsigned> currentEvent;
  std::optional<unsigned> lastHost;
};

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACE_H
