//===- KernelSummaries.cpp - What kernels do with their arguments ---------===//
//
// Follows each kernel argument through views to its users, and reads what
// each user does with it from the memory effects it declares.
//
//===----------------------------------------------------------------------===//

#include "KernelSummaries.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ShapedOpInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

static ArgumentUse summarize(Value argument) {
  ArgumentUse use;
  SmallVector<Value> worklist = {argument};
  while (!worklist.empty() && !(use.read && use.write)) {
    Value value = worklist.pop_back_val();
    for (OpOperand &operand : value.getUses()) {
      Operation *user = operand.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        worklist.push_back(view.getViewDest());
        continue;
      }
      if (isa<ShapedDimOpInterface>(user))
        continue;
      bool known = false;
      if (auto effects = dyn_cast<MemoryEffectOpInterface>(user)) {
        SmallVector<MemoryEffects::EffectInstance> instances;
        effects.getEffects(instances);
        for (const MemoryEffects::EffectInstance &instance : instances) {
          if (instance.getValue() != value)
            continue;
          known = true;
          if (isa<MemoryEffects::Read>(instance.getEffect()))
            use.read = true;
          else if (isa<MemoryEffects::Write>(instance.getEffect()))
            use.write = true;
          else
            use.read = use.write = true;
        }
      }
      // A use without a declared effect on the value (a call, a cast to a
      // pointer, a region op) may do anything with it.
      if (!known)
        use.read = use.write = true;
    }
  }
  return use;
}

const SmallVector<ArgumentUse> *
KernelSummaries::lookup(gpu::LaunchFuncOp launch) {
  Operation *callee =
      symbolTables.lookupNearestSymbolFrom(launch, launch.getKernel());
  auto kernel = dyn_cast_or_null<gpu::GPUFuncOp>(callee);
  if (!kernel || kernel.getBody().empty() ||
      kernel.getNumArguments() != launch.getKernelOperands().size())
    return nullptr;
  auto [it, inserted] = summaries.try_emplace(kernel.getOperation());
  if (inserted)
    for (BlockArgument argument : kernel.getArguments())
      it->second.push_back(summarize(argument));
  return &it->second;
}
