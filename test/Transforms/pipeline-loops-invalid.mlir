// RUN: vyre-opt %s --vyre-pipeline-loops="max-pipeline-depth=1" --verify-diagnostics

// Tests that the pass refuses to choose depths up to one.
// expected-error @+1 {{cannot run --vyre-pipeline-loops with max-pipeline-depth=1: it must be at least 2: the depths chosen from start at 2}}
func.func @no_buffers(%h: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  return
}
