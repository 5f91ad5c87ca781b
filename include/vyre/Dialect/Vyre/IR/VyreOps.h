//===- VyreOps.h - Operations of the vyre dialect ---------------*- C++ -*-===//

#ifndef VYRE_DIALECT_VYRE_IR_VYREOPS_H
#define VYRE_DIALECT_VYRE_IR_VYREOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "vyre/Dialect/Vyre/IR/VyreAttrs.h"
#include "vyre/Dialect/Vyre/IR/VyreDialect.h"
#include "vyre/Dialect/Vyre/IR/VyreInterfaces.h"
#include "vyre/Dialect/Vyre/IR/VyreTypes.h"

#define GET_OP_CLASSES
#include "vyre/Dialect/Vyre/IR/VyreOps.h.inc"

namespace mlir::vyre {

/// Whether the vyre ops of `function` are in stream form: it holds a stream op
/// that makes or awaits a token (`copy_h2d_async`, `record`, `wait`, `sync`),
/// so its author (or
/// `--overlap-copies`) placed every host wait. Otherwise the function has
/// sequential semantics: each vyre op completes before the next host op that
/// may touch memory.
bool isInStreamForm(Operation *function);

} // namespace mlir::vyre

#endif // VYRE_DIALECT_VYRE_IR_VYREOPS_H
