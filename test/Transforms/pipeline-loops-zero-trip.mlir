// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops | FileCheck %s
// A copy every iteration repeats moves out of a loop that may run zero times
// only if running it is safe where the loop would not run. What the whole
// pipeline lowers each case to computes what the case computes, with zero
// and one iterations (its device work run only when the host waits for it):
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input0
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=0 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered0
// RUN: cat %t.input0 %t.lowered0 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=1" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input1
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=1 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered1
// RUN: cat %t.input1 %t.lowered1 | FileCheck %s --check-prefix=VALUES
// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[C:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[C]]

gpu.module @k {
  gpu.func @k_ro(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
    gpu.return
  }
}

// Tests that the copy stays in the loop when its host source is freed on
// the path where the loop does not run: moved out, it would read freed
// memory.
// CHECK-LABEL: func.func @source_freed_when_loop_does_not_run
// CHECK: scf.if
// CHECK: memref.dealloc
// CHECK-NOT: vyre.copy_h2d
// CHECK: scf.if
func.func @source_freed_when_loop_does_not_run(%in0: memref<4xf32> {llvm.noalias}, %out0: memref<4xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = vyre.alloc : memref<4xf32>
  %y = vyre.alloc : memref<4xf32>
  %h = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %e = memref.load %in0[%i] : memref<4xf32>
    memref.store %e, %h[%i] : memref<4xf32>
  }
  %none = arith.cmpi eq, %n, %c0 : index
  scf.if %none {
    memref.dealloc %h : memref<4xf32>
  }
  scf.for %j = %c0 to %n step %c1 {
    vyre.copy_h2d %h to %x : memref<4xf32> to memref<4xf32>
    vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>)
  }
  vyre.copy_d2h %y to %out0 : memref<4xf32> to memref<4xf32>
  %some = arith.cmpi ne, %n, %c0 : index
  scf.if %some {
    memref.dealloc %h : memref<4xf32>
  }
  vyre.dealloc %x : memref<4xf32>
  vyre.dealloc %y : memref<4xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @k_ro(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
    gpu.return
  }
}

// Tests that the copy stays in the loop when its source is a row computed
// from the trip count: with zero trips the row is out of bounds.
// CHECK-LABEL: func.func @source_row_from_trip_count
// CHECK: %[[ROW:.+]] = memref.subview
// CHECK-NOT: vyre.copy_h2d %[[ROW]]
// CHECK: scf.if
func.func @source_row_from_trip_count(%in0: memref<6x4xf32> {llvm.noalias}, %out0: memref<4xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<4xf32>
  %y = vyre.alloc : memref<4xf32>
  %last = arith.subi %n, %c1 : index
  %r = memref.subview %in0[%last, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
  scf.for %j = %c0 to %n step %c1 {
    vyre.copy_h2d %r to %x : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
    vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>)
  }
  vyre.copy_d2h %y to %out0 : memref<4xf32> to memref<4xf32>
  vyre.dealloc %x : memref<4xf32>
  vyre.dealloc %y : memref<4xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @k_ro(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
    gpu.return
  }
}

// Tests that a copy of a whole argument, into a buffer nothing after the
// loop reads, still moves out of a loop that may not run.
// CHECK-LABEL: func.func @whole_argument_moves
// CHECK: vyre.copy_h2d
// CHECK-NEXT: scf.for
func.func @whole_argument_moves(%in0: memref<4xf32> {llvm.noalias}, %out0: memref<4xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<4xf32>
  %y = vyre.alloc : memref<4xf32>
  scf.for %j = %c0 to %n step %c1 {
    vyre.copy_h2d %in0 to %x : memref<4xf32> to memref<4xf32>
    vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>)
  }
  vyre.copy_d2h %y to %out0 : memref<4xf32> to memref<4xf32>
  vyre.dealloc %x : memref<4xf32>
  vyre.dealloc %y : memref<4xf32>
  return
}
