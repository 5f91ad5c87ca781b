// Found by vyre-fuzz-mlir (a mutated lit input): a copy whose source is a
// device buffer was hoisted above the kernel writing that buffer.
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null



// Tests that hoist=false converts copies in place, still waiting only where
// an op conflicts, while the default moves the cunrelated
// kernel.
gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// NOHOIST-LABEL: func.func @in_place
// DEFAULT-LABEL: func.func @in_place
func.func @in_place(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // NOHOIST: vyre.dispatch @k::@write
  // NOHOIST-NEXT: %[[T:.+]] = vyre.copy_h2d_async
  // NOHOIST-NEXT: vyre.dispatch @k::@read
  // NOHOIST-NEXT: vyre.wait %[[T]]
  // NOHOIST-NEXT: vyre.dispatch @k::@read
  // DEFAULT: vyre.copy_h2d_async
  // DEFAULT-NEXT: vyre.dispatch @k::@write
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_h2d %a to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

