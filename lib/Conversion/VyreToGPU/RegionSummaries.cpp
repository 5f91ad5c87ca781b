//===- RegionSummaries.cpp - What a region op holds, computed once --------===//
//
// Each region op's summary is made from the ops directly in its blocks: a
// vyre op adds itself, a region op its own summary (made before, the walk is
// post-order). So the whole function costs its number of ops, plus the
// tokens that cross each level of a nest.
//
//===----------------------------------------------------------------------===//

#include "RegionSummaries.h"

#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::vyre_to_gpu;

void RegionSummaries::compute(Operation *root) {
  summaries.clear();
  root->walk([&](Operation *op) {
    if (op->getNumRegions() != 0)
      summaries[op] = summarize(op);
  });
}

const RegionSummaries::Summary *RegionSummaries::lookup(Operation *op) const {
  auto it = summaries.find(op);
  return it == summaries.end() ? nullptr : &it->second;
}

RegionSummaries::Summary RegionSummaries::summarize(Operation *op) const {
  Summary summary;
  summary.holdsVyreOps = isa<VyreDialect>(op->getDialect());
  bool nestedAreDeviceRegions = true;
  llvm::SmallDenseSet<int64_t, 4> sides;
  llvm::SmallDenseSet<Value, 4> tokens;
  auto addToken = [&](Value token) {
    // A token defined directly in `op`'s blocks is defined inside it.
    if (token.getParentRegion()->getParentOp() != op &&
        tokens.insert(token).second)
      summary.tokensFromOutside.push_back(token);
  };
  for (Region &region : op->getRegions()) {
    if (!region.empty() && !region.hasOneBlock())
      nestedAreDeviceRegions = false;
    for (Block &block : region) {
      for (Operation &nested : block) {
        if (nested.getNumRegions() == 0) {
          if (!isa<VyreDialect>(nested.getDialect()))
            continue;
          summary.holdsVyreOps = true;
          if (isa<CopyH2DAsyncOp, CopyD2HAsyncOp>(nested)) {
            int64_t index = *cast<StreamOpInterface>(nested).getStreamIndex();
            if (index != 0 && sides.insert(index).second)
              summary.sideStreams.push_back(index);
          }
          for (Value operand : nested.getOperands())
            if (isa<TokenType>(operand.getType()))
              addToken(operand);
          continue;
        }
        const Summary &inner = *lookup(&nested);
        if (!inner.holdsVyreOps)
          continue;
        summary.holdsVyreOps = true;
        nestedAreDeviceRegions &= inner.isDeviceRegion;
        for (int64_t index : inner.sideStreams)
          if (sides.insert(index).second)
            summary.sideStreams.push_back(index);
        for (Value token : inner.tokensFromOutside)
          addToken(token);
      }
    }
  }
  summary.isDeviceRegion = isa<scf::ForOp, scf::IfOp>(op) &&
                           summary.holdsVyreOps && nestedAreDeviceRegions;
  return summary;
}

bool RegionSummaries::holdsVyreOps(Operation *op) const {
  if (op->getNumRegions() == 0)
    return isa<VyreDialect>(op->getDialect());
  if (const Summary *summary = lookup(op))
    return summary->holdsVyreOps;
  return containsVyreOps(op);
}

bool RegionSummaries::holdsVyreOps(Region &region) const {
  for (Block &block : region)
    for (Operation &op : block)
      if (holdsVyreOps(&op))
        return true;
  return false;
}

bool RegionSummaries::isDeviceRegion(Operation *op) const {
  if (const Summary *summary = lookup(op))
    return summary->isDeviceRegion;
  return vyre::isDeviceRegion(op);
}

ArrayRef<int64_t> RegionSummaries::sideStreams(Operation *op) const {
  const Summary *summary = lookup(op);
  assert(summary && "a region op of the function before the lowering");
  return summary->sideStreams;
}

ArrayRef<Value> RegionSummaries::tokensFromOutside(Operation *op) const {
  const Summary *summary = lookup(op);
  assert(summary && "a region op of the function before the lowering");
  return summary->tokensFromOutside;
}
