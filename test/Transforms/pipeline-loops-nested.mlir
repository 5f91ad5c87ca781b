// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --remarks-filter=pipeline-loops --verify-diagnostics | FileCheck %s
// Every output, once scheduled, passes the schedule's referee.
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null
// What the whole default pipeline lowers each case to computes what the case
// computes (two outer and two inner iterations, the lowered program's device
// work run only when the host waits for it):
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=2" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=2 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered
// RUN: cat %t.input %t.lowered | FileCheck %s --check-prefix=VALUES
// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[C:0x[0-9a-f]+]]
// VALUES: remark: digest [[D:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[C]]
// VALUES: remark: digest [[D]]

// Loops nested in loops. A use of a buffer that precedes an inner loop in an
// outer loop's body runs again after the inner loop, in the outer loop's next
// iteration: the inner loop may neither rotate that buffer nor move a copy
// into it out of a loop that may not run. A use before the outer loop, or a
// buffer allocated anew in each outer iteration, does not stop it.

gpu.module @k {
  // Copies its first argument into its second (writes all of it).
  gpu.func @k_ro(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
    gpu.return
  }
}

// Tests that a buffer the inner loop fills is not rotated when the outer
// body copies it back before the inner loop: in the next outer iteration
// that copy must see the inner loop's last row, not the one the original
// buffer got.
// CHECK-LABEL: func.func @filled_read_before_inner_loop
// CHECK-COUNT-2: vyre.alloc
// CHECK-NOT: vyre.alloc
// CHECK: scf.for
// CHECK: scf.if
// CHECK: vyre.copy_d2h
// CHECK: scf.for
// CHECK-NEXT: memref.subview
// CHECK-NEXT: vyre.copy_h2d
// CHECK-NEXT: vyre.dispatch
func.func @filled_read_before_inner_loop(%in0: memref<6x4xf32> {llvm.noalias}, %out0: memref<6x4xf32> {llvm.noalias}, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<4xf32>
  %y = vyre.alloc : memref<4xf32>
  scf.for %b = %c0 to %n step %c1 {
    %later = arith.cmpi sgt, %b, %c0 : index
    scf.if %later {
      %o = memref.subview %out0[%b, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %x to %o : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
    }
    // expected-remark @below {{loop not pipelined: no copy can be issued early, and no buffer is overwritten by a launch}}
    scf.for %j = %c0 to %m step %c1 {
      %r = memref.subview %in0[%j, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      // expected-remark @below {{copy into slot 2 is not issued early: 'vyre.copy_d2h' before the loop uses slot 2 again after it, in the next run of an enclosing loop, and would see whichever rotating buffer the last iteration filled}}
      vyre.copy_h2d %r to %x : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
      vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>)
    }
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

// Tests that a buffer a launch overwrites is not rotated when the outer body
// copies it back before the inner loop; the buffer the inner loop fills,
// which nothing outside it uses, still rotates (at depth 3, two new
// buffers, not four).
// CHECK-LABEL: func.func @overwritten_read_before_inner_loop
// CHECK-COUNT-4: vyre.alloc
// CHECK-NOT: vyre.alloc
// CHECK: scf.if
// CHECK-NEXT: memref.subview
// CHECK-NEXT: vyre.copy_d2h %[[O:[^ ]+]] to
func.func @overwritten_read_before_inner_loop(%in0: memref<6x4xf32> {llvm.noalias}, %out0: memref<6x4xf32> {llvm.noalias}, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<4xf32>
  %y = vyre.alloc : memref<4xf32>
  scf.for %b = %c0 to %n step %c1 {
    %later = arith.cmpi sgt, %b, %c0 : index
    scf.if %later {
      %o = memref.subview %out0[%b, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %y to %o : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
    }
    // expected-remark @below {{loop pipelined at depth 3: 1 copies issued 2 iteration(s) ahead, 32 bytes of extra device memory}}
    scf.for %j = %c0 to %m step %c1 {
      %r = memref.subview %in0[%j, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %r to %x : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
      vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>) access [read, overwrite]
    }
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

// Tests that a copy every iteration of the inner loop repeats stays in it
// when the inner loop may run zero times and the outer body copies the
// buffer back before the inner loop: moved out, it would overwrite what an
// earlier outer iteration left there for that copy.
// CHECK-LABEL: func.func @invariant_copy_read_before_inner_loop
// CHECK: scf.for
// CHECK: scf.if
// CHECK: vyre.copy_d2h
// CHECK: scf.for
// CHECK-NEXT: vyre.copy_h2d
// CHECK-NEXT: vyre.dispatch
func.func @invariant_copy_read_before_inner_loop(%in0: memref<6x4xf32> {llvm.noalias}, %out0: memref<6x4xf32> {llvm.noalias}, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<4xf32>
  %y = vyre.alloc : memref<4xf32>
  scf.for %b = %c0 to %n step %c1 {
    %later = arith.cmpi sgt, %b, %c0 : index
    scf.if %later {
      %o = memref.subview %out0[%b, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %x to %o : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
    }
    %r = memref.subview %in0[%b, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    // expected-remark @below {{loop not pipelined: no copy can be issued early, and no buffer is overwritten by a launch}}
    scf.for %j = %c0 to %m step %c1 {
      // expected-remark @below {{copy into slot 2 is not issued early: 'vyre.copy_d2h' before the loop uses slot 2 again after it, in the next run of an enclosing loop, and would see whichever rotating buffer the last iteration filled}}
      vyre.copy_h2d %r to %x : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
      vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>)
    }
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

// Tests that uses before the outer loop do not stop the inner loop's
// rewrite: they run before every iteration of it.
// CHECK-LABEL: func.func @used_before_outer_loop
// CHECK-COUNT-3: vyre.alloc
func.func @used_before_outer_loop(%in0: memref<6x4xf32> {llvm.noalias}, %seed: memref<4xf32> {llvm.noalias}, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<4xf32>
  %y = vyre.alloc : memref<4xf32>
  vyre.copy_h2d %seed to %x : memref<4xf32> to memref<4xf32>
  scf.for %b = %c0 to %n step %c1 {
    // expected-remark @below {{loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 16 bytes of extra device memory}}
    scf.for %j = %c0 to %m step %c1 {
      %r = memref.subview %in0[%j, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %r to %x : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
      vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>)
    }
  }
  vyre.dealloc %x : memref<4xf32>
  vyre.dealloc %y : memref<4xf32>
  return
}
