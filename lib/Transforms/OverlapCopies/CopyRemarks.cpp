//===- CopyRemarks.cpp - Why each copy went where it did ---------*- C++ -*-===//
//
// The remarks of --overlap-copies, read from the plan. The text is built only
// for remarks that are enabled (`--remarks-filter=overlap-copies`, and
// `--remarks-filter=copy-plan` for the plan itself).
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/OverlapCopies/CopyRemarks.h"

#include "vyre/Analysis/FunctionEffects.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

namespace {

remark::RemarkOpts remarkOptions(FunctionOpInterface function, StringRef name,
                                 StringRef category = kRemarkCategory) {
  return remark::RemarkOpts::name(name).category(category).function(
      function.getName());
}

/// Whether the host buffer `root` is known to be pinned: a function argument
/// marked `vyre.pinned`, or registered with gpu.host_register.
bool isPinned(Value root) {
  if (auto argument = dyn_cast<BlockArgument>(root))
    if (auto function =
            dyn_cast<FunctionOpInterface>(argument.getOwner()->getParentOp()))
      if (argument.getOwner()->isEntryBlock() &&
          function.getArgAttr(argument.getArgNumber(),
                              VyreDialect::getPinnedAttrName()))
        return true;
  return isRegisteredWithGPU(root);
}

/// Why the copy did not move further up, or nothing.
std::string describeLimit(const PlannedCopy &copy) {
  if (!copy.hoistLimit)
    return "";
  if (copy.hoistReason.kind == OrderReason::Kind::StreamOrder)
    return "; it stays behind the copy before it on side stream " +
           std::to_string(copy.stream);
  // A slot hazard names the slot; a host-buffer hazard is on the source.
  std::string where = copy.hoistReason.isHazard() &&
                              copy.hoistReason.hazard != HazardKind::HostBuffer
                          ? " on slot " + std::to_string(copy.slot)
                          : "";
  return "; it cannot move above " + copy.hoistLimit.describe("") + " (" +
         copy.hoistReason.str() + where + ")";
}

/// The kernels a copy may run beside: `3 kernel(s) (2 issued before it)`,
/// and those issued before its block.
std::string describeOverlap(const PlannedCopy &copy) {
  unsigned kernels = copy.kernelsOverlapped + copy.kernelsOverlappedBefore;
  std::string text;
  if (kernels > 0) {
    text = std::to_string(kernels) + " kernel(s)";
    if (copy.kernelsOverlappedBefore > 0)
      text += " (" + std::to_string(copy.kernelsOverlappedBefore) +
              " issued before it)";
  }
  if (copy.overlapsEarlierKernels)
    text += std::string(kernels > 0 ? " and " : "") +
            "the kernels still running when its block starts";
  return text;
}

void emitCopyRemarks(const CopyPlan &plan, const PlannedCopy &copy) {
  Location loc = copy.original->getLoc();
  std::string slot = std::to_string(copy.slot);
  // How the copy is named: by the slot it writes, or the one it reads.
  std::string what = (copy.toHost ? "copy from slot " : "copy into slot ") + slot;
  auto wait = [&] {
    return copy.firstWaiter.describe("the end of its block") + " (" +
           copy.waitReason.str() + ")";
  };
  if (copy.mayOverlapKernels()) {
    if (auto remark =
            remark::passed(vyre::getSourceLocation(loc),
                           remarkOptions(plan.function, "CopyOverlapped")))
      remark << what + " may overlap " + describeOverlap(copy) +
                    "; first wait at " + wait() + describeLimit(copy);
  } else if (auto remark = remark::missed(
                 vyre::getSourceLocation(loc),
                 remarkOptions(plan.function, "CopyNotOverlapped"))) {
    remark << what + " overlaps no kernel: " + wait() +
                  " waits for it right away" + describeLimit(copy);
  }
  if (auto remark = remark::analysis(
          vyre::getSourceLocation(loc),
          remarkOptions(plan.function, "CopyPlan", kPlanRemarkCategory))) {
    std::string text;
    llvm::raw_string_ostream os(text);
    plan.printCopy(os, copy.id);
    remark << text;
  }
  if (isPinned(copy.hostRoot))
    return;
  if (auto remark =
          remark::analysis(vyre::getSourceLocation(loc),
                           remarkOptions(plan.function, "PageableHostBuffer")))
    remark << "host buffer of the " + what +
                  " is not known to be pinned (gpu.host_register, or a "
                  "'vyre.pinned' argument): a copy from pageable memory is "
                  "staged synchronously and defeats overlap";
}

} // namespace

void overlap::emitPlanRemarks(const CopyPlan &plan) {
  // Without a remark engine every remark is dropped: skip building them.
  if (!plan.function->getContext()->getRemarkEngine())
    return;
  for (Operation *copy : plan.keptInPlace)
    remark::missed(vyre::getSourceLocation(copy->getLoc()),
                   remarkOptions(plan.function, "CopyKeptInPlace"))
        << (isa<CopyD2HOp>(copy)
                ? "copy stays in place: its source is not a known slot"
                : "copy stays in place: its destination is not a known slot");
  for (const PlannedCopy &copy : plan.copies)
    if (!copy.leftInPlace)
      emitCopyRemarks(plan, copy);
}

void overlap::emitHandWrittenAsyncRemark(FunctionOpInterface function) {
  remark::missed(vyre::getSourceLocation(function.getLoc()),
                 remarkOptions(function, "HandWrittenAsyncCopies"))
      << "the function has asynchronous copies written by hand: its copies "
         "into the host stay on the main stream (their order with the "
         "hand-written ones is not planned)";
}

void overlap::emitCopiesOrderedRemark(FunctionOpInterface function,
                                      unsigned moved) {
  remark::analysis(vyre::getSourceLocation(function.getLoc()),
                   remarkOptions(function, "CopiesOrderedByNeed"))
      << std::to_string(moved) +
             " copies issued in the order their first consumers need them: "
             "nothing ordered them among themselves, and on a side stream a "
             "copy waits for every copy issued before it";
}

void overlap::emitWorkReorderedRemark(FunctionOpInterface function,
                                      const ReorderedRun &run) {
  remark::analysis(vyre::getSourceLocation(run.first->getLoc()),
                   remarkOptions(function, "WorkOrderedByCriticalPath"))
      << std::to_string(run.ops) +
             " copies and kernels issued in the order a list schedule by "
             "critical path starts them: " +
             llvm::formatv("{0:F1} us", run.newOrderUs).str() +
             " on the engines, against " +
             llvm::formatv("{0:F1} us", run.inputOrderUs).str() +
             " in the input's order";
}

void overlap::emitCopyDeclinedRemark(FunctionOpInterface function,
                                     Operation *copy,
                                     const CopyCostVerdict &verdict) {
  remark::missed(vyre::getSourceLocation(copy->getLoc()),
                 remarkOptions(function, "CopyNotWorthMoving"))
      << verdict.describe() +
             ": left on the main stream (the overlap saves at most the "
             "copy's time, and at most the kernel time it would run beside)";
}

void overlap::emitKernelSummaryRemarks(FunctionOpInterface function,
                                       const SlotAccessAnalysis &slots) {
  for (SymbolRefAttr kernel : slots.getUnsummarizedKernels()) {
    auto remark =
        remark::missed(vyre::getSourceLocation(function.getLoc()),
                       remarkOptions(function, "KernelNotSummarized"));
    if (!remark)
      continue;
    std::string name;
    llvm::raw_string_ostream os(name);
    os << kernel;
    remark << "kernel " + name +
                  " has no 'vyre.access' summary (run --vyre-kernel-access "
                  "first): it is taken to read and write every argument";
  }
}

void overlap::emitUnknownCallRemarks(FunctionOpInterface function) {
  function->walk([&](CallOpInterface call) {
    if (getCalleeEffects(call))
      return;
    auto remark = remark::missed(vyre::getSourceLocation(call.getLoc()),
                                 remarkOptions(function, "UnknownCall"));
    if (!remark)
      return;
    std::string callee = "the callee";
    if (auto symbol =
            dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee())) {
      callee.clear();
      llvm::raw_string_ostream os(callee);
      os << symbol;
    }
    remark << "call to " + callee +
                  " may touch any buffer: the copies in flight are "
                  "synchronized before it (give it a body, or declare "
                  "'vyre.effects' on it)";
  });
}
