// A wrong rewrite changes the digest: rotating a buffer the launch only
// writes (it may leave elements of an older iteration) changes what the
// copies back read. The kernel has no body, so the launch's declared access
// says what it does: `overwrite` (every element written) makes the rotation
// right, `write` (some elements) makes it wrong.
// RUN: vyre-opt %s --vyre-pipeline-loops --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINED
// PIPELINED: LoopPipelined
// RUN: vyre-opt %s --test-vyre-value-digest="index=4" -o /dev/null 2> %t.overwritten
// RUN: vyre-opt %s --vyre-pipeline-loops --test-vyre-value-digest="index=4" -o /dev/null 2> %t.pipelined
// RUN: cat %t.overwritten %t.pipelined | FileCheck %s --check-prefix=SAME
// RUN: sed -e 's/overwrite/write/' %s | vyre-opt --test-vyre-value-digest="index=4" -o /dev/null 2> %t.written
// RUN: vyre-opt %s --vyre-pipeline-loops | sed -e 's/overwrite/write/' | vyre-opt --test-vyre-value-digest="index=4" -o /dev/null 2> %t.rotated
// RUN: cat %t.written %t.rotated | FileCheck %s --check-prefix=DIFFERENT

// SAME: remark: digest [[D:0x[0-9a-f]+]]
// SAME: remark: digest [[D]]
// DIFFERENT: remark: digest [[W:0x[0-9a-f]+]]
// DIFFERENT-NOT: remark: digest [[W]]
// DIFFERENT: remark: digest

gpu.module @k {
  func.func private @model(%x: memref<16xf32>, %y: memref<16xf32>) attributes {gpu.kernel}
}

func.func @batches(%in: memref<4x16xf32> {vyre.pinned, llvm.noalias},
                   %out: memref<4x16xf32> {vyre.pinned, llvm.noalias},
                   %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<16xf32>
  %y = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %src = memref.subview %in[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %dst = memref.subview %out[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %src to %x : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@model blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<16xf32>, memref<16xf32>) access [read, overwrite]
    vyre.copy_d2h %y to %dst : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
  }
  return
}
