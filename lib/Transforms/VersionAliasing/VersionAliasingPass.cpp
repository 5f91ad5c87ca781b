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
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Transforms/VersionAliasing/DisjointnessCheck.h"
#include "vyre/Transforms/VersionAliasing/FunctionVersions.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Remarks.h"

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
/// (explicit asynchronous code, which is left as its author wrote it).
std::pair<bool, bool> holdsVyreAndGPUOps(func::FuncOp function) {
  bool vyre = false, gpu = false;
  function.walk([&](Operation *op) {
    if (isa<VyreDialect>(op->getDialect()))
      vyre = true;
    else if (isa<gpu::GPUDialect>(op->getDialect()))
      gpu = true;
  });
  return {vyre, gpu};
}

struct VersionAliasingPass
    : public vyre::impl::VersionAliasingPassBase<VersionAliasingPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> candidates;
    for (func::FuncOp function : module.getOps<func::FuncOp>())
      if (!function.isExternal() && !function->hasAttr(FunctionVersions::kAttrName))
        candidates.push_back(function);
    if (candidates.empty())
      return markAllAnalysesPreserved();
    CalleeReach reach(module);
    SymbolTable symbols(module);
    bool changed = false;
    for (func::FuncOp function : candidates) {
      SmallVector<int64_t> arguments = unmarkedMemRefArguments(function);
      if (arguments.size() < 2)
        continue;
      auto [vyre, gpu] = holdsVyreAndGPUOps(function);
      if (!vyre)
        continue;
      std::string whyNot = gpu ? "it holds explicit gpu host ops, left as "
                                 "written"
                               : whyNotVersionable(function, arguments, reach);
      if (!whyNot.empty()) {
        FunctionVersions unversioned;
        unversioned.arguments = arguments;
        remark::missed(function.getLoc(), options("NotVersioned"))
            << "arguments " + unversioned.describeArguments() + " of @" +
                   function.getSymName().str() + " may alias and are not "
                   "checked at run time: " + whyNot;
        continue;
      }
      version(function, arguments, symbols);
      changed = true;
    }
    if (!changed)
      markAllAnalysesPreserved();
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
      if (!getElementBytes(type.getElementType(), function))
        return "the size of argument " + std::to_string(index) +
               "'s elements is not known";
    }
    if (Operation *open = reach.getOpenReason(function))
      return "@" + function.getSymName().str() +
             " may reach memory other than its arguments and allocations ('" +
             open->getName().getStringRef().str() + "')";
    if (StringAttr global = reach.getAnyReachedGlobal(function))
      return "@" + function.getSymName().str() +
             " or a function it calls names the global @" +
             global.getValue().str() + ", which an argument may be";
    return "";
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
