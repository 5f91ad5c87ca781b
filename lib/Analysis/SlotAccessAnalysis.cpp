//===- SlotAccessAnalysis.cpp - Read/write slot summaries -------*- C++ -*-===//

#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::vyre;

/// The attribute that promises a function argument aliases no other.
static constexpr StringLiteral kNoAliasAttrName = "llvm.noalias";

SlotAccessAnalysis::SlotAccessAnalysis(Operation *op, AnalysisManager &analyses)
    : kernelSymbols(nullptr) {
  if (Operation *parent = op->getParentOp())
    if (auto cached = analyses.getCachedParentAnalysis<KernelSymbols>(parent))
      kernelSymbols = &cached->get();
  analyze(op);
}

SlotAccessAnalysis::SlotAccessAnalysis(Operation *op) { analyze(op); }

void SlotAccessAnalysis::analyze(Operation *op) {
  collectSlots(op);
  computeAliasing(op);
  op->walk([&](StreamOpInterface launch) { addSummary(launch); });
}

void SlotAccessAnalysis::addSummary(StreamOpInterface launch) {
  if (!launch.getLaunchedKernel())
    return;
  AccessSummary summary = summarize(launch);
  auto [it, isNew] = summaryIndex.try_emplace(launch, summaries.size());
  if (isNew)
    summaries.push_back(std::move(summary));
  else
    summaries[it->second] = std::move(summary);
}

void SlotAccessAnalysis::addSlot(Value root) {
  slotNumbers[root] = slots.size();
  slots.push_back(root);
}

/// The device buffer `op` allocates, a slot root; null if none: a
/// `vyre.alloc`, or device memory allocated with a token, left as written in
/// a function that also holds vyre ops, and host_shared (managed) memory,
/// which kernels and the host both touch: the host's accesses to it are to
/// the slot too.
static Value getAllocatedSlotRoot(Operation *op) {
  if (auto alloc = dyn_cast<AllocOp>(op))
    return alloc.getMemref();
  if (auto alloc = dyn_cast<gpu::AllocOp>(op);
      alloc && !alloc->getParentOfType<gpu::GPUModuleOp>())
    return alloc.getMemref();
  return nullptr;
}

void SlotAccessAnalysis::collectSlots(Operation *op) {
  if (auto function = dyn_cast<FunctionOpInterface>(op);
      function && !function.isExternal())
    for (BlockArgument argument : function.getArguments())
      if (isa<BaseMemRefType>(argument.getType()))
        addSlot(argument);
  op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (Value root = getAllocatedSlotRoot(nested))
      addSlot(root);
  });
}

void SlotAccessAnalysis::update(ArrayRef<Value> erasedRoots,
                                ArrayRef<Operation *> added) {
  // The roots only name map entries: their ops are gone.
  for (Value root : erasedRoots) {
    auto it = slotNumbers.find(root);
    if (it == slotNumbers.end())
      continue;
    slots[it->second] = nullptr;
    slotNumbers.erase(it);
  }
  // The slots first, so that the summaries name the new ones.
  for (Operation *op : added)
    if (Value root = getAllocatedSlotRoot(op); root && !getSlotNumber(root))
      addSlot(root);
  for (Operation *op : added)
    if (auto launch = dyn_cast<StreamOpInterface>(op))
      addSummary(launch);
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
      aliasing[lhs].push_back(rhs);
      aliasing[rhs].push_back(lhs);
    }
  }
  for (auto &[slot, others] : aliasing) {
    others.push_back(slot);
    llvm::sort(others);
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
      if (slots[each])
        result.push_back(each);
    return result;
  }
  auto it = aliasing.find(*slot);
  if (it == aliasing.end()) {
    result.push_back(*slot);
    return result;
  }
  llvm::append_range(result, it->second);
  return result;
}

bool SlotAccessAnalysis::mayAlias(unsigned lhs, unsigned rhs) const {
  if (lhs == rhs)
    return true;
  auto it = aliasing.find(lhs);
  return it != aliasing.end() && llvm::binary_search(it->second, rhs);
}

const AccessSummary &SlotAccessAnalysis::getSummary(Operation *launch) const {
  static const AccessSummary unknownSummary = AccessSummary::unknown();
  auto it = summaryIndex.find(launch);
  return it == summaryIndex.end() ? unknownSummary : summaries[it->second];
}

const SlotAccessAnalysis::KernelInfo &
SlotAccessAnalysis::lookupKernel(StreamOpInterface launch) {
  SymbolRefAttr symbol = launch.getLaunchedKernel();
  auto [it, isNew] = kernels.try_emplace(symbol);
  if (!isNew)
    return it->second;
  KernelInfo &info = it->second;
  Operation *callee = kernelSymbols ? kernelSymbols->lookup(symbol) : nullptr;
  if (!callee)
    callee = symbolTables.lookupNearestSymbolFrom(launch, symbol);
  auto function = dyn_cast_or_null<FunctionOpInterface>(callee);
  if (!function)
    return info;
  info.resolved = true;
  info.hasBody = !function.isExternal();
  info.summary = getKernelAccessSummary(callee);
  if (info.summary && info.summary->size() != function.getNumArguments())
    info.summary.reset();
  if (info.hasBody && !info.summary)
    unsummarizedKernels.push_back(symbol);
  return info;
}

/// What `launch` declares for each kernel argument; std::nullopt where it
/// assumes (declares nothing).
static SmallVector<std::optional<ArgumentAccess>, 8>
getDeclaredAccesses(StreamOpInterface launch) {
  SmallVector<std::optional<ArgumentAccess>, 8> declared(
      launch.getKernelArguments().size(), ArgumentAccess());
  SmallVector<BufferAccess, 8> accesses;
  launch.getBufferAccesses(accesses);
  for (const BufferAccess &access : accesses) {
    if (!access.kernelArgument || *access.kernelArgument >= declared.size())
      continue;
    std::optional<ArgumentAccess> &argument = declared[*access.kernelArgument];
    if (access.assumed)
      argument.reset();
    else if (argument)
      *argument |=
          ArgumentAccess{access.effect == BufferEffect::Read, access.isWrite()};
  }
  return declared;
}

AccessSummary SlotAccessAnalysis::summarize(StreamOpInterface launch) {
  const KernelInfo &kernel = lookupKernel(launch);
  SmallVector<std::optional<ArgumentAccess>, 8> declared =
      getDeclaredAccesses(launch);
  AccessSummary summary;
  for (auto [index, operand] : llvm::enumerate(launch.getKernelArguments())) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    // The kernel's summary decides, widened by what the launch declares.
    // Without one, a bodiless kernel does what its launch declares; a kernel
    // with a body, or one that does not resolve, may do anything.
    ArgumentAccess access = ArgumentAccess::readWrite();
    if (kernel.summary) {
      access = (*kernel.summary)[index];
      if (declared[index])
        access |= *declared[index];
    } else if (kernel.resolved && !kernel.hasBody && declared[index]) {
      access = *declared[index];
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
