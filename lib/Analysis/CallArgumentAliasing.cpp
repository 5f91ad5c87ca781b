//===- CallArgumentAliasing.cpp - Distinct buffers at calls -----*- C++ -*-===//

#include "vyre/Analysis/CallArgumentAliasing.h"

#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::vyre;

using Kind = CallBufferOrigin::Kind;

CallBufferOrigin CallBufferOrigin::of(Value memref) {
  CallBufferOrigin origin;
  Value root = SlotAccessAnalysis::resolveRoot(memref);
  origin.root = root;
  if (auto argument = dyn_cast<BlockArgument>(root)) {
    Block *owner = argument.getOwner();
    if (owner->isEntryBlock() && isa<func::FuncOp>(owner->getParentOp()))
      origin.kind = SlotAccessAnalysis::isNoAliasArgument(argument)
                        ? Kind::NoAliasArgument
                        : Kind::Argument;
    return origin;
  }
  Operation *definer = root.getDefiningOp();
  if (auto global = dyn_cast<memref::GetGlobalOp>(definer)) {
    origin.kind = Kind::Global;
    origin.global = global.getNameAttr().getAttr();
    return origin;
  }
  auto effects = dyn_cast<MemoryEffectOpInterface>(definer);
  if (effects && effects.getEffectOnValue<MemoryEffects::Allocate>(root)) {
    origin.kind = Kind::Allocation;
    return origin;
  }
  origin.unknownSource = definer;
  return origin;
}

/// The least and greatest index a subview selects in one dimension of its
/// source (`size` > 0), or none if they overflow.
static std::optional<std::pair<int64_t, int64_t>>
indexRange(int64_t offset, int64_t size, int64_t stride) {
  std::optional<int64_t> span = llvm::checkedMul(size - 1, stride);
  std::optional<int64_t> last =
      span ? llvm::checkedAdd(offset, *span) : std::nullopt;
  if (!last)
    return std::nullopt;
  return std::make_pair(std::min(offset, *last), std::max(offset, *last));
}

bool mlir::vyre::areDisjointStaticSubviews(Value lhs, Value rhs) {
  auto lhsView = lhs.getDefiningOp<memref::SubViewOp>();
  auto rhsView = rhs.getDefiningOp<memref::SubViewOp>();
  if (!lhsView || !rhsView || lhsView.getSource() != rhsView.getSource())
    return false;
  // Distinct indices of the source must be distinct memory.
  auto sourceType = dyn_cast<MemRefType>(lhsView.getSource().getType());
  if (!sourceType || !sourceType.getLayout().isIdentity())
    return false;
  auto isStatic = [](ArrayRef<int64_t> values) {
    return llvm::none_of(values, ShapedType::isDynamic);
  };
  for (memref::SubViewOp view : {lhsView, rhsView})
    if (!isStatic(view.getStaticOffsets()) ||
        !isStatic(view.getStaticSizes()) || !isStatic(view.getStaticStrides()))
      return false;
  for (unsigned dim = 0, rank = sourceType.getRank(); dim < rank; ++dim) {
    int64_t lhsSize = lhsView.getStaticSizes()[dim];
    int64_t rhsSize = rhsView.getStaticSizes()[dim];
    if (lhsSize == 0 || rhsSize == 0)
      return true;
    std::optional<std::pair<int64_t, int64_t>> lhsRange = indexRange(
        lhsView.getStaticOffsets()[dim], lhsSize,
        lhsView.getStaticStrides()[dim]);
    std::optional<std::pair<int64_t, int64_t>> rhsRange = indexRange(
        rhsView.getStaticOffsets()[dim], rhsSize,
        rhsView.getStaticStrides()[dim]);
    if (!lhsRange || !rhsRange)
      return false;
    if (lhsRange->second < rhsRange->first ||
        rhsRange->second < lhsRange->first)
      return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// What a callee reaches
//===----------------------------------------------------------------------===//

namespace {

/// Whether a memref result comes from what its function knows: a view, a
/// global, an allocation, or what a region op's regions yield.
bool isKnownMemRefResult(OpResult result) {
  Operation *op = result.getOwner();
  if (isa<ViewLikeOpInterface, memref::GetGlobalOp, RegionBranchOpInterface>(
          op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.getEffectOnValue<MemoryEffects::Allocate>(result);
}

struct DirectReach {
  Operation *openReason = nullptr;
  SmallVector<StringAttr, 2> globals;
  /// The module's functions it calls, with the call.
  SmallVector<std::pair<func::FuncOp, Operation *>, 2> callees;
};

DirectReach computeDirectReach(func::FuncOp function,
                               const llvm::StringMap<func::FuncOp> &functions) {
  DirectReach direct;
  auto open = [&](Operation *op) {
    if (!direct.openReason)
      direct.openReason = op;
  };
  function.walk([&](Operation *op) {
    // The function's own blocks take its arguments and its branches'.
    if (op == function.getOperation())
      return;
    if (op->getDialect() && op->getDialect()->getNamespace() == "llvm")
      open(op);
    if (auto global = dyn_cast<memref::GetGlobalOp>(op))
      direct.globals.push_back(global.getNameAttr().getAttr());
    if (auto call = dyn_cast<func::CallOp>(op)) {
      func::FuncOp callee = functions.lookup(call.getCallee());
      if (!callee || callee.isExternal())
        open(op);
      else
        direct.callees.push_back({callee, op});
    } else if (isa<CallOpInterface>(op)) {
      open(op);
    }
    for (OpResult result : op->getResults())
      if (isa<BaseMemRefType>(result.getType()) && !isKnownMemRefResult(result))
        open(op);
    // Region arguments carry what the op passes them; only ops that say
    // so are known to.
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          if (isa<BaseMemRefType>(argument.getType()) &&
              !isa<RegionBranchOpInterface>(op))
            open(op);
  });
  llvm::sort(direct.globals, [](StringAttr lhs, StringAttr rhs) {
    return lhs.getValue() < rhs.getValue();
  });
  direct.globals.erase(llvm::unique(direct.globals), direct.globals.end());
  return direct;
}

} // namespace

CalleeReach::CalleeReach(ModuleOp module) {
  llvm::StringMap<func::FuncOp> functions;
  SmallVector<func::FuncOp> order;
  for (func::FuncOp function : module.getOps<func::FuncOp>()) {
    functions[function.getSymName()] = function;
    if (!function.isExternal())
      order.push_back(function);
  }
  DenseMap<Operation *, DirectReach> direct;
  for (func::FuncOp function : order)
    direct[function] = computeDirectReach(function, functions);
  module.walk([&](Operation *op) {
    if (!isa<memref::ReinterpretCastOp, memref::ExtractStridedMetadataOp,
             memref::ExtractAlignedPointerAsIndexOp>(op))
      return WalkResult::advance();
    baseViewer = op;
    return WalkResult::interrupt();
  });

  // Callees first, without recursion (call chains may be long): a call
  // back into a function still being visited is a cycle, which opens the
  // function that makes it, and so every function on the cycle.
  enum class State { Visiting, Done };
  DenseMap<Operation *, State> state;
  auto merge = [&](Reach &into, func::FuncOp callee, Operation *call) {
    const Reach &from = reach[callee];
    if (from.openReason && !into.openReason)
      into.openReason = call;
    llvm::append_range(into.globals, from.globals);
  };
  for (func::FuncOp start : order) {
    if (state.count(start))
      continue;
    SmallVector<std::pair<func::FuncOp, unsigned>> stack{{start, 0}};
    state[start] = State::Visiting;
    reach[start] = {direct[start].openReason, direct[start].globals};
    while (!stack.empty()) {
      auto &[function, next] = stack.back();
      DirectReach &calls = direct[function];
      if (next < calls.callees.size()) {
        auto [callee, call] = calls.callees[next++];
        auto found = state.find(callee);
        if (found == state.end()) {
          state[callee] = State::Visiting;
          reach[callee] = {direct[callee].openReason, direct[callee].globals};
          stack.push_back({callee, 0});
        } else if (found->second == State::Visiting) {
          Reach &into = reach[function];
          if (!into.openReason)
            into.openReason = call;
        } else {
          merge(reach[function], callee, call);
        }
        continue;
      }
      Reach &done = reach[function];
      llvm::sort(done.globals, [](StringAttr lhs, StringAttr rhs) {
        return lhs.getValue() < rhs.getValue();
      });
      done.globals.erase(llvm::unique(done.globals), done.globals.end());
      state[function] = State::Done;
      func::FuncOp finished = function;
      stack.pop_back();
      if (!stack.empty()) {
        auto &[caller, callerNext] = stack.back();
        merge(reach[caller], finished, direct[caller].callees[callerNext - 1].second);
      }
    }
  }
}

const CalleeReach::Reach *CalleeReach::lookup(func::FuncOp function) const {
  auto found = reach.find(function);
  return found == reach.end() ? nullptr : &found->second;
}

Operation *CalleeReach::getOpenReason(func::FuncOp function) const {
  const Reach *found = lookup(function);
  // A function the analysis has not seen (added later, or external) is
  // open: nothing is known of it.
  return found ? found->openReason : function.getOperation();
}

bool CalleeReach::reachesGlobal(func::FuncOp function, StringAttr global) const {
  const Reach *found = lookup(function);
  return !found || llvm::is_contained(found->globals, global);
}

StringAttr CalleeReach::getAnyReachedGlobal(func::FuncOp function) const {
  const Reach *found = lookup(function);
  return found && !found->globals.empty() ? found->globals.front()
                                          : StringAttr();
}

void CalleeReach::addCopy(func::FuncOp copy, func::FuncOp original) {
  const Reach *found = lookup(original);
  if (found)
    reach[copy] = *found;
}

//===----------------------------------------------------------------------===//
// Distinct buffers at a call
//===----------------------------------------------------------------------===//

namespace {

std::string describeOperand(unsigned index) {
  return "operand " + std::to_string(index);
}

/// Whether a value of `type` holds plain data: no way to reach memory.
bool isPlainData(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return isPlainData(vector.getElementType());
  if (auto complex = dyn_cast<ComplexType>(type))
    return isPlainData(complex.getElementType());
  return isa<IntegerType, IndexType, FloatType>(type);
}

/// Whether the buffers two operands pass may be the same memory.
bool mayBeSameBuffer(const CallBufferOrigin &lhs, Value lhsValue,
                     const CallBufferOrigin &rhs, Value rhsValue,
                     bool slicesAreDistinct) {
  if (lhs.kind == Kind::Unknown || rhs.kind == Kind::Unknown)
    return true;
  auto isOwnBuffer = [](const CallBufferOrigin &origin) {
    return origin.kind == Kind::Allocation ||
           origin.kind == Kind::NoAliasArgument;
  };
  bool sameBuffer;
  if (isOwnBuffer(lhs) || isOwnBuffer(rhs))
    sameBuffer = lhs.root == rhs.root;
  else if (lhs.kind == Kind::Global && rhs.kind == Kind::Global)
    sameBuffer = lhs.global == rhs.global;
  else
    return true; // A caller's argument may be a global or another argument.
  return sameBuffer && !(slicesAreDistinct &&
                         areDisjointStaticSubviews(lhsValue, rhsValue));
}

} // namespace

DistinctCallArguments mlir::vyre::getDistinctCallArguments(
    func::CallOp call, func::FuncOp callee, const CalleeReach &reach) {
  DistinctCallArguments result;
  unsigned numOperands = call->getNumOperands();
  result.distinct.resize(numOperands);
  if (Operation *reason = reach.getOpenReason(callee)) {
    result.whyNot = "@" + callee.getSymName().str() + " may reach memory " +
                    "other than its arguments, its allocations and globals ('" +
                    reason->getName().getStringRef().str() + "')";
    return result;
  }
  SmallVector<unsigned> memrefs;
  SmallVector<CallBufferOrigin> origins(numOperands);
  for (auto [index, operand] : llvm::enumerate(call->getOperands())) {
    if (isa<BaseMemRefType>(operand.getType())) {
      memrefs.push_back(index);
      origins[index] = CallBufferOrigin::of(operand);
    } else if (!isPlainData(operand.getType())) {
      std::string type;
      llvm::raw_string_ostream os(type);
      os << operand.getType();
      result.whyNot = describeOperand(index) + " is of type " + type +
                      ", through which the callee may reach memory";
      return result;
    }
  }
  // A buffer of unknown origin may be any other.
  for (unsigned index : memrefs)
    if (origins[index].kind == Kind::Unknown) {
      Operation *source = origins[index].unknownSource;
      result.whyNot = describeOperand(index) + " comes from " +
                      (source ? "'" + source->getName().getStringRef().str() +
                                    "', a buffer of unknown origin"
                              : std::string("a block argument of a region"));
      return result;
    }
  for (unsigned index : memrefs) {
    const CallBufferOrigin &origin = origins[index];
    std::string whyNot;
    if (origin.kind == Kind::Argument) {
      whyNot = describeOperand(index) +
               " is an argument of the caller that may alias another";
    } else if (origin.kind == Kind::Global &&
               reach.reachesGlobal(callee, origin.global)) {
      whyNot = describeOperand(index) + " is the global @" +
               origin.global.getValue().str() + ", which @" +
               callee.getSymName().str() + " or a function it calls names";
    } else {
      for (unsigned other : memrefs)
        if (other != index &&
            mayBeSameBuffer(origin, call->getOperand(index), origins[other],
                            call->getOperand(other),
                            /*slicesAreDistinct=*/!reach.getBaseViewer())) {
          whyNot = describeOperand(index) + " and " + describeOperand(other) +
                   " may be the same buffer";
          break;
        }
    }
    if (whyNot.empty())
      result.distinct.set(index);
    else if (result.whyNot.empty())
      result.whyNot = std::move(whyNot);
  }
  return result;
}
