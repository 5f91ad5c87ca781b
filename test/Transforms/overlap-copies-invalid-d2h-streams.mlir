// RUN: vyre-opt %s --overlap-copies="cost-model=false d2h-streams=0" --verify-diagnostics

// Tests that the pass refuses asynchronous D2H copies without a stream for
// them.
// expected-error @+1 {{cannot run --overlap-copies with d2h-streams=0: it must be at least 1: asynchronous device-to-host copies (async-d2h=true) need at least one stream}}
func.func @no_d2h_stream(%h: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_d2h %a to %h : memref<16xf32> to memref<16xf32>
  return
}
