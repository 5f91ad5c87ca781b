//===- FunctionVersions.cpp - A function versioned for aliasing -*- C++ -*-===//

#include "vyre/Transforms/VersionAliasing/FunctionVersions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::vyre;

std::optional<FunctionVersions>
FunctionVersions::of(func::FuncOp dispatcher, const SymbolTable &symbols) {
  auto dictionary = dispatcher->getAttrOfType<DictionaryAttr>(kAttrName);
  if (!dictionary)
    return std::nullopt;
  auto disjointName = dictionary.getAs<FlatSymbolRefAttr>("disjoint");
  auto mayAliasName = dictionary.getAs<FlatSymbolRefAttr>("may_alias");
  auto arguments = dictionary.getAs<DenseI64ArrayAttr>("arguments");
  if (!disjointName || !mayAliasName || !arguments)
    return std::nullopt;
  FunctionVersions versions;
  versions.dispatcher = dispatcher;
  versions.disjoint = symbols.lookup<func::FuncOp>(disjointName.getValue());
  versions.mayAlias = symbols.lookup<func::FuncOp>(mayAliasName.getValue());
  if (!versions.disjoint || !versions.mayAlias ||
      versions.disjoint.isExternal() || versions.mayAlias.isExternal())
    return std::nullopt;
  versions.arguments.assign(arguments.asArrayRef().begin(),
                            arguments.asArrayRef().end());
  return versions;
}

void FunctionVersions::record() {
  Builder builder(dispatcher.getContext());
  dispatcher->setAttr(
      kAttrName,
      builder.getDictionaryAttr(
          {builder.getNamedAttr("disjoint",
                                FlatSymbolRefAttr::get(disjoint.getSymNameAttr())),
           builder.getNamedAttr("may_alias",
                                FlatSymbolRefAttr::get(mayAlias.getSymNameAttr())),
           builder.getNamedAttr("arguments",
                                builder.getDenseI64ArrayAttr(arguments))}));
}

void FunctionVersions::forget() { dispatcher->removeAttr(kAttrName); }

std::string FunctionVersions::describeArguments() const {
  std::string text;
  for (int64_t argument : arguments)
    text += (text.empty() ? "" : ", ") + std::to_string(argument);
  return text;
}
