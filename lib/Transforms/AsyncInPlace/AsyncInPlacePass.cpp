//===- AsyncInPlacePass.cpp - Copies on the main stream, host goes on -*- C++ -*-===//
//
// --vyre-async-in-place: the copies that run on the main stream stop making
// the host wait after each (AsyncInPlaceCopies.h).
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/Passes.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Transforms/AsyncInPlace/AsyncInPlaceCopies.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_ASYNCINPLACEPASS
#include "vyre/Transforms/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

struct AsyncInPlacePass
    : public vyre::impl::AsyncInPlacePassBase<AsyncInPlacePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    bool hasCopies = function
                         .walk([](Operation *op) {
                           return isa<CopyH2DOp, CopyD2HOp>(op)
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         })
                         .wasInterrupted();
    if (!hasCopies) {
      markAllAnalysesPreserved();
      return;
    }
    if (failed(diagnoseVyreOpsInDeviceCode(function)) ||
        failed(diagnoseHostAccessToDeviceMemory(function)))
      return signalPassFailure();
    AsyncInPlaceOptions options;
    options.waitBeforeAnyEffect = waitBeforeAnyEffect;
    makeInPlaceCopiesAsync(function, getAnalysis<SlotAccessAnalysis>(),
                           options);
  }
};

} // namespace
