//===- SlotAccessBench.cpp - Cost of the slot access analysis ---*- C++ -*-===//
//
// Builds one host function with N dispatches of 100 distinct kernels over 64
// device buffers, and times SlotAccessAnalysis on it for N = 10k and 100k.
// The cost per dispatch should stay flat: the analysis is linear.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

using namespace mlir;
using namespace mlir::vyre;

static constexpr unsigned kNumKernels = 100;
static constexpr unsigned kNumBuffers = 64;
static constexpr unsigned kRepetitions = 3;

/// Kernel k loads from argument k % 3 and stores to argument (k + 1) % 3.
static void buildKernels(OpBuilder &builder, ModuleOp module,
                         MemRefType bufferType) {
  Location loc = builder.getUnknownLoc();
  builder.setInsertionPointToEnd(module.getBody());
  auto kernels = gpu::GPUModuleOp::create(builder, loc, "kernels");
  auto kernelType =
      builder.getFunctionType({bufferType, bufferType, bufferType}, {});
  for (unsigned k = 0; k < kNumKernels; ++k) {
    builder.setInsertionPointToEnd(kernels.getBody());
    auto kernel = gpu::GPUFuncOp::create(builder, loc,
                                         ("k" + llvm::Twine(k)).str(),
                                         kernelType);
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    builder.getUnitAttr());
    Block &body = kernel.getBody().front();
    builder.setInsertionPointToEnd(&body);
    Value i = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
    Value v = memref::LoadOp::create(builder, loc, body.getArgument(k % 3),
                                     ValueRange{i});
    memref::StoreOp::create(builder, loc, v, body.getArgument((k + 1) % 3),
                            ValueRange{i});
    gpu::ReturnOp::create(builder, loc);
  }
}

/// A host function with `numDispatches` dispatches over kNumBuffers buffers.
static func::FuncOp buildHost(OpBuilder &builder, ModuleOp module,
                              MemRefType bufferType, unsigned numDispatches) {
  Location loc = builder.getUnknownLoc();
  builder.setInsertionPointToEnd(module.getBody());
  auto host = func::FuncOp::create(
      builder, loc, ("host" + llvm::Twine(numDispatches)).str(),
      builder.getFunctionType({}, {}));
  builder.setInsertionPointToEnd(host.addEntryBlock());
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  SmallVector<Value> buffers;
  for (unsigned b = 0; b < kNumBuffers; ++b)
    buffers.push_back(AllocOp::create(builder, loc, bufferType, ValueRange{}));
  for (unsigned d = 0; d < numDispatches; ++d) {
    unsigned k = d % kNumKernels;
    auto callee = SymbolRefAttr::get(
        builder.getStringAttr("kernels"),
        {FlatSymbolRefAttr::get(builder.getStringAttr(
            ("k" + llvm::Twine(k)).str()))});
    SmallVector<Value, 3> operands{buffers[d % kNumBuffers],
                                   buffers[(d * 7 + 1) % kNumBuffers],
                                   buffers[(d * 13 + 2) % kNumBuffers]};
    DispatchOp::create(builder, loc, callee, one, one, one, one, one, one,
                       operands, ArrayAttr());
  }
  func::ReturnOp::create(builder, loc);
  return host;
}

int main(int argc, char **argv) {
  DialectRegistry registry;
  registerVyreDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OpBuilder builder(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  auto bufferType = MemRefType::get({256}, builder.getF32Type());
  buildKernels(builder, *module, bufferType);

  llvm::outs() << "# " << argv[0] << "\n";
  llvm::outs() << "# SlotAccessAnalysis on one function: " << kNumKernels
               << " kernels, " << kNumBuffers << " buffers; best of "
               << kRepetitions << "\n";
  llvm::outs() << llvm::format("%12s %14s %18s\n", "dispatches", "total ms",
                               "ns per dispatch");
  double previousPerDispatch = 0;
  for (unsigned numDispatches : {10000u, 30000u, 100000u, 300000u}) {
    func::FuncOp host = buildHost(builder, *module, bufferType, numDispatches);
    double best = 1e300;
    size_t checksum = 0;
    for (unsigned rep = 0; rep < kRepetitions; ++rep) {
      auto start = std::chrono::steady_clock::now();
      SlotAccessAnalysis analysis(host);
      auto end = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double>(end - start).count());
      host.walk([&](DispatchOp dispatch) {
        checksum += analysis.getSummary(dispatch).getWrites().size();
      });
    }
    double perDispatch = best * 1e9 / numDispatches;
    llvm::outs() << llvm::format("%12u %14.2f %18.1f", numDispatches,
                                 best * 1e3, perDispatch);
    if (previousPerDispatch > 0)
      llvm::outs() << llvm::format("   (x%.2f per dispatch vs the row above)",
                                   perDispatch / previousPerDispatch);
    llvm::outs() << "\n";
    previousPerDispatch = perDispatch;
    if (checksum == 0)
      return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
