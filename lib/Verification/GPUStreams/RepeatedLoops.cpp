//===- RepeatedLoops.cpp - Loop runs that repeat an earlier run, run once -===//
//
// Part of --vyre-verify-gpu-streams. Each scf.for body runs twice in a trace,
// so a nest of d loops would hold 2^d bodies. A run of a loop runs one
// iteration instead when it repeats an earlier run of the same loop that ran
// in full in this trace:
//  - the loop carries no token and no memref through its iter_args, and each
//    `!llvm.ptr` it carries to the next iteration is an event the iteration
//    makes (mgpuEventCreate) or the one it was given, so every iteration of a
//    run sees the same values from outside;
//  - nothing inside it chooses per execution (no scf.if, no
//    scf.index_switch), so every iteration takes the same path;
//  - the values from outside that the trace follows (tokens, memrefs,
//    pointers), the loop's inits among them, hold the same streams, events
//    and buffers as in the earlier run, up to renaming the ones made anew
//    since, and the same of those streams and events are destroyed already
//    (the entry signature).
// What happens between two iterations of a run (a race between them, a
// stream or event misused by the second) depends only on the ops between
// them and on those values, so the earlier run found it. The second
// iteration's ops meet the ops outside the loop as the first iteration's do,
// provided each op's node in the second iteration is ordered after its node
// in the first (an earlier op unordered with the second is unordered with
// the first, and a later op ordered after the last iteration's node is
// ordered after the others). The interpreter records those pairs in the runs
// in full; the caller checks them on the finished trace and builds it again
// without the shortcut when one is not ordered. docs/Verification.md gives
// the argument in full.
//
//===----------------------------------------------------------------------===//

#include "ContiguousAlias.h"
#include "TraceInterpreter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

/// Whether the trace follows values of `type`.
static bool isFollowed(Type type) {
  return isa<gpu::AsyncTokenType, BaseMemRefType, LLVM::LLVMPointerType>(type);
}

namespace {
/// Whether a value that iteration `loop`'s iter_arg `position` carries to
/// the next iteration is always an event that the iteration makes
/// (mgpuEventCreate) or the iter_arg itself, through loops inside the body
/// (their results and iter_args hold their inits or their yields).
/// `outside` holds the values defined outside the loop that ops inside it
/// use: every value judged is one (an operand of a yield or of a loop).
class IterationEvents {
public:
  IterationEvents(scf::ForOp loop, unsigned position,
                  const DenseSet<Value> &outside)
      : loop(loop), position(position), outside(outside) {}

  bool holds(Value value) {
    // Each value is judged once: the conditions are all conjunctions, so a
    // value that flows back into itself (an inner iter_arg), first assumed
    // to hold, only lets through what a false condition elsewhere rejects
    // anyway.
    auto [entry, inserted] = known.try_emplace(value, true);
    if (!inserted)
      return entry->second;
    bool result = judge(value);
    known[value] = result;
    return result;
  }

private:
  bool judge(Value value) {
    if (value == loop.getRegionIterArgs()[position])
      return true;
    if (outside.contains(value))
      return false;
    auto fromInnerLoop = [&](scf::ForOp inner, unsigned index) {
      return holds(inner.getInitArgs()[index]) &&
             holds(inner.getYieldedValues()[index]);
    };
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      // Another iter_arg of the loop itself holds another value in each
      // iteration (a swap), and its init is no event of the iteration.
      auto inner = dyn_cast<scf::ForOp>(argument.getOwner()->getParentOp());
      if (!inner || inner == loop || argument.getArgNumber() == 0)
        return false;
      return fromInnerLoop(inner, argument.getArgNumber() - 1);
    }
    Operation *definer = value.getDefiningOp();
    if (auto call = dyn_cast<LLVM::CallOp>(definer))
      return call.getCallee() && *call.getCallee() == "mgpuEventCreate";
    if (auto inner = dyn_cast<scf::ForOp>(definer))
      return fromInnerLoop(inner, cast<OpResult>(value).getResultNumber());
    return false;
  }

  scf::ForOp loop;
  unsigned position;
  const DenseSet<Value> &outside;
  DenseMap<Value, bool> known;
};
} // namespace

const TraceInterpreter::OutsideUses &
TraceInterpreter::outsideUses(Operation *regionOp) {
  if (auto it = outsideUsesOf.find(regionOp); it != outsideUsesOf.end())
    return it->second;
  // Built from the region ops directly inside, each once: a value that an op
  // directly inside uses, or that a region op directly inside uses from
  // outside itself, is defined in one of `regionOp`'s blocks or outside it.
  // Walking each loop's whole nest instead would cost a deep nest's square.
  auto definedHere = [&](Value value) {
    Block *block = isa<BlockArgument>(value)
                       ? cast<BlockArgument>(value).getOwner()
                       : value.getDefiningOp()->getBlock();
    return block->getParentOp() == regionOp;
  };
  OutsideUses uses;
  llvm::SetVector<Value> values;
  for (Region &region : regionOp->getRegions())
    for (Block &block : region)
      for (Operation &op : block) {
        if (isa<scf::IfOp, scf::IndexSwitchOp>(op))
          uses.choosesPerExecution = true;
        for (Value operand : op.getOperands()) {
          if (!isFollowed(operand.getType()))
            continue;
          if (!definedHere(operand)) {
            values.insert(operand);
            continue;
          }
          // An identity-layout alias made here holds the buffer of a view
          // it reaches through LLVM values, which no followed operand
          // names: that view counts as used.
          if (Value view = viewBehindAlias(operand); view && !definedHere(view))
            values.insert(view);
        }
        if (op.getNumRegions() == 0)
          continue;
        const OutsideUses &inner = outsideUses(&op);
        uses.choosesPerExecution |= inner.choosesPerExecution;
        for (Value value : inner.values)
          if (!definedHere(value))
            values.insert(value);
      }
  uses.values = values.takeVector();
  return outsideUsesOf[regionOp] = std::move(uses);
}

const SmallVector<Value> *TraceInterpreter::repeatableInputs(scf::ForOp loop) {
  auto [it, inserted] = repeatable.try_emplace(loop);
  if (!inserted)
    return it->second ? &*it->second : nullptr;

  for (Value iterArg : loop.getRegionIterArgs())
    if (isa<gpu::AsyncTokenType, BaseMemRefType>(iterArg.getType()))
      return nullptr;
  const OutsideUses &uses = outsideUses(loop);
  if (uses.choosesPerExecution)
    return nullptr;
  DenseSet<Value> outside(uses.values.begin(), uses.values.end());
  for (auto [position, iterArg] : llvm::enumerate(loop.getRegionIterArgs()))
    if (isa<LLVM::LLVMPointerType>(iterArg.getType()) &&
        !IterationEvents(loop, position, outside)
             .holds(loop.getYieldedValues()[position]))
      return nullptr;

  // The loop's own inits come first: the iter_args hold them in the first
  // iteration and may hold them in the second.
  llvm::SetVector<Value> inputs;
  for (Value init : loop.getInitArgs())
    if (isFollowed(init.getType()))
      inputs.insert(init);
  inputs.insert(uses.values.begin(), uses.values.end());
  it->second = inputs.takeVector();
  return &*it->second;
}

std::vector<int64_t> TraceInterpreter::entrySignature(ArrayRef<Value> inputs) {
  // Streams, events and allocations are numbered in order of first mention;
  // a buffer also keeps its root value, so that two runs match only where
  // each input holds the same value or a new allocation of it. A stream or
  // an event also says whether it is destroyed already: what a use of it
  // reports depends on that.
  enum Tag : int64_t { Unbound = -1, Everything = -2, Stream = -3, Event = -4 };
  DenseMap<unsigned, int64_t> streams, events;
  DenseMap<std::pair<void *, unsigned>, int64_t> buffers;
  auto number = [](auto &map, auto key) {
    return map.try_emplace(key, static_cast<int64_t>(map.size())).first->second;
  };
  std::vector<int64_t> signature;
  auto pushStream = [&](unsigned stream) {
    signature.push_back(number(streams, stream));
    signature.push_back(trace.getStream(stream).destroyer != nullptr);
  };
  for (Value input : inputs) {
    if (isa<gpu::AsyncTokenType>(input.getType())) {
      auto stream = tokenStream.find(input);
      if (stream == tokenStream.end())
        signature.push_back(Unbound);
      else
        pushStream(stream->second);
    } else if (isa<BaseMemRefType>(input.getType())) {
      Buffer buffer = bufferOf(input);
      if (buffer.everything) {
        signature.push_back(Everything);
        continue;
      }
      void *root = buffer.root.getAsOpaquePointer();
      signature.push_back(reinterpret_cast<intptr_t>(root));
      signature.push_back(
          number(buffers, std::make_pair(root, buffer.instance)));
      signature.push_back(buffer.bytes ? buffer.bytes->first : -1);
      signature.push_back(buffer.bytes ? buffer.bytes->second : -1);
    } else if (auto stream = pointerStream.find(input);
               stream != pointerStream.end()) {
      signature.push_back(Stream);
      pushStream(stream->second);
    } else if (auto event = eventOf.find(input); event != eventOf.end()) {
      signature.push_back(Event);
      signature.push_back(number(events, event->second));
      signature.push_back(trace.getExplicitEvent(event->second).destroyer !=
                          nullptr);
    } else {
      signature.push_back(Unbound);
    }
  }
  return signature;
}

void TraceInterpreter::recordIterationChains(unsigned firstStart,
                                             unsigned secondStart,
                                             unsigned end) {
  ArrayRef<Node> nodes = trace.getNodes();
  DenseMap<Operation *, unsigned> lastInFirst;
  for (unsigned index = firstStart; index < secondStart; ++index)
    lastInFirst[nodes[index].op] = index;
  DenseSet<Operation *> seen;
  for (unsigned index = secondStart; index < end; ++index) {
    Operation *op = nodes[index].op;
    if (!seen.insert(op).second)
      continue;
    if (auto first = lastInFirst.find(op); first != lastInFirst.end())
      iterationChains.push_back({first->second, index});
  }
}
