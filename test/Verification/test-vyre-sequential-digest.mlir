// The pipelined program leaves the same digest as the loop it came from,
// for trip counts 0 to 4:
// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-sequential-digest="index=4" -o /dev/null 2> %t.before
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --test-vyre-sequential-digest="index=4" -o /dev/null 2> %t.after
// RUN: cat %t.before %t.after | FileCheck %s --check-prefix=SAME
// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-sequential-digest="index=3" -o /dev/null 2> %t.before3
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --test-vyre-sequential-digest="index=3" -o /dev/null 2> %t.after3
// RUN: cat %t.before3 %t.after3 | FileCheck %s --check-prefix=SAME
// A wrong rewrite does not: rotating a buffer the launch only writes (it may
// leave elements of an older iteration) changes what the copies back read.
// RUN: sed -e 's/overwrite/write/' %s | vyre-opt --vyre-kernel-access --test-vyre-sequential-digest="index=4" -o /dev/null 2> %t.written
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops | sed -e 's/overwrite/write/' | vyre-opt --test-vyre-sequential-digest="index=4" -o /dev/null 2> %t.rotated
// RUN: cat %t.written %t.rotated | FileCheck %s --check-prefix=DIFFERENT
// What the interpreter does not model is said, not guessed:
// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-sequential-digest -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTMODELLED

// SAME: remark: digest [[D:0x[0-9a-f]+]]
// SAME: remark: digest [[D]]
// DIFFERENT: remark: digest [[W:0x[0-9a-f]+]]
// DIFFERENT-NOT: remark: digest [[W]]
// DIFFERENT: remark: digest
// NOTMODELLED: remark: no digest: 'memref.extract_aligned_pointer_as_index' is not modelled

gpu.module @k {
  gpu.func @model(%x: memref<16xf32>, %y: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %y[%i] : memref<16xf32>
    gpu.return
  }
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

func.func @pointer(%h: memref<16xf32>, %v: f32) {
  %a = memref.extract_aligned_pointer_as_index %h : memref<16xf32> -> index
  %i = arith.index_cast %a : index to i64
  %p = llvm.inttoptr %i : i64 to !llvm.ptr
  llvm.store %v, %p : f32, !llvm.ptr
  return
}
