//===- KernelSymbols.cpp - The kernels of a module, by symbol -------------===//

#include "vyre/Analysis/KernelSymbols.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::vyre;

KernelSymbols::KernelSymbols(Operation *module) {
  if (module->getNumRegions() != 1)
    return;
  for (Operation &table : module->getRegion(0).getOps()) {
    if (!table.hasTrait<OpTrait::SymbolTable>() || table.getNumRegions() != 1)
      continue;
    auto tableName =
        table.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!tableName)
      continue;
    for (Operation &function : table.getRegion(0).getOps()) {
      if (!isa<FunctionOpInterface>(function))
        continue;
      auto name = function.getAttrOfType<StringAttr>(
          SymbolTable::getSymbolAttrName());
      if (!name)
        continue;
      auto reference = SymbolRefAttr::get(
          tableName, {FlatSymbolRefAttr::get(name)});
      // A name defined twice is left to the usual lookup (and verifier).
      auto [it, inserted] = functions.try_emplace(reference, &function);
      if (!inserted)
        it->second = nullptr;
    }
  }
}
