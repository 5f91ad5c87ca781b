// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops="h2d-gbps=0.042" --remarks-filter=pipeline-loops -o /dev/null 2> %t.default
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops="h2d-gbps=0.042 launch-us=50" --remarks-filter=pipeline-loops -o /dev/null 2> %t.launch
// RUN: vyre-opt %s --vyre-to-gpu-pipeline="h2d-gbps=0.042 launch-us=50" --remarks-filter=pipeline-loops -o /dev/null 2> %t.pipeline
// RUN: FileCheck %s --check-prefix=DEFAULT < %t.default
// RUN: cat %t.pipeline %t.launch %t.default | FileCheck %s

// Tests that the depth trials schedule and simulate with the pass's options
// of --overlap-copies' names (side streams, asynchronous copies, the
// runtime's overheads), and that --vyre-to-gpu-pipeline gives them the
// options --overlap-copies runs with. With 50 us per launch the trials'
// makespans differ from the defaults', and the pipeline's trials find what
// the pass's own do with the same options.
// DEFAULT: LoopPipelined {{.*}} once scheduled and simulated ({{[0-9.]+}} us at depth 2
// CHECK: LoopPipelined {{.*}} once scheduled and simulated ([[LAUNCH:[0-9.]+]] us at depth 2
// CHECK: LoopPipelined {{.*}} once scheduled and simulated ([[LAUNCH]] us at depth 2
// CHECK-NOT: ([[LAUNCH]] us at depth 2
module {
  gpu.module @k {
    gpu.func @use(%x: memref<1024xf32>) kernel {
      gpu.return
    }
  }
  func.func @steps(%rows: memref<8x1024xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = vyre.alloc : memref<1024xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %row = memref.subview %rows[%i, 0] [1, 1024] [1, 1] : memref<8x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %x : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<1024xf32>) access [read] {vyre.cost_us = 100.0}
    }
    vyre.dealloc %x : memref<1024xf32>
    return
  }
}
