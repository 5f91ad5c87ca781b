//===- VyreAttrs.td - Attributes of the vyre dialect -------*- tablegen -*-===//

#ifndef VYRE_DIALECT_VYRE_IR_VYREATTRS_TD
#define VYRE_DIALECT_VYRE_IR_VYREATTRS_TD

include "mlir/IR/EnumAttr.td"
include "vyre/Dialect/Vyre/IR/VyreDialect.td"

def Vyre_AccessKind : I32EnumAttr<"AccessKind",
    "how a kernel accesses one of its arguments", [
      I32EnumAttrCase<"Read", 0, "read">,
      I32EnumAttrCase<"Write", 1, "write">,
      I32EnumAttrCase<"ReadWrite", 2, "readwrite">,
      I32EnumAttrCase<"None", 3, "none">,
      I32EnumAttrCase<"Overwrite", 4, "overwrite">
    ]> {
  let cppNamespace = "::mlir::vyre";
  let genSpecializedAttr = 0;
}

def Vyre_AccessKindAttr : EnumAttr<Vyre_Dialect, Vyre_AccessKind, "access"> {
  let summary = "How a kernel accesses one argument: read, write, readwrite, "
                "none, or overwrite (a launch's promise that it writes every "
                "element before reading any: the contents before it are dead)";
  let assemblyFormat = "`<` $value `>`";
}

def Vyre_AccessListAttr : TypedArrayAttrBase<Vyre_AccessKindAttr,
    "list of per-argument access kinds">;

#endif // VYRE_DIALECT_VYRE_IR_VYREATTRS_TD
