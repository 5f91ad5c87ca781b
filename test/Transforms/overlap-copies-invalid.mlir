// RUN: vyre-opt %s --overlap-copies="cost-model=false side-streams=0" --verify-diagnostics

// Tests that the pass refuses to run without a side stream.
// expected-error @+1 {{cannot run --overlap-copies with side-streams=0: it must be at least 1: copies need at least one side stream}}
func.func @no_side_stream(%h: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  return
}
