//===- VyrePlugin.cpp - vyre as a plugin for stock mlir-opt -----*- C++ -*-===//
//
// Load with `mlir-opt --load-dialect-plugin=VyrePlugin.so
// --load-pass-plugin=VyrePlugin.so` to parse vyre IR and run vyre's passes and
// pipelines in the mlir-opt that Debian ships.
//
//===----------------------------------------------------------------------===//

#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/InitVyre.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Vyre", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::vyre::VyreDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Vyre", LLVM_VERSION_STRING,
          []() { mlir::vyre::registerVyrePassesAndPipelines(); }};
}
