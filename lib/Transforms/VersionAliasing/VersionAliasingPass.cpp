//===- VersionAliasingPass.cpp - Run-time versions for aliasing -*- C++ -*-===//
//
// --vyre-version-aliasing: a function whose memref arguments may alias gets
// a dispatcher that checks them disjoint at run time and calls a copy with
// them marked llvm.noalias, or the function as written
// (docs/VersionAliasing.md).
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/Passes.h"

#include "vyre/Analysis/CallArgumentAliasing.h"
#include "vyre/Analysis/DeviceCosts.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Transforms/VersionAliasing/DisjointnessCheck.h"
#include "vyre/Transforms/VersionAliasing/FunctionVersions.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Remarks.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_VERSIONALIASINGPASS
#include "vyre/Transforms/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr StringLiteral kRemarkCategory = "version-aliasing";
constexpr StringLiteral kNoAliasAttrName = "llvm.noalias";

/// Whether `function` holds vyre ops, and whether it holds gpu host ops
/// written with tokens (explicit asynchronous code, which is left as its
/// author wrote it). A synchronous gpu op without tokens
/// (`gpu.host_register`) is neither.
std::pair<bool, bool> holdsVyreAndAsyncGPUOps(func::FuncOp function) {
  bool vyre = false, async = false;
  auto isToken = [](Type type) { return isa<gpu::AsyncTokenType>(type); };
  function.walk([&](Operation *op) {
    if (isa<VyreDialect>(op->getDialect()))
      vyre = true;
    else if (isa<gpu::GPUDialect>(op->getDialect()) &&
             (llvm::any_of(op->getOperandTypes(), isToken) ||
              llvm::any_of(op->getResultTypes(), isToken)))
      async = true;
  });
  return {vyre, async};
}

/// The users of each symbol of a module, found in one walk.
using SymbolUsers = DenseMap<StringAttr, SmallVector<Operation *, 2>>;

SymbolUsers collectSymbolUsers(ModuleOp module) {
  SymbolUsers users;
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(&module.getBodyRegion()))
    for (const SymbolTable::SymbolUse &use : *uses)
      users[use.getSymbolRef().getRootReference()].push_back(use.getUser());
  return users;
}

/// Two of `arguments` that every use of `function` passes one value for
/// (through casts): a private function called only so, whose calls alias
/// for sure; none if there is a use that is not such a call.
std::optional<std::pair<int64_t, int64_t>>
argumentsAlwaysAliased(func::FuncOp function, ArrayRef<int64_t> arguments,
                       const SymbolUsers &symbolUsers) {
  if (!function.isPrivate())
    return std::nullopt;
  auto users = symbolUsers.find(function.getSymNameAttr());
  if (users == symbolUsers.end() || users->second.empty())
    return std::nullopt;
  auto root = [](Value value) {
    while (auto cast = value.getDefiningOp<memref::CastOp>())
      value = cast.getSource();
    return value;
  };
  std::optional<std::pair<int64_t, int64_t>> pair;
  for (Operation *user : users->second) {
    auto call = dyn_cast<func::CallOp>(user);
    if (!call || call.getNumOperands() != function.getNumArguments())
      return std::nullopt;
    std::optional<std::pair<int64_t, int64_t>> here;
    for (size_t i = 0; i < arguments.size() && !here; ++i)
      for (size_t j = i + 1; j < arguments.size() && !here; ++j)
        if (root(call.getOperand(arguments[i])) ==
            root(call.getOperand(arguments[j])))
          here = std::make_pair(arguments[i], arguments[j]);
    if (!here)
      return std::nullopt;
    pair = here;
  }
  return pair;
}

struct VersionAliasingPass
    : public vyre::impl::VersionAliasingPassBase<VersionAliasingPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // A dispatcher, and the copies a dispatcher names, are versioned
    // already (the pass may run again before --vyre-choose-versions).
    llvm::DenseSet<Operation *> versionedAlready;
    for (func::FuncOp function : module.getOps<func::FuncOp>())
      if (std::optional<FunctionVersions> versions =
              FunctionVersions::of(function, symbols))
        for (func::FuncOp versioned :
             {function, versions->disjoint, versions->mayAlias})
          versionedAlready.insert(versioned);
    SmallVector<func::FuncOp> candidates;
    for (func::FuncOp function : module.getOps<func::FuncOp>())
      if (!function.isExternal() && !versionedAlready.contains(function) &&
          !function->hasAttr(FunctionVersions::kAttrName))
        candidates.push_back(function);
    if (candidates.empty())
      return markAllAnalysesPreserved();
    // First every decision, on the module as it is (the call sites and
    // reach it records), then the rewrites.
    CalleeReach reach(module);
    std::optional<SymbolUsers> symbolUsers;
    SmallVector<std::pair<func::FuncOp, SmallVector<int64_t>>> toVersion;
    for (func::FuncOp function : candidates) {
      SmallVector<int64_t> arguments = unmarkedMemRefArguments(function);
      if (arguments.size() < 2)
        continue;
      auto [vyre, async] = holdsVyreAndAsyncGPUOps(function);
      if (!vyre)
        continue;
      std::string whyNot =
          async ? "it holds gpu host ops written with tokens, left as written"
                : whyNotVersionable(function, arguments, reach);
      if (whyNot.empty() && function.isPrivate()) {
        if (!symbolUsers)
          symbolUsers = collectSymbolUsers(module);
        if (std::optional<std::pair<int64_t, int64_t>> same =
                argumentsAlwaysAliased(function, arguments, *symbolUsers))
          whyNot = "every call passes one buffer for arguments " +
                   std::to_string(same->first) + " and " +
                   std::to_string(same->second) +
                   ", so a copy with them disjoint would never run";
      }
      if (!whyNot.empty()) {
        FunctionVersions unversioned;
        unversioned.arguments = arguments;
        remark::missed(vyre::getSourceLocation(function.getLoc()),
                       options("NotVersioned"))
            << "arguments " + unversioned.describeArguments() + " of @" +
                   function.getSymName().str() +
                   " may alias and are not "
                   "checked at run time: " +
                   whyNot;
        continue;
      }
      toVersion.push_back({function, std::move(arguments)});
    }
    if (toVersion.empty())
      return markAllAnalysesPreserved();
    for (auto &[function, arguments] : toVersion)
      version(function, arguments, symbols);
  }

  /// The ranked memref arguments of `function` without llvm.noalias.
  static SmallVector<int64_t> unmarkedMemRefArguments(func::FuncOp function) {
    SmallVector<int64_t> arguments;
    for (unsigned index = 0, e = function.getNumArguments(); index < e;
         ++index)
      if (isa<BaseMemRefType>(function.getArgument(index).getType()) &&
          !function.getArgAttr(index, kNoAliasAttrName))
        arguments.push_back(index);
    return arguments;
  }

  /// Why `function` cannot be versioned on `arguments`, or empty.
  std::string whyNotVersionable(func::FuncOp function,
                                ArrayRef<int64_t> arguments,
                                const CalleeReach &reach) {
    if (arguments.size() > maxArguments)
      return std::to_string(arguments.size()) +
             " arguments are more than max-arguments=" +
             std::to_string(maxArguments);
    for (int64_t index : arguments) {
      auto type = dyn_cast<MemRefType>(function.getArgument(index).getType());
      if (!type)
        return "argument " + std::to_string(index) + " is an unranked memref";
      if (!type.isStrided())
        return "argument " + std::to_string(index) +
               " has a layout that is not strided";
      if (!hasExactElementSize(type.getElementType()) ||
          !getElementBytes(type.getElementType(), function))
        return "argument " + std::to_string(index) + "'s elements (" +
               describe(type.getElementType()) +
               ") may not lie their data-layout size apart in the lowered "
               "program";
    }
    if (Operation *open = reach.getOpenReason(function))
      return "@" + function.getSymName().str() +
             " may reach memory other than its arguments and allocations ('" +
             open->getName().getStringRef().str() + "')";
    if (StringAttr global = reach.getAnyReachedGlobal(function))
      return "@" + function.getSymName().str() +
             " or a function it calls names the global @" +
             global.getValue().str() + ", which an argument may be";
    // The check compares the views the arguments are; through an op that
    // views memory from a buffer's base, code given one view may reach the
    // bytes of another.
    if (Operation *viewer = reach.getBaseViewer())
      return "'" + viewer->getName().getStringRef().str() +
             "' in the module views memory from a buffer's base, through "
             "which code given one argument may reach another's bytes";
    return "";
  }

  /// Whether the lowered program places elements of `type` exactly their
  /// data-layout size apart: integers of 1 bit or of a power-of-two number
  /// of bytes, floats of 8 to 128 bits but 80, index, and complex numbers
  /// and vectors of those but i1. (LLVM spaces an i24 4 bytes apart, an f80
  /// 16, and packs a vector of i1.)
  static bool hasExactElementSize(Type type) {
    if (type.isIndex())
      return true;
    if (auto integer = dyn_cast<IntegerType>(type)) {
      unsigned width = integer.getWidth();
      return width == 1 || (width >= 8 && llvm::isPowerOf2_32(width));
    }
    if (auto real = dyn_cast<FloatType>(type)) {
      unsigned width = real.getWidth();
      return width >= 8 && llvm::isPowerOf2_32(width);
    }
    if (auto complex = dyn_cast<ComplexType>(type))
      return hasExactElementSize(complex.getElementType()) &&
             !complex.getElementType().isInteger(1);
    if (auto vector = dyn_cast<VectorType>(type))
      return !vector.isScalable() &&
             hasExactElementSize(vector.getElementType()) &&
             !vector.getElementType().isInteger(1);
    return false;
  }

  static std::string describe(Type type) {
    std::string text;
    llvm::raw_string_ostream(text) << type;
    return text;
  }

  /// Makes `function` a dispatcher over two copies of it.
  void version(func::FuncOp function, ArrayRef<int64_t> arguments,
               SymbolTable &symbols) {
    FunctionVersions versions;
    versions.dispatcher = function;
    versions.arguments.assign(arguments.begin(), arguments.end());
    auto copy = [&](StringRef suffix) {
      func::FuncOp clone = function.clone();
      clone.setSymName((function.getSymName() + suffix).str());
      clone.setPrivate();
      // The copy is not an entry point: what marks the function as one
      // (an emitted C interface) stays on the dispatcher.
      clone->removeAttr("llvm.emit_c_interface");
      symbols.insert(clone, std::next(Block::iterator(function)));
      return clone;
    };
    versions.mayAlias = copy("_may_alias");
    versions.disjoint = copy("_disjoint");
    for (int64_t index : arguments)
      versions.disjoint.setArgAttr(index, kNoAliasAttrName,
                                   UnitAttr::get(&getContext()));

    // The dispatcher: check, then call one copy or the other.
    Location loc = function.getLoc();
    function.getBody().dropAllReferences();
    function.getBody().getBlocks().clear();
    Block *entry = function.addEntryBlock();
    OpBuilder builder = OpBuilder::atBlockBegin(entry);
    SmallVector<Value> checked;
    for (int64_t index : arguments)
      checked.push_back(entry->getArgument(index));
    Value disjoint = emitDisjointnessCheck(builder, loc, checked);
    TypeRange results = function.getResultTypes();
    auto branch = scf::IfOp::create(builder, loc, results, disjoint,
                                    /*withElseRegion=*/true);
    auto call = [&](Block *block, func::FuncOp callee) {
      // Without results the branch has its scf.yield already.
      OpBuilder inner = OpBuilder::atBlockEnd(block);
      if (!block->empty())
        inner.setInsertionPoint(block->getTerminator());
      auto called =
          func::CallOp::create(inner, loc, callee, entry->getArguments());
      if (!called->getNextNode())
        scf::YieldOp::create(inner, loc, called.getResults());
    };
    call(branch.thenBlock(), versions.disjoint);
    call(branch.elseBlock(), versions.mayAlias);
    func::ReturnOp::create(builder, loc, branch.getResults());
    versions.record();
  }

  remark::RemarkOpts options(StringRef name) {
    return remark::RemarkOpts::name(name).category(kRemarkCategory);
  }
};

} // namespace
