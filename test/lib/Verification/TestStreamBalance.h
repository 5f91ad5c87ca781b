//===- TestStreamBalance.h - Streams and events paired on every path ------===//

#ifndef VYRE_TEST_VERIFICATION_TESTSTREAMBALANCE_H
#define VYRE_TEST_VERIFICATION_TESTSTREAMBALANCE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::vyre::test {

/// Checks every host llvm.func of `module` (after upstream's gpu-to-llvm):
/// on every path from entry to a return, the mgpuStreamCreate and
/// mgpuEventCreate calls are matched by as many mgpuStreamDestroy and
/// mgpuEventDestroy calls. Emits an error at the first violation per
/// function.
LogicalResult checkStreamBalance(ModuleOp module);

void registerTestStreamBalancePass();

} // namespace mlir::vyre::test

#endif // VYRE_TEST_VERIFICATION_TESTSTREAMBALANCE_H
