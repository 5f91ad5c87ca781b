// The value interpreter runs host code on symbolic data and reports, per
// function, the digest of what its caller sees (ValueInterpreter.h).
//
// The pipelined program leaves the same digest as the loop it came from:
// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-value-digest="index=4" -o /dev/null 2> %t.before
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --test-vyre-value-digest="index=4" -o /dev/null 2> %t.after
// RUN: cat %t.before %t.after | FileCheck %s --check-prefix=SAME
// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-value-digest="index=0" -o /dev/null 2> %t.before0
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --test-vyre-value-digest="index=0" -o /dev/null 2> %t.after0
// RUN: cat %t.before0 %t.after0 | FileCheck %s --check-prefix=SAME
// So does what the whole default pipeline lowers it to, the streams and
// events run eagerly, lazily or at random:
// RUN: vyre-opt %s --vyre-to-gpu-pipeline -o %t.lowered.mlir
// RUN: vyre-opt %t.lowered.mlir --test-vyre-value-digest="index=4 interleaving=eager" -o /dev/null 2> %t.eager
// RUN: vyre-opt %t.lowered.mlir --test-vyre-value-digest="index=4 interleaving=lazy" -o /dev/null 2> %t.lazy
// RUN: vyre-opt %t.lowered.mlir --test-vyre-value-digest="index=4 interleaving=random seed=7" -o /dev/null 2> %t.random
// RUN: cat %t.before %t.eager | FileCheck %s --check-prefix=SAME
// RUN: cat %t.before %t.lazy | FileCheck %s --check-prefix=SAME
// RUN: cat %t.before %t.random | FileCheck %s --check-prefix=SAME
// (A wrong rewrite changes the digest: test-vyre-value-digest-rotation.mlir.)
// A store through a pointer reaches the buffer it was taken from:
// RUN: vyre-opt %s --test-vyre-value-digest -o /dev/null 2>&1 | FileCheck %s --check-prefix=POINTER

// SAME: remark: digest [[D:0x[0-9a-f]+]]
// SAME: remark: digest [[D]]
// POINTER: remark: digest
// POINTER: remark: digest [[P:0x[0-9a-f]+]]
// POINTER: remark: digest [[P]]

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

// The host stores through a pointer into the buffer, as @direct does
// directly: both leave the same digest.
func.func @pointer(%h: memref<16xf32>, %v: f32) {
  %a = memref.extract_aligned_pointer_as_index %h : memref<16xf32> -> index
  %i = arith.index_cast %a : index to i64
  %p = llvm.inttoptr %i : i64 to !llvm.ptr
  llvm.store %v, %p : f32, !llvm.ptr
  return
}

func.func @direct(%h: memref<16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  memref.store %v, %h[%c0] : memref<16xf32>
  return
}
