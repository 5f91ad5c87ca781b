//===- CheckTrace.cpp - Races and leaks in one trace ------------*- C++ -*-===//
//
// Nodes are in issue order and every edge points back, so one sweep
// computes everything before each node. Two accesses to buffers that may
// alias, one a write, race when neither node is before the other.
//
//===----------------------------------------------------------------------===//

#include "CheckTrace.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

static std::string describeOp(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "'";
}

namespace {

enum class RootKind { Argument, Fresh, Unknown };

/// Checks one trace, node by node in issue order.
class TraceChecker {
public:
  TraceChecker(FunctionOpInterface function, const Trace &trace,
               unsigned returnNode, Reporter &reporter)
      : function(function), nodes(trace.getNodes()), trace(trace),
        returnNode(returnNode), returnOp(nodes[returnNode].op),
        reporter(reporter) {}

  void check();

private:
  RootKind kindOf(Value root);
  bool isNoAlias(Value argument);
  bool mayAlias(const Buffer &lhs, const Buffer &rhs);
  std::string describeBuffer(const Buffer &lhs, const Buffer &rhs);

  void computeBefore();
  void checkUseBeforeAlloc(unsigned later);
  void checkUseAfterFree(unsigned earlier, unsigned later);
  void checkRaces(unsigned earlier, unsigned later);
  void checkReturn();

  FunctionOpInterface function;
  ArrayRef<Node> nodes;
  const Trace &trace;
  unsigned returnNode;
  Operation *returnOp;
  Reporter &reporter;

  /// For each node, the nodes that happen before it.
  std::vector<llvm::BitVector> before;
  /// Buffers from gpu.alloc async, and where they were made.
  SmallVector<std::pair<Buffer, unsigned>> allocations;
};

} // namespace

RootKind TraceChecker::kindOf(Value root) {
  if (auto argument = dyn_cast<BlockArgument>(root))
    return argument.getOwner() == &function.getFunctionBody().front()
               ? RootKind::Argument
               : RootKind::Unknown;
  if (isa<gpu::AllocOp>(root.getDefiningOp()))
    return RootKind::Fresh;
  auto effects = root.getDefiningOp<MemoryEffectOpInterface>();
  if (effects && effects.getEffectOnValue<MemoryEffects::Allocate>(root))
    return RootKind::Fresh;
  return RootKind::Unknown;
}

bool TraceChecker::isNoAlias(Value argument) {
  auto blockArgument = cast<BlockArgument>(argument);
  return static_cast<bool>(
      function.getArgAttr(blockArgument.getArgNumber(), "llvm.noalias"));
}

bool TraceChecker::mayAlias(const Buffer &lhs, const Buffer &rhs) {
  if (lhs.everything || rhs.everything)
    return true;
  if (lhs.root == rhs.root)
    return lhs.instance == rhs.instance;
  RootKind lhsKind = kindOf(lhs.root), rhsKind = kindOf(rhs.root);
  if (lhsKind == RootKind::Unknown || rhsKind == RootKind::Unknown)
    return true;
  if (lhsKind == RootKind::Fresh || rhsKind == RootKind::Fresh)
    return false;
  return !isNoAlias(lhs.root) && !isNoAlias(rhs.root);
}

std::string TraceChecker::describeBuffer(const Buffer &lhs, const Buffer &rhs) {
  const Buffer &named = lhs.everything ? rhs : lhs;
  if (named.everything)
    return "any buffer";
  if (auto argument = dyn_cast<BlockArgument>(named.root)) {
    if (kindOf(named.root) == RootKind::Argument)
      return "argument #" + std::to_string(argument.getArgNumber());
    return "a buffer";
  }
  return "the buffer of " + describeOp(named.root.getDefiningOp());
}

void TraceChecker::computeBefore() {
  unsigned count = nodes.size();
  before.assign(count, llvm::BitVector(count));
  for (unsigned index = 0; index < count; ++index)
    for (unsigned predecessor : nodes[index].predecessors) {
      before[index] |= before[predecessor];
      before[index].set(predecessor);
    }
}

void TraceChecker::checkUseBeforeAlloc(unsigned later) {
  const Node &second = nodes[later];
  for (const Access &access : second.accesses) {
    if (access.buffer.everything)
      continue;
    for (auto [buffer, allocation] : allocations)
      if (buffer.root == access.buffer.root &&
          buffer.instance == access.buffer.instance &&
          !before[later].test(allocation))
        reporter.report(ProblemKind::UseBeforeAlloc, second.op,
                        nodes[allocation].op, 0,
                        "uses a buffer from 'gpu.alloc async' but is not "
                        "ordered after the alloc",
                        "the alloc");
  }
}

/// `earlier` is before `later`.
void TraceChecker::checkUseAfterFree(unsigned earlier, unsigned later) {
  const Node &first = nodes[earlier], &second = nodes[later];
  if (!first.frees)
    return;
  for (const Access &access : second.accesses)
    if (!access.buffer.everything && access.buffer.root == first.frees->root &&
        access.buffer.instance == first.frees->instance)
      reporter.report(ProblemKind::UseAfterFree, second.op, first.op, 0,
                      "uses a buffer after its 'gpu.dealloc'", "the dealloc");
}

/// `earlier` and `later` are not ordered.
void TraceChecker::checkRaces(unsigned earlier, unsigned later) {
  const Node &first = nodes[earlier], &second = nodes[later];
  for (const Access &lhs : first.accesses)
    for (const Access &rhs : second.accesses) {
      if (!(lhs.write || rhs.write) || !mayAlias(lhs.buffer, rhs.buffer))
        continue;
      std::string where = describeBuffer(lhs.buffer, rhs.buffer);
      if (first.op == second.op)
        reporter.report(ProblemKind::Race, second.op, nullptr, 0,
                        "race on " + where + ": two executions of " +
                            describeOp(second.op) + " are not ordered",
                        "");
      else
        reporter.report(ProblemKind::Race, second.op, first.op, 0,
                        "race on " + where + ": " + describeOp(second.op) +
                            " and the earlier " + describeOp(first.op) +
                            " are not ordered",
                        "the earlier op");
    }
}

/// Work not done by the return, and streams and events left alive.
void TraceChecker::checkReturn() {
  for (unsigned index = 0; index < nodes.size(); ++index)
    if (nodes[index].onDevice &&
        !isa<gpu::WaitOp, LLVM::CallOp>(nodes[index].op) &&
        !before[returnNode].test(index))
      reporter.report(ProblemKind::Unfinished, nodes[index].op, returnOp, 0,
                      "may still be running at the return: no blocking "
                      "gpu.wait synchronizes its stream after it",
                      "the return");

  for (const Stream &stream : trace.getStreams())
    if (!stream.destroyer)
      reporter.report(ProblemKind::StreamLeak, stream.creator, returnOp, 0,
                      "creates a stream that is still alive at the return: "
                      "no blocking gpu.wait destroys it (a join does not "
                      "destroy the streams it waits on)",
                      "the stream is still alive at this return");

  for (const ExplicitEvent &event : trace.getExplicitEvents())
    if (!event.destroyer)
      reporter.report(ProblemKind::EventLeak, event.creator, returnOp, 0,
                      "creates an event that is not destroyed at the return",
                      "the event is still alive at this return");

  for (const CudaEvent &event : trace.getEvents())
    if (!event.destroyed)
      reporter.report(ProblemKind::EventLeak, event.join, event.definer,
                      event.operand,
                      "dependency #" + std::to_string(event.operand) +
                          ": gpu-to-llvm creates an event after the op that "
                          "defines it, and this join does not run to destroy "
                          "it",
                      "the event is created after this op");
}

void TraceChecker::check() {
  computeBefore();
  for (unsigned index = 0; index < nodes.size(); ++index)
    if (nodes[index].allocates)
      allocations.push_back({*nodes[index].allocates, index});

  for (unsigned later = 0; later < nodes.size(); ++later) {
    checkUseBeforeAlloc(later);
    for (unsigned earlier = 0; earlier < later; ++earlier) {
      if (before[later].test(earlier))
        checkUseAfterFree(earlier, later);
      else
        checkRaces(earlier, later);
    }
  }
  checkReturn();
}

void mlir::vyre::gpu_streams::checkTrace(FunctionOpInterface function,
                                         const Trace &trace,
                                         unsigned returnNode,
                                         Reporter &reporter) {
  TraceChecker(function, trace, returnNode, reporter).check();
}
