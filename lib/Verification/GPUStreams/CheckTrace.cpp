//===- CheckTrace.cpp - Races and leaks in one trace ------------*- C++ -*-===//
//
// Nodes are in issue order and every edge points back, so one sweep
// computes everything before each node (HappensBefore.h). Two accesses to
// buffers that may alias, one a write, race when neither node is before the
// other. Each node is checked against the earlier nodes that may touch or
// free what it touches, found through an index by buffer, in issue order.
//
//===----------------------------------------------------------------------===//

#include "CheckTrace.h"
#include "ContiguousAlias.h"
#include "GPUWork.h"
#include "HappensBefore.h"
#include "vyre/Analysis/HostBufferAliasing.h"
#include "vyre/Analysis/ViewDisjointness.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

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
               const HappensBefore &before, unsigned returnNode,
               Reporter &reporter)
      : function(function), nodes(trace.getNodes()), trace(trace),
        returnNode(returnNode), returnOp(nodes[returnNode].op),
        reporter(reporter), before(before) {}

  void check();

private:
  RootKind kindOf(Value root);
  bool isNoAlias(Value argument);
  /// The function arguments `root` may be: itself for an argument, the
  /// arguments either side of an `arith.select` may be (views and the
  /// lowering's aliases resolved); none where it may be anything else.
  static std::optional<SmallVector<Value, 2>> argumentsBehind(Value root);
  bool mayAliasArgument(Value lhs, Value rhs);
  bool mayAlias(const Buffer &lhs, const Buffer &rhs);
  std::string describeBuffer(const Buffer &lhs, const Buffer &rhs);

  /// Where an access may meet others: `Wildcard`, any buffer (every
  /// buffer, or one of unknown origin); `SharedArguments`, an argument
  /// without `llvm.noalias` (they may alias each other); otherwise a buffer
  /// of its own (an allocation or a `noalias` argument, one instance).
  enum class CellKind { Wildcard, SharedArguments, Own };
  CellKind cellKindOf(const Buffer &buffer);
  /// The earlier nodes that may touch what `later` touches, or free it,
  /// in issue order; then records `later`'s accesses and frees.
  SmallVector<unsigned> candidatesFor(unsigned later);

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

  const HappensBefore &before;
  using BufferKey = std::pair<void *, unsigned>;
  static BufferKey keyOf(const Buffer &buffer) {
    return {buffer.root.getAsOpaquePointer(), buffer.instance};
  }
  /// Where each buffer from gpu.alloc async was made, in issue order.
  DenseMap<BufferKey, SmallVector<unsigned, 1>> allocations;
  /// The nodes so far that access each buffer of its own, that access an
  /// argument without `noalias`, that access any buffer, that access
  /// anything, and that free each buffer.
  DenseMap<BufferKey, SmallVector<unsigned>> accessingOwn;
  SmallVector<unsigned> accessingSharedArguments, accessingWildcard,
      accessingAny;
  DenseMap<BufferKey, SmallVector<unsigned>> freeing;
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

std::optional<SmallVector<Value, 2>> TraceChecker::argumentsBehind(Value root) {
  return vyre::HostBufferAliasing::getArgumentsBehind(root, rootBehindViews);
}

bool TraceChecker::mayAliasArgument(Value lhs, Value rhs) {
  return lhs == rhs || (!isNoAlias(lhs) && !isNoAlias(rhs));
}

bool TraceChecker::mayAlias(const Buffer &lhs, const Buffer &rhs) {
  if (lhs.everything || rhs.everything)
    return true;
  if (lhs.root == rhs.root)
    return lhs.instance == rhs.instance &&
           !(lhs.bytes && rhs.bytes &&
             (lhs.bytes->second <= rhs.bytes->first ||
              rhs.bytes->second <= lhs.bytes->first));
  RootKind lhsKind = kindOf(lhs.root), rhsKind = kindOf(rhs.root);
  if (lhsKind == RootKind::Unknown || rhsKind == RootKind::Unknown) {
    // A value chosen among arguments by arith.select is one of them: it
    // meets what one of them may meet, and never an allocation.
    std::optional<SmallVector<Value, 2>> lhsArguments =
        argumentsBehind(lhs.root);
    std::optional<SmallVector<Value, 2>> rhsArguments =
        argumentsBehind(rhs.root);
    if ((lhsArguments && rhsKind == RootKind::Fresh) ||
        (rhsArguments && lhsKind == RootKind::Fresh))
      return false;
    if (!lhsArguments || !rhsArguments)
      return true;
    return llvm::any_of(*lhsArguments, [&](Value lhsArgument) {
      return llvm::any_of(*rhsArguments, [&](Value rhsArgument) {
        return mayAliasArgument(lhsArgument, rhsArgument);
      });
    });
  }
  if (lhsKind == RootKind::Fresh || rhsKind == RootKind::Fresh)
    return false;
  return mayAliasArgument(lhs.root, rhs.root);
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

TraceChecker::CellKind TraceChecker::cellKindOf(const Buffer &buffer) {
  if (buffer.everything)
    return CellKind::Wildcard;
  switch (kindOf(buffer.root)) {
  case RootKind::Unknown:
    return CellKind::Wildcard;
  case RootKind::Argument:
    return isNoAlias(buffer.root) ? CellKind::Own : CellKind::SharedArguments;
  case RootKind::Fresh:
    return CellKind::Own;
  }
  llvm_unreachable("every root kind is handled");
}

SmallVector<unsigned> TraceChecker::candidatesFor(unsigned later) {
  const Node &node = nodes[later];
  SmallVector<unsigned> candidates;
  // Every pair mayAlias accepts is here: a wildcard meets everything, an
  // argument without noalias every other one (and wildcards), a buffer of
  // its own only itself (and wildcards).
  bool wildcard = false, sharedArguments = false;
  for (const Access &access : node.accesses) {
    switch (cellKindOf(access.buffer)) {
    case CellKind::Wildcard:
      wildcard = true;
      break;
    case CellKind::SharedArguments:
      sharedArguments = true;
      break;
    case CellKind::Own:
      if (auto it = accessingOwn.find(keyOf(access.buffer));
          it != accessingOwn.end())
        llvm::append_range(candidates, it->second);
      break;
    }
    if (!access.buffer.everything)
      if (auto it = freeing.find(keyOf(access.buffer)); it != freeing.end())
        llvm::append_range(candidates, it->second);
  }
  if (wildcard) {
    llvm::append_range(candidates, accessingAny);
  } else if (!node.accesses.empty()) {
    llvm::append_range(candidates, accessingWildcard);
    if (sharedArguments)
      llvm::append_range(candidates, accessingSharedArguments);
  }
  llvm::sort(candidates);
  candidates.erase(llvm::unique(candidates), candidates.end());

  auto record = [&](SmallVector<unsigned> &list) {
    if (list.empty() || list.back() != later)
      list.push_back(later);
  };
  for (const Access &access : node.accesses) {
    switch (cellKindOf(access.buffer)) {
    case CellKind::Wildcard:
      record(accessingWildcard);
      break;
    case CellKind::SharedArguments:
      record(accessingSharedArguments);
      break;
    case CellKind::Own:
      record(accessingOwn[keyOf(access.buffer)]);
      break;
    }
    record(accessingAny);
  }
  if (node.frees && !node.frees->everything)
    record(freeing[keyOf(*node.frees)]);
  return candidates;
}

void TraceChecker::checkUseBeforeAlloc(unsigned later) {
  const Node &second = nodes[later];
  for (const Access &access : second.accesses) {
    if (access.buffer.everything)
      continue;
    auto it = allocations.find(keyOf(access.buffer));
    if (it == allocations.end())
      continue;
    for (unsigned allocation : it->second)
      if (allocation == later || !before(allocation, later))
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
  // Two ops the author wrote with tokens run as the author ordered them.
  StringLiteral writtenAsync = vyre::VyreDialect::getWrittenAsyncAttrName();
  if (first.op && second.op && first.op->hasAttr(writtenAsync) &&
      second.op->hasAttr(writtenAsync))
    return;
  for (const Access &lhs : first.accesses)
    for (const Access &rhs : second.accesses) {
      if (!(lhs.write || rhs.write) || !mayAlias(lhs.buffer, rhs.buffer) ||
          (lhs.view && rhs.view &&
           vyre::areDisjointViews(lhs.view, rhs.view)))
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
    if (nodes[index].onDevice && !isa<gpu::WaitOp>(nodes[index].op) &&
        (!isa<LLVM::CallOp>(nodes[index].op) ||
         isTileCopyCall(nodes[index].op)) &&
        (index >= returnNode || !before(index, returnNode)))
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
  for (unsigned index = 0; index < nodes.size(); ++index)
    if (nodes[index].allocates && !nodes[index].allocates->everything)
      allocations[keyOf(*nodes[index].allocates)].push_back(index);

  for (unsigned later = 0; later < nodes.size(); ++later) {
    checkUseBeforeAlloc(later);
    for (unsigned earlier : candidatesFor(later)) {
      if (before(earlier, later))
        checkUseAfterFree(earlier, later);
      else
        checkRaces(earlier, later);
    }
  }
  checkReturn();
}

void mlir::vyre::gpu_streams::checkTrace(FunctionOpInterface function,
                                         const Trace &trace,
                                         const HappensBefore &before,
                                         unsigned returnNode,
                                         Reporter &reporter) {
  TraceChecker(function, trace, before, returnNode, reporter).check();
}
