//===- KernelAccess.cpp - How a kernel accesses its arguments ---*- C++ -*-===//
//
// Follows every use of each memref argument through the kernel body, and
// through views of it, and classifies the use by the memory effects the user
// declares. Whatever is not understood is a read and a write.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/KernelAccess.h"

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::vyre;

ArgumentAccess ArgumentAccess::fromKind(AccessKind kind) {
  switch (kind) {
  case AccessKind::Read:
    return {true, false};
  case AccessKind::Write:
  case AccessKind::Overwrite:
    return {false, true};
  case AccessKind::ReadWrite:
    return readWrite();
  case AccessKind::None:
    return {};
  }
  llvm_unreachable("unknown access kind");
}

AccessKind ArgumentAccess::toKind() const {
  if (read && write)
    return AccessKind::ReadWrite;
  if (write)
    return AccessKind::Write;
  return read ? AccessKind::Read : AccessKind::None;
}

std::optional<SmallVector<ArgumentAccess>>
mlir::vyre::getKernelAccessSummary(Operation *kernel) {
  auto kinds = kernel->getAttrOfType<ArrayAttr>(
      VyreDialect::getKernelAccessAttrName());
  if (!kinds)
    return std::nullopt;
  SmallVector<ArgumentAccess> accesses;
  for (Attribute kind : kinds)
    accesses.push_back(
        ArgumentAccess::fromKind(cast<AccessKindAttr>(kind).getValue()));
  return accesses;
}

void mlir::vyre::setKernelAccessSummary(Operation *kernel,
                                        ArrayRef<ArgumentAccess> accesses) {
  MLIRContext *context = kernel->getContext();
  SmallVector<Attribute> kinds = llvm::map_to_vector(
      accesses, [&](ArgumentAccess access) -> Attribute {
        return AccessKindAttr::get(context, access.toKind());
      });
  kernel->setAttr(VyreDialect::getKernelAccessAttrName(),
                  ArrayAttr::get(context, kinds));
}

/// Ops that read a memref's metadata (its shape), neither its contents nor
/// its address.
static bool isMetadataQuery(Operation *op) {
  return isa<memref::DimOp, memref::RankOp>(op);
}

/// Adds to `access` what `use` does with the memory of the buffer it uses,
/// and queues the memref results of a view of it in `views`.
static void classifyUse(OpOperand &use, ArgumentAccess &access,
                        SmallVectorImpl<Value> &views) {
  Operation *user = use.getOwner();
  Value buffer = use.get();

  if (auto view = dyn_cast<ViewLikeOpInterface>(user);
      view && view.getViewSource() == buffer) {
    for (Value result : user->getResults())
      if (isa<BaseMemRefType>(result.getType()))
        views.push_back(result);
    return;
  }
  if (isMetadataQuery(user))
    return;

  // A call may do anything with the buffer, and so may an op that does not
  // declare its memory effects.
  auto effectOp = dyn_cast<MemoryEffectOpInterface>(user);
  if (!effectOp || isa<CallOpInterface>(user)) {
    access = ArgumentAccess::readWrite();
    return;
  }
  SmallVector<MemoryEffects::EffectInstance> effects;
  effectOp.getEffectsOnValue(buffer, effects);
  // The op uses the buffer without touching its memory: it may let the
  // address escape (into an integer, a struct, another buffer).
  if (effects.empty()) {
    access = ArgumentAccess::readWrite();
    return;
  }
  for (const MemoryEffects::EffectInstance &effect : effects) {
    if (isa<MemoryEffects::Read>(effect.getEffect()))
      access.read = true;
    else if (isa<MemoryEffects::Write>(effect.getEffect()))
      access.write = true;
    else
      access = ArgumentAccess::readWrite();
  }
}

/// The accesses through `argument` and every view of it.
static ArgumentAccess computeArgumentAccess(BlockArgument argument) {
  ArgumentAccess access;
  SmallVector<Value> worklist{argument};
  llvm::SmallPtrSet<Value, 8> visited;
  while (!worklist.empty()) {
    Value buffer = worklist.pop_back_val();
    if (!visited.insert(buffer).second)
      continue;
    for (OpOperand &use : buffer.getUses()) {
      classifyUse(use, access, worklist);
      if (access == ArgumentAccess::readWrite())
        return access;
    }
  }
  return access;
}

KernelAccess mlir::vyre::computeKernelAccess(Operation *kernel) {
  KernelAccess result;
  auto function = dyn_cast_or_null<FunctionOpInterface>(kernel);
  if (!function)
    return result;
  ArrayRef<Type> types = function.getArgumentTypes();
  result.arguments.resize(types.size());
  if (function.isExternal()) {
    for (auto [type, access] : llvm::zip(types, result.arguments))
      if (isa<BaseMemRefType>(type))
        access = ArgumentAccess::readWrite();
    return result;
  }
  result.fromBody = true;
  // The entry block may hold more arguments than the signature: a gpu.func's
  // workgroup and private attributions follow its parameters.
  for (auto [index, type] : llvm::enumerate(types))
    if (isa<BaseMemRefType>(type))
      result.arguments[index] =
          computeArgumentAccess(function.getArgument(index));
  return result;
}
