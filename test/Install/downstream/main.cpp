//===- main.cpp - A downstream compiler using vyre's C++ API ----*- C++ -*-===//
//
// Parses a vyre program, runs vyre's pipeline to the gpu dialect in its own
// pass manager, and checks the result: every copy became an async gpu.memcpy
// and no vyre op is left.
//
//===----------------------------------------------------------------------===//

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/InitVyre.h"
#include "vyre/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

static const char *kProgram = R"mlir(
  gpu.module @k {
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @f(%h: memref<16xf32> {vyre.pinned}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<16xf32>
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    vyre.dealloc %a : memref<16xf32>
    return
  }
)mlir";

int main() {
  mlir::DialectRegistry registry;
  mlir::vyre::registerVyreDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kProgram, &context);
  if (!module)
    return 1;

  mlir::PassManager pm(&context);
  mlir::vyre::VyreToGPUPipelineOptions options;
  options.sideStreams = 2;
  mlir::vyre::buildVyreToGPUPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1;

  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  llvm::outs() << text;
  bool copied = text.find("gpu.memcpy async") != std::string::npos;
  bool leftover = false;
  module->walk([&](mlir::Operation *op) {
    leftover |= llvm::isa<mlir::vyre::VyreDialect>(op->getDialect());
  });
  if (!copied || leftover) {
    llvm::errs() << "downstream: unexpected pipeline output\n";
    return 1;
  }
  llvm::outs() << "downstream: ok\n";
  return 0;
}
