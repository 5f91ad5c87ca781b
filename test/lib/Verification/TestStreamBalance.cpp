//===- TestStreamBalance.cpp - Streams and events paired on every path ---===//
//
// --test-vyre-stream-balance: checks host code after upstream's gpu-to-llvm
// (LLVM dialect) for the runtime calls that create and destroy CUDA streams
// and events. On every path from a function's entry to a return, each
// mgpuStreamCreate must be matched by one mgpuStreamDestroy and each
// mgpuEventCreate by one mgpuEventDestroy. The count of live streams (and
// events) on entry to a block must not depend on the path taken to it, so a
// loop whose body creates more than it destroys, or a branch that destroys
// what the other does not, is found; at a return both counts must be zero.
//
//===----------------------------------------------------------------------===//

#include "TestStreamBalance.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"

#include <deque>

using namespace mlir;

namespace {

/// Live streams and live events.
using Balance = std::pair<int64_t, int64_t>;

/// The change a block makes to the balance.
static Balance blockDelta(Block &block) {
  Balance delta{0, 0};
  for (auto call : block.getOps<LLVM::CallOp>()) {
    std::optional<StringRef> callee = call.getCallee();
    if (!callee)
      continue;
    if (*callee == "mgpuStreamCreate")
      ++delta.first;
    else if (*callee == "mgpuStreamDestroy")
      --delta.first;
    else if (*callee == "mgpuEventCreate")
      ++delta.second;
    else if (*callee == "mgpuEventDestroy")
      --delta.second;
  }
  return delta;
}

static LogicalResult checkFunction(LLVM::LLVMFuncOp function) {
  if (function.isExternal())
    return success();
  llvm::DenseMap<Block *, Balance> onEntry;
  // Breadth first, so that the first report is where paths meet.
  std::deque<Block *> worklist{&function.getBody().front()};
  onEntry[worklist.front()] = {0, 0};
  while (!worklist.empty()) {
    Block *block = worklist.front();
    worklist.pop_front();
    Balance delta = blockDelta(*block);
    Balance after{onEntry[block].first + delta.first,
                  onEntry[block].second + delta.second};
    Operation *terminator = block->getTerminator();
    if (isa<LLVM::ReturnOp>(terminator) && after != Balance{0, 0})
      return terminator->emitError("returns with ")
             << after.first << " streams and " << after.second
             << " events created and not destroyed on some path";
    for (Block *successor : block->getSuccessors()) {
      auto [it, inserted] = onEntry.try_emplace(successor, after);
      if (inserted) {
        worklist.push_back(successor);
        continue;
      }
      if (it->second != after)
        return successor->getParentOp()->emitError("a block is reached with ")
               << it->second.first << " or " << after.first
               << " live streams and " << it->second.second << " or "
               << after.second
               << " live events, depending on the path: creates and "
                  "destroys are unpaired on some path";
    }
  }
  return success();
}

struct TestStreamBalancePass
    : public PassWrapper<TestStreamBalancePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestStreamBalancePass)

  StringRef getArgument() const final { return "test-vyre-stream-balance"; }
  StringRef getDescription() const final {
    return "Check that the CUDA streams and events upstream's gpu-to-llvm "
           "creates are destroyed once on every path";
  }
  void runOnOperation() override {
    if (failed(mlir::vyre::test::checkStreamBalance(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult mlir::vyre::test::checkStreamBalance(ModuleOp module) {
  bool balanced = true;
  // Host functions only: kernels live in gpu.module or gpu.binary ops.
  for (auto function : module.getOps<LLVM::LLVMFuncOp>())
    if (failed(checkFunction(function)))
      balanced = false;
  return success(balanced);
}

void mlir::vyre::test::registerTestStreamBalancePass() {
  PassRegistration<TestStreamBalancePass>();
}
