// RUN: vyre-opt %s --vyre-pipeline-loops="pipeline-depth=0" --verify-diagnostics

// Tests that the pass refuses a depth of zero.
// expected-error @+1 {{cannot run --vyre-pipeline-loops with pipeline-depth=0: it must be at least 1: a loop needs at least one buffer per copy}}
func.func @no_buffers(%h: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  return
}
