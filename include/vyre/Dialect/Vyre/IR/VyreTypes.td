//===- VyreTypes.td - Types of the vyre dialect ------------*- tablegen -*-===//

#ifndef VYRE_DIALECT_VYRE_IR_VYRETYPES_TD
#define VYRE_DIALECT_VYRE_IR_VYRETYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "vyre/Dialect/Vyre/IR/VyreDialect.td"

class Vyre_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Vyre_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Vyre_TokenType : Vyre_Type<"Token", "token"> {
  let summary = "The completion of asynchronous device work";
  let description = [{
    A token marks the completion of an asynchronous op (`vyre.copy_h2d_async`)
    or of the main stream's work up to a point (`vyre.record`). The main stream
    waits for a token with `vyre.wait`, the host blocks on one with
    `vyre.sync`, and an async copy may take tokens as dependencies.

    ```mlir
    %t = vyre.record
    ```
  }];
}

#endif // VYRE_DIALECT_VYRE_IR_VYRETYPES_TD
