//===- SlotAccessAnalysis.cpp - Read/write slot summaries -------*- C++ -*-===//

#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::vyre;

/// The attribute that promises a function argument aliases no other.
static constexpr StringLiteral kNoAliasAttrName = "llvm.noalias";

SlotAccessAnalysis::SlotAccessAnalysis(Operation *op) {
  collectSlots(op);
  computeAliasing(op);
  op->walk([&](DispatchOp dispatch) {
    summaryIndex.try_emplace(dispatch, summaries.size());
    summaries.push_back(summarize(dispatch));
  });
}

void SlotAccessAnalysis::collectSlots(Operation *op) {
  auto addSlot = [&](Value root) {
    slotNumbers.try_emplace(root, slots.size());
    slots.push_back(root);
  };
  if (auto function = dyn_cast<FunctionOpInterface>(op);
      function && !function.isExternal())
    for (BlockArgument argument : function.getArguments())
      if (isa<BaseMemRefType>(argument.getType()))
        addSlot(argument);
  op->walk<WalkOrder::PreOrder>(
      [&](AllocOp alloc) { addSlot(alloc.getMemref()); });
}

bool SlotAccessAnalysis::isNoAliasArgument(Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument)
    return false;
  auto function =
      dyn_cast<FunctionOpInterface>(argument.getOwner()->getParentOp());
  return function && argument.getOwner()->isEntryBlock() &&
         function.getArgAttr(argument.getArgNumber(), kNoAliasAttrName);
}

void SlotAccessAnalysis::computeAliasing(Operation *op) {
  unsigned numSlots = slots.size();
  aliasing.assign(numSlots, llvm::BitVector(numSlots));
  for (unsigned slot = 0; slot < numSlots; ++slot)
    aliasing[slot].set(slot);

  // Distinct allocations never alias, so only pairs with a function argument
  // need asking; the arguments come first in slot order.
  AliasAnalysis aliasAnalysis(op);
  for (unsigned lhs = 0; lhs < numSlots; ++lhs) {
    if (!isa<BlockArgument>(slots[lhs]))
      break;
    for (unsigned rhs = lhs + 1; rhs < numSlots; ++rhs) {
      if (isNoAliasArgument(slots[lhs]) || isNoAliasArgument(slots[rhs]))
        continue;
      if (aliasAnalysis.alias(slots[lhs], slots[rhs]).isNo())
        continue;
      aliasing[lhs].set(rhs);
      aliasing[rhs].set(lhs);
    }
  }
}

Value SlotAccessAnalysis::resolveRoot(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>()) {
    Value source = view.getViewSource();
    if (!source || source == memref)
      break;
    memref = source;
  }
  return memref;
}

std::optional<unsigned> SlotAccessAnalysis::getSlotNumber(Value root) const {
  auto it = slotNumbers.find(root);
  if (it == slotNumbers.end())
    return std::nullopt;
  return it->second;
}

SmallVector<unsigned> SlotAccessAnalysis::getSlotsOf(Value memref,
                                                     bool *isExact) const {
  SmallVector<unsigned> result;
  std::optional<unsigned> slot = getSlotNumber(resolveRoot(memref));
  if (isExact)
    *isExact = slot.has_value();
  if (!slot) {
    for (unsigned each = 0, e = slots.size(); each < e; ++each)
      result.push_back(each);
    return result;
  }
  for (unsigned each : aliasing[*slot].set_bits())
    result.push_back(each);
  return result;
}

bool SlotAccessAnalysis::mayAlias(unsigned lhs, unsigned rhs) const {
  return aliasing[lhs].test(rhs);
}

const AccessSummary &SlotAccessAnalysis::getSummary(DispatchOp dispatch) const {
  static const AccessSummary unknownSummary = AccessSummary::unknown();
  auto it = summaryIndex.find(dispatch);
  return it == summaryIndex.end() ? unknownSummary : summaries[it->second];
}

const KernelAccess *SlotAccessAnalysis::getKernelAccess(Operation *kernel) const {
  auto it = kernelAccesses.find(kernel);
  return it == kernelAccesses.end() ? nullptr : it->second.get();
}

AccessSummary SlotAccessAnalysis::summarize(DispatchOp dispatch) {
  auto [cached, isNewSymbol] =
      kernelAccessBySymbol.try_emplace(dispatch.getKernel(), nullptr);
  if (isNewSymbol) {
    if (Operation *callee = symbolTables.lookupNearestSymbolFrom(
            dispatch, dispatch.getKernel())) {
      std::unique_ptr<KernelAccess> &access = kernelAccesses[callee];
      if (!access)
        access = std::make_unique<KernelAccess>(computeKernelAccess(callee));
      cached->second = access.get();
    }
  }
  const KernelAccess *kernel = cached->second;

  AccessSummary summary;
  for (auto [index, operand] : llvm::enumerate(dispatch.getKernelOperands())) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    std::optional<AccessKind> declared = dispatch.getDeclaredAccess(index);
    // The body decides where there is one, and a declared access can only add
    // to it; without a body the declaration decides; with neither, or an
    // unresolved callee, the kernel may read and write the argument.
    ArgumentAccess access = ArgumentAccess::readWrite();
    if (kernel && kernel->fromBody && index < kernel->arguments.size()) {
      access = kernel->arguments[index];
      if (declared)
        access |= ArgumentAccess::fromKind(*declared);
    } else if (kernel && declared) {
      access = ArgumentAccess::fromKind(*declared);
    }
    for (unsigned slot : getSlotsOf(operand)) {
      if (access.read)
        summary.addRead(slot);
      if (access.write)
        summary.addWrite(slot);
    }
  }
  return summary;
}
