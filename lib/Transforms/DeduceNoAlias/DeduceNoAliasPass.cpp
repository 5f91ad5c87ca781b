//===- DeduceNoAliasPass.cpp - llvm.noalias from the calls -------*- C++ -*-===//
//
// --vyre-deduce-noalias: marks memref arguments `llvm.noalias` where every
// call in the module passes a distinct buffer (CallArgumentAliasing.h says
// when one is), and copies functions that hold gpu or vyre ops for the
// calls that do, where the function itself cannot be marked. Arguments that
// every call passes host memory registered with gpu.host_register are marked
// `vyre.pinned` the same way. Marks are added until nothing changes: a mark
// makes the buffers its function passes on distinct (or pinned) too.
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/Passes.h"

#include "vyre/Analysis/CallArgumentAliasing.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_DEDUCENOALIASPASS
#include "vyre/Transforms/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr StringLiteral kRemarkCategory = "deduce-noalias";
constexpr StringLiteral kNoAliasAttrName = "llvm.noalias";

bool holdsDeviceWork(func::FuncOp function) {
  return function
      .walk([](Operation *op) {
        StringRef dialect = op->getName().getDialectNamespace();
        return dialect == "gpu" || dialect == "vyre" ? WalkResult::interrupt()
                                                     : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The memref arguments of `function` that do not carry `attribute` yet.
llvm::BitVector memRefArgumentsWithout(func::FuncOp function,
                                       StringRef attribute) {
  llvm::BitVector bits(function.getNumArguments());
  for (unsigned index = 0, e = function.getNumArguments(); index < e; ++index)
    if (isa<BaseMemRefType>(function.getArgument(index).getType()) &&
        !function.getArgAttr(index, attribute))
      bits.set(index);
  return bits;
}

llvm::BitVector unmarkedMemRefArguments(func::FuncOp function) {
  return memRefArgumentsWithout(function, kNoAliasAttrName);
}

llvm::BitVector unpinnedMemRefArguments(func::FuncOp function) {
  return memRefArgumentsWithout(function, VyreDialect::getPinnedAttrName());
}

/// The memref operands of `call` that pass pinned host memory: a buffer
/// registered with gpu.host_register (through views), or an argument of the
/// caller marked `vyre.pinned`.
llvm::BitVector pinnedCallArguments(func::CallOp call) {
  llvm::BitVector bits(call->getNumOperands());
  for (auto [index, operand] : llvm::enumerate(call->getOperands())) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    Value root = SlotAccessAnalysis::resolveRoot(operand);
    bool pinned = isRegisteredWithGPU(root);
    if (auto argument = dyn_cast<BlockArgument>(root))
      if (auto caller =
              dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp()))
        pinned |= argument.getOwner()->isEntryBlock() &&
                  caller.getArgAttr(argument.getArgNumber(),
                                    VyreDialect::getPinnedAttrName());
    if (pinned)
      bits.set(index);
  }
  return bits;
}

/// `bits` without those of `others`.
llvm::BitVector without(llvm::BitVector bits, const llvm::BitVector &others) {
  bits.reset(others);
  return bits;
}

std::string listArguments(const llvm::BitVector &arguments) {
  std::string list;
  for (unsigned index : arguments.set_bits())
    list += (list.empty() ? "" : ", ") + std::to_string(index);
  return list;
}

/// What one call passes for each operand.
struct CallFacts {
  llvm::BitVector distinct;
  llvm::BitVector pinned;
};

class NoAliasDeduction {
public:
  NoAliasDeduction(ModuleOp module, bool specialize)
      : module(module), specialize(specialize) {}

  /// Deduces the marks; whether the module changed.
  bool run() {
    for (func::FuncOp function : module.getOps<func::FuncOp>())
      functions[function.getSymName()] = function;
    collectCalls();
    // Without calls there is nothing to deduce, nor to say: most programs
    // pay one walk.
    if (calls.empty())
      return false;
    collectOtherUses();
    symbols.emplace(module);
    reach.emplace(module);
    bool changedAny = false;
    for (bool changed = true; changed;) {
      changed = false;
      SmallVector<func::FuncOp> all(module.getOps<func::FuncOp>());
      for (func::FuncOp function : all)
        changed |= deduce(function);
      changedAny |= changed;
    }
    remarkWhatIsLeft();
    return changedAny;
  }

private:
  /// Every call of a module function, by callee.
  void collectCalls() {
    module.walk([&](func::CallOp call) {
      // A call in a nested symbol table names a symbol of that table.
      if (SymbolTable::getNearestSymbolTable(call) == module)
        if (func::FuncOp callee = functions.lookup(call.getCallee()))
          calls[callee].push_back(call);
    });
  }

  /// The functions whose symbol is used other than as a call's callee.
  void collectOtherUses() {
    module.walk([&](Operation *op) {
      auto call = dyn_cast<func::CallOp>(op);
      for (NamedAttribute attribute : op->getAttrs()) {
        if (call && attribute.getName() == call.getCalleeAttrName())
          continue;
        Attribute value = attribute.getValue();
        // Attributes that hold no symbol reference, without a walk.
        if (isa<StringAttr, IntegerAttr, FloatAttr, UnitAttr, TypeAttr,
                DenseElementsAttr, AffineMapAttr>(value))
          continue;
        value.walk([&](SymbolRefAttr reference) {
          if (func::FuncOp function =
                  functions.lookup(reference.getRootReference()))
            usedOtherwise.insert(function);
        });
      }
    });
  }

  bool canMarkInPlace(func::FuncOp function) const {
    return function.isPrivate() && !usedOtherwise.contains(function);
  }

  /// One round for `function`; whether it changed anything.
  bool deduce(func::FuncOp function) {
    if (function.isExternal())
      return false;
    llvm::BitVector unmarked = unmarkedMemRefArguments(function);
    llvm::BitVector unpinned = unpinnedMemRefArguments(function);
    if (unmarked.none() && unpinned.none())
      return false;
    ArrayRef<func::CallOp> sites = calls[function];
    if (sites.empty())
      return false;
    SmallVector<CallFacts> facts;
    for (func::CallOp call : sites)
      facts.push_back({getDistinctCallArguments(call, function, *reach).distinct,
                       pinnedCallArguments(call)});

    if (canMarkInPlace(function)) {
      llvm::BitVector distinctEverywhere = unmarked;
      llvm::BitVector pinnedEverywhere = unpinned;
      for (const CallFacts &each : facts) {
        distinctEverywhere &= each.distinct;
        pinnedEverywhere &= each.pinned;
      }
      std::string calls = std::to_string(sites.size()) +
                          (sites.size() == 1 ? " call)" : " calls)");
      markInPlace(function, pinnedEverywhere, VyreDialect::getPinnedAttrName(),
                  "ArgumentsPinned",
                  "every call passes them host memory registered with "
                  "gpu.host_register (" + calls);
      markInPlace(function, distinctEverywhere, kNoAliasAttrName,
                  "ArgumentsNoAlias",
                  "every call passes distinct buffers for them (" + calls);
      if (pinnedEverywhere.any() || distinctEverywhere.any())
        return true;
    }
    if (unmarked.none() || !specialize || isCopy.contains(function) ||
        !reach->isClosed(function) || !holdsDeviceWorkCached(function))
      return false;
    return specializeCalls(function, unmarked, unpinned, facts);
  }

  /// Makes the calls to `function` that pass distinct buffers call a copy
  /// with those arguments marked (and those that every such call passes
  /// pinned memory marked `vyre.pinned`), made once.
  bool specializeCalls(func::FuncOp function, const llvm::BitVector &unmarked,
                       const llvm::BitVector &unpinned,
                       ArrayRef<CallFacts> facts) {
    func::FuncOp copy = copyOf.lookup(function);
    llvm::BitVector marks(function.getNumArguments());
    llvm::BitVector pinnedMarks(function.getNumArguments());
    if (copy) {
      // A call may go to the copy if it passes all the copy's marks.
      marks = without(unmarked, unmarkedMemRefArguments(copy));
      pinnedMarks = without(unpinned, unpinnedMemRefArguments(copy));
    } else {
      // The arguments distinct at every call that passes any distinct one.
      bool any = false;
      for (const CallFacts &each : facts) {
        llvm::BitVector here = each.distinct;
        here &= unmarked;
        if (here.none())
          continue;
        if (any)
          marks &= here;
        else
          marks = here;
        any = true;
      }
      if (!any || marks.none())
        return false;
    }
    // `facts` holds the facts of each call of `function`, in order.
    SmallVector<unsigned> redirected;
    for (auto [index, each] : llvm::enumerate(facts))
      if (without(marks, each.distinct).none() &&
          without(pinnedMarks, each.pinned).none())
        redirected.push_back(index);
    if (redirected.empty())
      return false;
    bool madeCopy = !copy;
    if (!copy) {
      pinnedMarks = unpinned;
      for (unsigned index : redirected)
        pinnedMarks &= facts[index].pinned;
      copy = function.clone();
      copy.setPrivate();
      copy.setSymName((function.getSymName() + "_noalias").str());
      symbols->insert(copy, std::next(Block::iterator(function)));
      functions[copy.getSymName()] = copy;
      copyOf[function] = copy;
      isCopy.insert(copy);
      reach->addCopy(copy, function);
      mark(copy, marks);
      markPinned(copy, pinnedMarks);
      copy.walk([&](func::CallOp call) {
        if (SymbolTable::getNearestSymbolTable(call) != module)
          return;
        if (func::FuncOp callee = functions.lookup(call.getCallee()))
          calls[callee].push_back(call);
      });
    }
    // (Taken after the copy's calls were added: the map may have grown.)
    SmallVector<func::CallOp> &sites = calls[function];
    SmallVector<func::CallOp> moved;
    for (unsigned index : llvm::reverse(redirected)) {
      func::CallOp call = sites[index];
      call.setCalleeAttr(FlatSymbolRefAttr::get(copy.getSymNameAttr()));
      moved.push_back(call);
      sites.erase(sites.begin() + index);
    }
    llvm::append_range(calls[copy], llvm::reverse(moved));
    if (madeCopy)
      remark::passed(vyre::getSourceLocation(function.getLoc()),
                     options("CallsSpecialized"))
          << std::to_string(redirected.size()) + " of the calls to @" +
                 function.getSymName().str() +
                 " pass distinct buffers for arguments " +
                 listArguments(marks) + ": they call @" +
                 copy.getSymName().str() +
                 ", a copy with them marked llvm.noalias" +
                 (pinnedMarks.any()
                      ? " (and arguments " + listArguments(pinnedMarks) +
                            " vyre.pinned)"
                      : std::string()) +
                 ", because @" + function.getSymName().str() + " is " +
                 (canMarkInPlace(function) ? "called with buffers that may "
                                             "alias elsewhere"
                                           : "not private, or is named "
                                             "other than by calls");
    return true;
  }

  bool holdsDeviceWorkCached(func::FuncOp function) {
    auto [found, inserted] = deviceWork.try_emplace(function, false);
    if (inserted)
      found->second = holdsDeviceWork(function);
    return found->second;
  }

  void mark(func::FuncOp function, const llvm::BitVector &arguments,
            StringRef attribute = kNoAliasAttrName) {
    for (unsigned index : arguments.set_bits())
      function.setArgAttr(index, attribute,
                          UnitAttr::get(function.getContext()));
  }

  void markPinned(func::FuncOp function, const llvm::BitVector &arguments) {
    mark(function, arguments, VyreDialect::getPinnedAttrName());
  }

  /// Marks `arguments` of `function` with `attribute`, with a remark that
  /// says why.
  void markInPlace(func::FuncOp function, const llvm::BitVector &arguments,
                   StringRef attribute, StringRef remarkName,
                   const std::string &why) {
    if (arguments.none())
      return;
    mark(function, arguments, attribute);
    remark::passed(vyre::getSourceLocation(function.getLoc()),
                   options(remarkName))
        << "arguments " + listArguments(arguments) + " of @" +
               function.getSymName().str() + " marked " + attribute.str() +
               ": " + why;
  }

  /// A missed remark on each function with device work and unmarked memref
  /// arguments: why they stay unmarked.
  void remarkWhatIsLeft() {
    if (!module.getContext()->getRemarkEngine())
      return;
    for (func::FuncOp function : module.getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      llvm::BitVector unmarked = unmarkedMemRefArguments(function);
      if (unmarked.none() || !holdsDeviceWorkCached(function))
        continue;
      std::string why;
      ArrayRef<func::CallOp> sites = calls[function];
      if (Operation *open = reach->getOpenReason(function)) {
        why = "@" + function.getSymName().str() +
              " may reach memory other than its arguments, its allocations "
              "and globals ('" +
              open->getName().getStringRef().str() + "')";
      } else if (sites.empty()) {
        why = copyOf.count(function)
                  ? "every call in the module calls its copy"
                  : "no call in the module passes it buffers";
      } else {
        for (func::CallOp call : sites) {
          DistinctCallArguments found =
              getDistinctCallArguments(call, function, *reach);
          llvm::BitVector missing = unmarked;
          missing.reset(found.distinct);
          if (missing.none())
            continue;
          why = "at the call at " + describe(call.getLoc()) + ", " +
                found.whyNot;
          break;
        }
        if (why.empty())
          why = "it is not private, or is named other than by calls";
      }
      remark::missed(vyre::getSourceLocation(function.getLoc()),
                     options("ArgumentsMayAlias"))
          << "arguments " + listArguments(unmarked) + " of @" +
                 function.getSymName().str() + " may alias: " + why;
    }
  }

  static std::string describe(Location loc) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      os << "line " << file.getLine();
    else
      os << loc;
    return text;
  }

  remark::RemarkOpts options(StringRef name) {
    return remark::RemarkOpts::name(name).category(kRemarkCategory);
  }

  ModuleOp module;
  std::optional<SymbolTable> symbols;
  std::optional<CalleeReach> reach;
  bool specialize;
  llvm::StringMap<func::FuncOp> functions;
  DenseMap<Operation *, SmallVector<func::CallOp>> calls;
  llvm::DenseSet<Operation *> usedOtherwise;
  DenseMap<Operation *, func::FuncOp> copyOf;
  llvm::DenseSet<Operation *> isCopy;
  DenseMap<Operation *, bool> deviceWork;
};

struct DeduceNoAliasPass
    : public vyre::impl::DeduceNoAliasPassBase<DeduceNoAliasPass> {
  using Base::Base;

  void runOnOperation() override {
    // Unchanged, the module need not be verified again after the pass.
    if (!NoAliasDeduction(getOperation(), specialize).run())
      markAllAnalysesPreserved();
  }
};

} // namespace
