//===- TestSlotAccess.cpp - Print slot access summaries ---------*- C++ -*-===//
//
// --test-vyre-slot-access: one remark per vyre.dispatch with its summary,
// `reads [0, 1] writes [2]`, so lit tests can check the analysis with
// expected-remark.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/SlotAccessAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::vyre;

namespace {

struct TestSlotAccessPass
    : public PassWrapper<TestSlotAccessPass,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestSlotAccessPass)

  StringRef getArgument() const final { return "test-vyre-slot-access"; }
  StringRef getDescription() const final {
    return "Print the slot access summary of every vyre.dispatch as a remark";
  }

  void runOnOperation() override {
    auto &analysis = getAnalysis<SlotAccessAnalysis>();
    getOperation().walk([&](DispatchOp dispatch) {
      dispatch.emitRemark() << analysis.getSummary(dispatch).str();
    });
    markAllAnalysesPreserved();
  }
};

} // namespace

namespace mlir::vyre::test {
void registerTestSlotAccessPass() { PassRegistration<TestSlotAccessPass>(); }
} // namespace mlir::vyre::test
