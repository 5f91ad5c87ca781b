//===- FunctionVersions.h - A function versioned for aliasing ---*- C++ -*-===//
//
// What --vyre-version-aliasing leaves for --vyre-choose-versions: a
// dispatcher that checks its memref arguments disjoint at run time and calls
// one of two private copies of the function as written, one with the checked
// arguments marked llvm.noalias. The dispatcher names them in a
// `vyre.versions` attribute until the choice is made:
//
//   vyre.versions = {disjoint = @f_disjoint, may_alias = @f_may_alias,
//                    arguments = array<i64: 0, 1>}
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TRANSFORMS_VERSIONALIASING_FUNCTIONVERSIONS_H
#define VYRE_TRANSFORMS_VERSIONALIASING_FUNCTIONVERSIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <string>

namespace mlir::vyre {

struct FunctionVersions {
  /// The function callers call; it picks a version at run time.
  func::FuncOp dispatcher;
  /// The copy with the checked arguments marked llvm.noalias.
  func::FuncOp disjoint;
  /// The copy as written.
  func::FuncOp mayAlias;
  /// The checked arguments' positions.
  SmallVector<int64_t> arguments;

  static constexpr StringLiteral kAttrName = "vyre.versions";

  /// The versions `dispatcher` names, if it is a dispatcher whose two copies
  /// are in `symbols`.
  static std::optional<FunctionVersions> of(func::FuncOp dispatcher,
                                            const SymbolTable &symbols);
  /// Writes the `vyre.versions` attribute on the dispatcher.
  void record();
  /// Removes it, once the choice is made.
  void forget();

  /// "0, 1".
  std::string describeArguments() const;
};

} // namespace mlir::vyre

#endif // VYRE_TRANSFORMS_VERSIONALIASING_FUNCTIONVERSIONS_H
