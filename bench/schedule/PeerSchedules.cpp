//===- PeerSchedules.cpp - The peers --overlap-copies is measured against -===//
//
// Rewrites a sequential vyre program as its peers would schedule it, for
// bench/schedule/run.sh to simulate side by side with --overlap-copies:
//
//   --policy=runtime  the vyre runtime's policy: each copy stays in place on
//                     a side stream after the main stream's work so far, and
//                     may overlap the next kernel only (if that kernel does
//                     not touch its slot); the kernel after waits for it.
//   --policy=coarse   a coarse policy, as XLA's copy-start: each copy stays in
//                     place on a side stream after all earlier main-stream
//                     work, and the first op that touches its slot waits.
//
// These are benchmark peers, not pass options.
//
// Usage: vyre-bench-peers --policy=runtime|coarse INPUT.mlir
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/OpFootprint.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

bool touchesSlot(const OpFootprint &footprint, ArrayRef<unsigned> slots) {
  if (footprint.unknown)
    return true;
  for (const SideAccess *side : {&footprint.device, &footprint.host})
    for (unsigned slot : slots)
      if (side->slots.mayAccess(slot))
        return true;
  return false;
}

/// Schedules the copies of `block` (and of blocks nested in it).
void schedule(Block &block, SlotAccessAnalysis &slots, bool runtimePolicy) {
  for (Operation &op : block)
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        schedule(nested, slots, runtimePolicy);

  SmallVector<CopyH2DOp> copies(block.getOps<CopyH2DOp>());
  for (CopyH2DOp copy : copies) {
    SmallVector<unsigned> copySlots = slots.getSlotsOf(copy.getTarget());
    OpBuilder builder(copy);
    Location loc = copy.getLoc();
    // The copy waits for all main-stream work so far: no hoisting.
    Value progress = RecordOp::create(builder, loc);
    auto async = CopyH2DAsyncOp::create(builder, loc, copy.getSource(),
                                        copy.getTarget(), 1,
                                        ValueRange{progress});
    copy.erase();

    unsigned kernels = 0;
    for (Operation *op = async->getNextNode(); op; op = op->getNextNode()) {
      if (op->hasTrait<OpTrait::IsTerminator>()) {
        builder.setInsertionPoint(op);
        SyncOp::create(builder, loc, ValueRange{async.getToken()});
        break;
      }
      OpFootprint footprint = computeOpFootprint(op, slots);
      bool isKernel = footprint.numKernels > 0;
      if (isKernel)
        ++kernels;
      bool tooFar = runtimePolicy && isKernel && kernels == 2;
      if (!touchesSlot(footprint, copySlots) && !tooFar)
        continue;
      builder.setInsertionPoint(op);
      if (footprint.unknown || !footprint.host.slots.isEmpty())
        SyncOp::create(builder, loc, ValueRange{async.getToken()});
      else
        WaitOp::create(builder, loc, ValueRange{async.getToken()});
      break;
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3 || (StringRef(argv[1]) != "--policy=runtime" &&
                    StringRef(argv[1]) != "--policy=coarse")) {
    llvm::errs() << "usage: vyre-bench-peers --policy=runtime|coarse FILE\n";
    return 2;
  }
  bool runtimePolicy = StringRef(argv[1]) == "--policy=runtime";
  DialectRegistry registry;
  registerVyreDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(argv[2], sourceMgr, &context);
  if (!module)
    return 1;
  for (auto function : module->getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    SlotAccessAnalysis slots(function);
    for (Block &block : function.getBody())
      schedule(block, slots, runtimePolicy);
  }
  if (failed(verify(*module)))
    return 1;
  OpPrintingFlags flags;
  flags.enableDebugInfo();
  module->print(llvm::outs(), flags);
  return 0;
}
