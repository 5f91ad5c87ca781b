//===- ApplyCopyPlan.cpp - Build what the plan says --------------*- C++ -*-===//
//
// The second half of --overlap-copies: it makes no decision. It inserts the
// planned ops in the order they were planned, each at its place, resolves
// planned dependencies to tokens, and erases the copies the plan replaces.
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/OverlapCopies/CopyPlan.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

namespace {

/// Builds one plan.
class PlanBuilder {
public:
  explicit PlanBuilder(CopyPlan &plan)
      : plan(plan), builder(plan.function.getContext()),
        copies(plan.copies.size()), built(plan.insertions.size()) {}

  void run() {
    for (auto [index, insertion] : llvm::enumerate(plan.insertions))
      built[index] = build(insertion);
    for (auto &[foreign, awaited] : plan.foreignDependencies) {
      SmallVector<Value> tokens = tokensOf(awaited);
      if (auto copy = dyn_cast<CopyH2DAsyncOp>(foreign))
        appendDependencies(copy, tokens);
      else
        appendDependencies(cast<CopyD2HAsyncOp>(foreign), tokens);
    }
    for (PlannedCopy &copy : plan.copies)
      if (!copy.leftInPlace)
        copy.original->erase();
  }

private:
  template <typename AsyncCopy>
  static void appendDependencies(AsyncCopy copy, ArrayRef<Value> tokens) {
    for (Value token : tokens)
      if (!llvm::is_contained(copy.getDependencies(), token))
        copy.getDependenciesMutable().append(token);
  }

  /// Sets the insertion point after `anchor` (null: the block's start), after
  /// the ops built there before.
  void setInsertionPointAfter(Block *block, Operation *anchor) {
    if (Operation *last = lastAfter.lookup({block, anchor}))
      builder.setInsertionPointAfter(last);
    else if (anchor)
      builder.setInsertionPointAfter(anchor);
    else
      builder.setInsertionPointToStart(block);
  }

  /// Sets the insertion point before `op` (null: the end of `block`).
  void setInsertionPointBefore(Block *block, Operation *op) {
    if (op)
      builder.setInsertionPoint(op);
    else
      builder.setInsertionPointToEnd(block);
  }

  SmallVector<Value> tokensOf(ArrayRef<unsigned> planned) {
    return llvm::map_to_vector(
        planned, [&](unsigned copy) -> Value { return copies[copy]; });
  }

  Value resolve(const PlannedDependency &dependency, Block *block) {
    switch (dependency.kind) {
    case PlannedDependency::Kind::Copy:
      return copies[dependency.copy];
    case PlannedDependency::Kind::Token:
      return dependency.token;
    case PlannedDependency::Kind::Record:
      return recordAfter.lookup(
          {dependency.getRecordBlock(block), dependency.recordAnchor});
    }
    llvm_unreachable("unknown dependency kind");
  }

  Operation *buildCopy(const PlannedInsertion &insertion) {
    PlannedCopy &planned = plan.copies[insertion.copy];
    SmallVector<Value> dependencies = llvm::map_to_vector(
        planned.dependencies, [&](const PlannedDependency &dependency) {
          return resolve(dependency, insertion.block);
        });
    Operation *original = planned.original;
    Value source = original->getOperand(0), target = original->getOperand(1);
    Operation *copy =
        planned.toHost
            ? CopyD2HAsyncOp::create(builder, insertion.loc, source, target,
                                     planned.stream, dependencies)
                  .getOperation()
            : CopyH2DAsyncOp::create(builder, insertion.loc, source, target,
                                     planned.stream, dependencies)
                  .getOperation();
    copy->setDiscardableAttrs(original->getDiscardableAttrDictionary());
    copies[insertion.copy] = copy->getResult(0);
    return copy;
  }

  Operation *build(const PlannedInsertion &insertion) {
    Location loc = insertion.loc;
    switch (insertion.kind) {
    case PlannedInsertion::Kind::Record:
    case PlannedInsertion::Kind::Copy: {
      setInsertionPointAfter(insertion.block, insertion.anchor);
      Operation *op = insertion.kind == PlannedInsertion::Kind::Copy
                          ? buildCopy(insertion)
                          : RecordOp::create(builder, loc).getOperation();
      lastAfter[{insertion.block, insertion.anchor}] = op;
      if (auto record = dyn_cast<RecordOp>(op))
        recordAfter[{insertion.block, insertion.anchor}] = record.getToken();
      return op;
    }
    case PlannedInsertion::Kind::Wait:
      setInsertionPointBefore(insertion.block, insertion.before);
      return WaitOp::create(builder, loc, tokensOf(insertion.copies));
    case PlannedInsertion::Kind::RecordAfterWait: {
      builder.setInsertionPointAfter(built[*insertion.afterWait]);
      auto record = RecordOp::create(builder, loc);
      recordAfterWait[*insertion.afterWait] = record.getToken();
      return record;
    }
    case PlannedInsertion::Kind::Sync: {
      SmallVector<Value> tokens = tokensOf(insertion.copies);
      if (insertion.afterWait)
        tokens.push_back(recordAfterWait.lookup(*insertion.afterWait));
      setInsertionPointBefore(insertion.block, insertion.before);
      return SyncOp::create(builder, loc, tokens);
    }
    case PlannedInsertion::Kind::MainStreamSync: {
      setInsertionPointBefore(insertion.block, insertion.before);
      Value progress = RecordOp::create(builder, loc);
      return SyncOp::create(builder, loc, ValueRange{progress});
    }
    }
    llvm_unreachable("unknown insertion kind");
  }

  CopyPlan &plan;
  OpBuilder builder;
  /// The async copy built for each planned copy, and the op built for each
  /// insertion.
  /// The token of each planned copy, once built.
  SmallVector<Value> copies;
  SmallVector<Operation *> built;
  DenseMap<std::pair<Block *, Operation *>, Operation *> lastAfter;
  DenseMap<std::pair<Block *, Operation *>, Value> recordAfter;
  DenseMap<unsigned, Value> recordAfterWait;
};

} // namespace

void overlap::applyCopyPlan(CopyPlan &plan) { PlanBuilder(plan).run(); }
