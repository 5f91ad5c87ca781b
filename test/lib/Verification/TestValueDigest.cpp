//===- TestValueDigest.cpp - Print what a host program computes -*- C++ -*-===//
//
// --test-vyre-value-digest: runs each function with a body on symbolic data
// (ValueInterpreter.h) and reports, as a remark on it, the digest of what
// its caller sees, or why there is none. Two programs that compute the same
// thing get the same digest, whatever level each is at.
//
//===----------------------------------------------------------------------===//

#include "ValueInterpreter.h"

#include "mlir/Pass/Pass.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::test;

namespace {

struct TestValueDigestPass
    : public PassWrapper<TestValueDigestPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestValueDigestPass)
  TestValueDigestPass() = default;
  TestValueDigestPass(const TestValueDigestPass &other) : PassWrapper(other) {}
  StringRef getArgument() const final { return "test-vyre-value-digest"; }
  StringRef getDescription() const final {
    return "Report, as a remark per function, the digest of what the "
           "function computes on symbolic data";
  }
  Option<int64_t> index{*this, "index",
                        llvm::cl::desc("Value of every index argument"),
                        llvm::cl::init(3)};
  Option<bool> condition{*this, "condition",
                         llvm::cl::desc("Value of every i1 argument"),
                         llvm::cl::init(true)};
  Option<bool> aliasArguments{
      *this, "alias-arguments",
      llvm::cl::desc("Memref arguments without llvm.noalias of one type "
                     "share one buffer"),
      llvm::cl::init(false)};
  Option<Interleaving> interleaving{
      *this, "interleaving", llvm::cl::desc("When queued device work runs"),
      llvm::cl::init(Interleaving::Eager),
      llvm::cl::values(
          clEnumValN(Interleaving::Eager, "eager", "as soon as it may"),
          clEnumValN(Interleaving::Lazy, "lazy",
                     "only when the host waits for it"),
          clEnumValN(Interleaving::Random, "random",
                     "at random points in between"))};
  Option<uint64_t> seed{*this, "seed",
                        llvm::cl::desc("Seed of the random interleaving"),
                        llvm::cl::init(0)};

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    markAllAnalysesPreserved();
    if (function.isExternal())
      return;
    ValueRunOptions options;
    options.index = index;
    options.condition = condition;
    options.aliasArguments = aliasArguments;
    options.interleaving = interleaving;
    options.seed = seed;
    ValueRun run = runOnSymbolicData(function, options);
    std::string digest;
    llvm::raw_string_ostream os(digest);
    os << llvm::format_hex(run.digest, 18);
    switch (run.status) {
    case ValueRun::Status::Returned:
      function.emitRemark("digest ") << digest;
      return;
    case ValueRun::Status::Unmodelled:
      function.emitRemark("no digest: ") << run.message;
      return;
    case ValueRun::Status::Fault:
      function.emitRemark("fault: ") << run.message;
      return;
    }
  }
};

} // namespace

void vyre::test::registerTestValueDigestPass() {
  PassRegistration<TestValueDigestPass>();
}
