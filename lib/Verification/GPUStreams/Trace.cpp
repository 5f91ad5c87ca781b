//===- Trace.cpp - One trace of a host function on streams and events -----===//

#include "Trace.h"

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

unsigned Trace::createStream(Operation *creator) {
  streams.push_back({creator, std::nullopt, nullptr});
  return streams.size() - 1;
}

void Trace::recordEventsAfter(Operation *definer, unsigned stream) {
  auto it = eventsAfter.find(definer);
  if (it == eventsAfter.end())
    return;
  for (auto [join, operand] : it->second) {
    // A previous event of this join operand that was never destroyed is
    // lost here; the leak check at the return reports it.
    events.push_back({join, operand, definer, streams[stream].tail, false});
    currentEvent[{join, operand}] = events.size() - 1;
  }
}

CudaEvent *Trace::findCurrentEvent(Operation *join, unsigned operand) {
  auto it = currentEvent.find({join, operand});
  if (it == currentEvent.end())
    return nullptr;
  return &events[it->second];
}

unsigned Trace::addNode(Node node) {
  if (lastHost)
    node.predecessors.push_back(*lastHost);
  nodes.push_back(std::move(node));
  return nodes.size() - 1;
}

unsigned Trace::addDeviceNode(Node node, unsigned stream) {
  node.onDevice = true;
  if (streams[stream].tail)
    node.predecessors.push_back(*streams[stream].tail);
  unsigned index = addNode(std::move(node));
  streams[stream].tail = index;
  return index;
}

unsigned Trace::createExplicitEvent(Operation *creator) {
  explicitEvents.push_back({creator, std::nullopt, nullptr});
  return explicitEvents.size() - 1;
}

unsigned Trace::addHostNode(Node node) {
  unsigned index = addNode(std::move(node));
  lastHost = index;
  return index;
}
