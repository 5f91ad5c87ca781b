// RUN: vyre-opt %s --split-input-file --verify-diagnostics

// Tests that vyre.effects is "none" or "arguments".
// expected-error @+1 {{'vyre.effects' must be "none" or "arguments", not "all"}}
func.func private @bad_value() attributes {vyre.effects = "all"}

// -----

// Tests that vyre.effects belongs on a function.
func.func @not_a_function() {
  // expected-error @+1 {{'vyre.effects' belongs on a function}}
  %c0 = arith.constant {vyre.effects = "none"} 0 : index
  return
}
