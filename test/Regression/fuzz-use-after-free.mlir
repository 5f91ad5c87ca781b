// RUN: vyre-opt %s --convert-vyre-to-gpu --vyre-verify-gpu-streams --verify-diagnostics -o /dev/null

// Tests that a program that uses a buffer after freeing it (an input found by
// vyre-fuzz-mlir, which now tells such inputs apart from faults of the
// passes) keeps its fault through the lowering, and the gpu-level referee
// reports it where it is.
func.func @use_after_free(%h: memref<16xf32>) {
  %d = vyre.alloc : memref<16xf32>
  vyre.copy_d2h %d to %h : memref<16xf32> to memref<16xf32>
  // expected-note @+1 {{the dealloc}}
  vyre.dealloc %d : memref<16xf32>
  // expected-error @+1 {{uses a buffer after its 'gpu.dealloc'}}
  vyre.copy_d2h %d to %h : memref<16xf32> to memref<16xf32>
  return
}
