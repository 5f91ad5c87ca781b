//===- VyreDialect.cpp - The vyre dialect -----------------------*- C++ -*-===//

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <cmath>

using namespace mlir;
using namespace mlir::vyre;

#include "vyre/Dialect/Vyre/IR/VyreOpsDialect.cpp.inc"

void VyreDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "vyre/Dialect/Vyre/IR/VyreOps.cpp.inc"
      >();
}

LogicalResult VyreDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  if (attribute.getName() != getPinnedAttrName())
    return op->emitError("unknown vyre argument attribute '")
           << attribute.getName().getValue() << "' on argument #" << argIndex;
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitError("'")
           << getPinnedAttrName() << "' on argument #" << argIndex
           << " must be a unit attribute";
  Type type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  if (!isa<BaseMemRefType>(type))
    return op->emitError("'")
           << getPinnedAttrName() << "' on argument #" << argIndex
           << " of type " << type << ": only a memref argument can be pinned";
  return success();
}

/// Checks `vyre.access` on `op`: a function, with one access kind per
/// argument, and only `read` or `none` for an argument that is not a memref.
static LogicalResult verifyKernelAccessAttr(Operation *op, Attribute value) {
  StringLiteral name = VyreDialect::getKernelAccessAttrName();
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError("'") << name << "' must be on a kernel function";
  auto kinds = dyn_cast<ArrayAttr>(value);
  if (!kinds || !llvm::all_of(kinds, llvm::IsaPred<AccessKindAttr>))
    return op->emitError("'") << name << "' must be a list of access kinds";
  ArrayRef<Type> types = function.getArgumentTypes();
  if (kinds.size() != types.size())
    return op->emitError("'")
           << name << "' has " << kinds.size() << " entries but the kernel has "
           << types.size() << " argument(s): it needs one entry per argument";
  for (auto [index, kind, type] : llvm::enumerate(kinds, types)) {
    AccessKind access = cast<AccessKindAttr>(kind).getValue();
    if (access == AccessKind::Overwrite)
      return op->emitError("'")
             << name << "' entry #" << index
             << " is 'overwrite', a promise of one launch: declare it in the "
                "dispatch's 'access' list";
    if (!isa<BaseMemRefType>(type) && access != AccessKind::Read &&
        access != AccessKind::None)
      return op->emitError("'")
             << name << "' entry #" << index << " is '"
             << stringifyAccessKind(access) << "' but argument #" << index
             << " has type " << type << ": only a memref can be written";
  }
  return success();
}

/// `vyre.effects` is "none" or "arguments", on a function.
static LogicalResult verifyFunctionEffectsAttr(Operation *op,
                                               Attribute value) {
  StringLiteral name = VyreDialect::getFunctionEffectsAttrName();
  if (!isa<FunctionOpInterface>(op))
    return op->emitError("'") << name << "' belongs on a function";
  auto effects = dyn_cast<StringAttr>(value);
  if (!effects ||
      (effects.getValue() != "none" && effects.getValue() != "arguments"))
    return op->emitError("'")
           << name << "' must be \"none\" or \"arguments\", not " << value;
  return success();
}

/// `vyre.cost_us` is a finite float of 0 or more, on a vyre.dispatch.
static LogicalResult verifyKernelCostAttr(Operation *op, Attribute value) {
  StringLiteral name = VyreDialect::getKernelCostAttrName();
  if (!isa<DispatchOp>(op))
    return op->emitError("'")
           << name << "' belongs on a vyre.dispatch: it is a kernel launch's "
           << "time";
  auto cost = dyn_cast<FloatAttr>(value);
  if (!cost)
    return op->emitError("'")
           << name << "' must be a float number of microseconds (30.0, not "
           << "30), not " << value;
  double micros = cost.getValueAsDouble();
  if (!std::isfinite(micros) || micros < 0)
    return op->emitError("'")
           << name << "' must be a finite number of microseconds, 0 or more, "
           << "not " << value;
  return success();
}

LogicalResult VyreDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  if (attribute.getName() == getKernelCostAttrName())
    return verifyKernelCostAttr(op, attribute.getValue());
  if (attribute.getName() == getKernelAccessAttrName())
    return verifyKernelAccessAttr(op, attribute.getValue());
  if (attribute.getName() == getFunctionEffectsAttrName())
    return verifyFunctionEffectsAttr(op, attribute.getValue());
  if (attribute.getName() == getWrittenAsyncAttrName() &&
      !isa<UnitAttr>(attribute.getValue()))
    return op->emitError("'")
           << getWrittenAsyncAttrName() << "' is a unit attribute";
  if (attribute.getName() == getHostWaitJoinAttrName()) {
    auto join = dyn_cast<gpu::WaitOp>(op);
    if (!isa<UnitAttr>(attribute.getValue()) || !join ||
        !join.getAsyncToken() || join.getAsyncDependencies().empty())
      return op->emitError("'")
             << getHostWaitJoinAttrName()
             << "' is a unit attribute of a gpu.wait async on tokens";
  }
  return success();
}

bool mlir::vyre::containsVyreOps(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<VyreDialect>(nested->getDialect()) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
      })
      .wasInterrupted();
}

bool mlir::vyre::containsVyreOps(Region &region) {
  for (Block &block : region)
    for (Operation &op : block)
      if (containsVyreOps(&op))
        return true;
  return false;
}

bool mlir::vyre::isDeviceRegion(Operation *op) {
  if (!isa<scf::ForOp, scf::IfOp>(op) || !containsVyreOps(op))
    return false;
  return llvm::all_of(op->getRegions(), [](Region &region) {
    return region.empty() ||
           (region.hasOneBlock() &&
            llvm::all_of(region.front(), [](Operation &nested) {
              return nested.getNumRegions() == 0 ||
                     !containsVyreOps(&nested) || isDeviceRegion(&nested);
            }));
  });
}

bool mlir::vyre::isDeviceLoop(Operation *loop) {
  return isa<scf::ForOp>(loop) && isDeviceRegion(loop);
}

bool mlir::vyre::warnIfNotImported(Operation *function,
                                   StringRef passArgument) {
  if (containsVyreOps(function) ||
      function->hasAttr(VyreDialect::getNotImportedAttrName()))
    return false;
  bool hasHostOps =
      function
          ->walk([](Operation *op) {
            return isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp,
                       gpu::MemsetOp, gpu::LaunchFuncOp, gpu::LaunchOp>(op)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
  if (!hasHostOps)
    return false;
  // At the location, not the op: the warning need not print the function.
  emitWarning(function->getLoc(), "holds gpu host ops and no vyre ops, so --")
      << passArgument
      << " does nothing to it: import them first with "
         "--convert-gpu-host-to-vyre (or use --vyre-gpu-async-pipeline)";
  return true;
}

bool mlir::vyre::isRegisteredWithGPU(Value buffer) {
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value each = worklist.pop_back_val();
    for (Operation *user : each.getUsers()) {
      if (isa<gpu::HostRegisterOp>(user))
        return true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == each)
        worklist.append(user->result_begin(), user->result_end());
    }
  }
  return false;
}
