//===- CopyPlan.cpp - What --overlap-copies will do to a function -*- C++ -*-===//
//
// The plan's vocabulary and printing, and the two planning steps run in
// order.
//
//===----------------------------------------------------------------------===//

#include "vyre/Transforms/OverlapCopies/CopyPlan.h"

#include "PlanContext.h"

#include "vyre/Analysis/OpFootprint.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::overlap;

std::string OrderReason::str() const {
  switch (kind) {
  case Kind::Hazard:
    return stringifyHazardKind(hazard).str();
  case Kind::OperandDefinition:
    return "operand definition";
  case Kind::StreamOrder:
    return "stream order";
  case Kind::EndOfBlock:
    return "end of block";
  }
  llvm_unreachable("unknown order reason");
}

bool PlanPoint::isBefore(const PlanPoint &other) const {
  if (anchor == other.anchor)
    return rank < other.rank;
  if (!anchor || !other.anchor)
    return !anchor;
  return anchor->isBeforeInBlock(other.anchor);
}

std::string PlanOp::describe(StringRef none) const {
  if (copy)
    return ("'" + CopyH2DAsyncOp::getOperationName() + "'").str();
  if (!op)
    return none.str();
  return ("'" + op->getName().getStringRef() + "'").str();
}

void CopyPlan::printCopy(llvm::raw_ostream &os, unsigned index) const {
  const PlannedCopy &copy = copies[index];
  os << "copy #" << index << (copy.toHost ? " from slot " : " into slot ")
     << copy.slot << ": after "
     << PlanOp{copy.at.anchor, std::nullopt}.describe("the block's start")
     << " on stream " << copy.stream << ", after [";
  llvm::interleaveComma(copy.dependencies, os,
                        [&](const PlannedDependency &dependency) {
                          switch (dependency.kind) {
                          case PlannedDependency::Kind::Copy:
                            os << "copy #" << dependency.copy;
                            break;
                          case PlannedDependency::Kind::Token:
                            os << "an input token";
                            break;
                          case PlannedDependency::Kind::Record:
                            os << "main stream at "
                               << PlanOp{dependency.recordAnchor, std::nullopt}
                                      .describe("the block's start");
                            break;
                          }
                        });
  os << "]; first wait at " << copy.firstWaiter.describe("the end of its block")
     << " (" << copy.waitReason.str() << ")";
}

void CopyPlan::print(llvm::raw_ostream &os) const {
  for (const PlannedCopy &copy : copies) {
    if (copy.leftInPlace)
      os << "copy #" << copy.id << (copy.toHost ? " from slot " : " into slot ")
         << copy.slot << ": left in place by the cost model";
    else
      printCopy(os, copy.id);
    os << "\n";
  }
  if (!keptInPlace.empty())
    os << keptInPlace.size()
       << " copy(ies) kept in place: their device end is not a known slot\n";
}

bool PlanContext::mayBeWrittenInFunction(Value hostRoot) {
  const FunctionHostWrites &writes = getFunctionHostWrites();
  return writes.anyRoot || llvm::any_of(writes.roots, [&](Value root) {
           return hostAliasing.mayAlias(root, hostRoot);
         });
}

const FunctionHostWrites &PlanContext::getFunctionHostWrites() {
  if (functionHostWrites)
    return *functionHostWrites;
  OpFootprint everything;
  for (Block &block : plan.function.getFunctionBody())
    for (Operation &op : block)
      everything.merge(footprints.get(&op));
  FunctionHostWrites &writes = functionHostWrites.emplace();
  writes.anyRoot = everything.unknown || everything.device.anyHostWrite ||
                   everything.host.anyHostWrite;
  writes.roots.insert(everything.device.hostWrites.begin(),
                      everything.device.hostWrites.end());
  writes.roots.insert(everything.host.hostWrites.begin(),
                      everything.host.hostWrites.end());
  writes.anyRootByDevice = everything.unknown || everything.device.anyHostWrite;
  writes.rootsByDevice.insert(everything.device.hostWrites.begin(),
                              everything.device.hostWrites.end());
  return writes;
}

CopyPlan overlap::planCopyOverlap(FunctionOpInterface function,
                                  const SlotAccessAnalysis &slots,
                                  const PlanOptions &options) {
  return CopyPlanner(function, slots, options).takePlan();
}
