// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false | FileCheck %s
// The referee accepts every output.
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null

// Copies around and inside region ops: an op with regions counts as what its
// body touches, and a copy inside a loop body or a branch is joined in its
// own block.

gpu.module @k {
  // Reads its argument.
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
  // Writes its argument.
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that an op with regions counts as what its body touches: a loop that
// reads the slot waits for the copy before it starts, and a loop that does
// not is overlapped.
// CHECK-LABEL: func.func @regions_around_copies
func.func @regions_around_copies(%h: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: %[[T:.+]] = vyre.copy_h2d_async
  // CHECK-NEXT: vyre.alloc
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: }
  // CHECK-NEXT: vyre.wait %[[T]]
  // CHECK-NEXT: scf.for
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}

// Tests that a loop writing the host source on the host gets a sync before
// it, and that the copy cannot move above a loop that writes the slot.
// CHECK-LABEL: func.func @loop_hazards
func.func @loop_hazards(%h: memref<16xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: scf.for
  // CHECK: vyre.dispatch @k::@write
  // CHECK: }
  // CHECK-NEXT: %[[R:.+]] = vyre.record
  // CHECK-NEXT: %[[T:.+]] = vyre.copy_h2d_async {{.*}} after [%[[R]]]
  // CHECK-NEXT: vyre.sync %[[T]]
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: memref.store
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %h[%i] : memref<16xf32>
  }
  return
}

// Tests a copy inside a loop body: it overlaps within the body, waits for the
// main stream's earlier work at the body's start (an earlier iteration may
// still read the slot), and is joined before the yield only if the main
// stream did not wait for it.
// CHECK-LABEL: func.func @copy_in_loop
func.func @copy_in_loop(%h: memref<16xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %scratch = memref.alloc() : memref<16xf32>
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  // CHECK: scf.for
  // CHECK-NEXT: %[[R:.+]] = vyre.record
  // CHECK-NEXT: %[[T:.+]] = vyre.copy_h2d_async {{.*}} after [%[[R]]]
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: vyre.wait %[[T]]
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: }
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  // A body with nothing on the host ends with the main stream, not the
  // host, waiting for the copy still open. The host does not wait after the
  // loop: the next loop's host op touches neither the copy's source nor its
  // destination (@loop_left_running has one that does), and the return
  // waits for every stream.
  // CHECK: scf.for
  // CHECK-NEXT: vyre.record
  // CHECK-NEXT: %[[U:.+]] = vyre.copy_h2d_async
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: vyre.wait %[[U]]
  // CHECK-NEXT: }
  // CHECK-NOT: vyre.sync
  scf.for %i = %c0 to %n step %c1 {
    vyre.copy_h2d %h to %c : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  // With a host op in the body (a store into another buffer), the host
  // waits for the copy at the end of each iteration.
  // CHECK: scf.for
  // CHECK: %[[V:.+]] = vyre.copy_h2d_async
  // CHECK: memref.store
  // CHECK-NEXT: vyre.sync %[[V]]
  // CHECK-NEXT: }
  scf.for %i = %c0 to %n step %c1 {
    vyre.copy_h2d %h to %c : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    memref.store %v, %scratch[%c0] : memref<16xf32>
  }
  return
}

// Tests copies in both branches of an scf.if, each joined in its own block,
// and a copy before the if that the then-branch reads. Nothing before the
// branch touched %b: its copies follow no main-stream work.
// CHECK-LABEL: func.func @copies_in_if
func.func @copies_in_if(%h: memref<16xf32>, %cond: i1) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: %[[T:.+]] = vyre.copy_h2d_async {{.*}} to %[[A:[^ ]+]] on
  // CHECK: vyre.wait %[[T]]
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: %[[TT:.+]] = vyre.copy_h2d_async {{.*}} on stream 1 :
  // CHECK-NEXT: vyre.dispatch @k::@read {{.*}} args(%[[A]] :
  // CHECK-NEXT: vyre.sync %[[TT]]
  // CHECK-NEXT: } else {
  // CHECK-NEXT: %[[TE:.+]] = vyre.copy_h2d_async {{.*}} on stream 1 :
  // CHECK-NEXT: vyre.wait %[[TE]]
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: }
  // CHECK-NEXT: return
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  scf.if %cond {
    vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  } else {
    vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  return
}

// Tests nested device-only loops: the inner body joins its copy on the main
// stream, and the host waits once, after the outer loop, not in each outer
// iteration. With a host op in the outer body (a load), the host waits after
// the inner loop, in every outer iteration, and only once there.
// CHECK-LABEL: func.func @nested_device_loops
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        vyre.record
// CHECK-NEXT:        memref.subview
// CHECK-NEXT:        %[[U:.+]] = vyre.copy_h2d_async
// CHECK-NEXT:        vyre.dispatch @k::@read
// CHECK-NEXT:        vyre.wait %[[U]]
// CHECK-NEXT:      }
// CHECK-NEXT:      vyre.dispatch @k::@read
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[P:.+]] = vyre.record
// CHECK-NEXT:    vyre.sync %[[P]]
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for
// CHECK:             vyre.wait
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[Q:.+]] = vyre.record
// CHECK-NEXT:      vyre.sync %[[Q]]
// CHECK-NEXT:      memref.load
// CHECK-NEXT:    }
// CHECK-NEXT:    vyre.dealloc
func.func @nested_device_loops(%h: memref<4x16xf32>, %o: memref<16xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %row = memref.subview %h[%j, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
      vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    }
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      vyre.copy_h2d %o to %a : memref<16xf32> to memref<16xf32>
      vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    }
    %v = memref.load %o[%c0] : memref<16xf32>
  }
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %b : memref<16xf32>
  return
}

// Tests that after a device-only loop directly in the function's body the
// host waits for the main stream (which has joined every iteration's copies)
// only before a host op that may touch what the loop touches: the store into
// the copies' source. The kernel between is issued while the loop runs.
// CHECK-LABEL: func.func @loop_left_running
// CHECK:         scf.for
// CHECK:           vyre.wait
// CHECK-NEXT:      vyre.dispatch @k::@read
// CHECK-NEXT:    }
// CHECK-NEXT:    vyre.dispatch @k::@read
// CHECK-NEXT:    %[[P:.+]] = vyre.record
// CHECK-NEXT:    vyre.sync %[[P]]
// CHECK-NEXT:    memref.store
func.func @loop_left_running(%h: memref<16xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  memref.store %v, %h[%c0] : memref<16xf32>
  return
}

// Tests that an async copy written in the input after such a loop, which
// waits for no token of the loop, gets the host's wait for the main stream
// before it where it writes what the loop's copies read.
// CHECK-LABEL: func.func @written_copy_after_loop
// CHECK:         scf.for
// CHECK:         }
// CHECK-NEXT:    %[[P:.+]] = vyre.record
// CHECK-NEXT:    vyre.sync %[[P]]
// CHECK-NEXT:    vyre.copy_d2h_async
func.func @written_copy_after_loop(%h: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  %t = vyre.copy_d2h_async %c to %h on stream 3 : memref<16xf32> to memref<16xf32>
  vyre.sync %t
  return
}

// Tests that a device-only loop in a branch still ends with the host waiting
// for the main stream right after it: only in the function's own block is
// the wait put off to a host op that touches what the loop touched.
// CHECK-LABEL: func.func @loop_in_branch
// CHECK:         scf.if
// CHECK-NEXT:      scf.for
// CHECK:           }
// CHECK-NEXT:      %[[P:.+]] = vyre.record
// CHECK-NEXT:      vyre.sync %[[P]]
// CHECK-NEXT:      vyre.dispatch @k::@read
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Q:.+]] = vyre.record
// CHECK-NEXT:    vyre.sync %[[Q]]
// CHECK-NEXT:    memref.store
func.func @loop_in_branch(%h: memref<16xf32>, %n: index, %c: i1, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  scf.if %c {
    scf.for %i = %c0 to %n step %c1 {
      vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
      vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  memref.store %v, %h[%c0] : memref<16xf32>
  return
}

// Tests a branch in a device-only loop: the branch's copy is joined on the
// main stream at the branch's end, and the host waits for none of it after
// the loop: the main stream orders the frees, and the return waits for every
// stream. (A branch outside a loop synchronizes at its end: @copies_in_if.)
// The copy follows the earlier iterations' work, recorded at the top of the
// body, where the branch stands.
// CHECK-LABEL: func.func @branch_in_device_loop
// CHECK:         scf.for
// CHECK-NEXT:      %[[R:.+]] = vyre.record
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        %[[U:.+]] = vyre.copy_h2d_async {{.*}} after [%[[R]]]
// CHECK-NEXT:        vyre.dispatch @k::@read
// CHECK-NEXT:        vyre.wait %[[U]]
// CHECK-NEXT:      }
// CHECK-NEXT:      vyre.dispatch @k::@read
// CHECK-NEXT:    }
// CHECK-NEXT:    vyre.dealloc
func.func @branch_in_device_loop(%h: memref<16xf32>, %n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
      vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    }
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %b : memref<16xf32>
  return
}

// Tests a copy in a branch into a buffer that a kernel before the branch
// reads: it follows the main stream's progress just after that kernel (a
// record there, around the branch), not the kernels issued after it, which
// it runs beside.
// CHECK-LABEL: func.func @branch_copy_after_last_reader
// CHECK:      vyre.dispatch @k::@read {{.*}} args(%[[A:[^ ]+]] :
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: vyre.dispatch @k::@read {{.*}} args(%[[B:[^ ]+]] :
// CHECK-NEXT: scf.if
// CHECK-NEXT:   %[[T:.+]] = vyre.copy_h2d_async {{.*}} to %[[A]] on stream 1 after [%[[R]]]
func.func @branch_copy_after_last_reader(%h: memref<16xf32>, %c: i1) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  scf.if %c {
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}

// Tests the case where it must not: a copy into the buffer before the
// branch, still in flight on its stream, is what the branch's copy must
// follow; it is not a record's work, so the branch's copy follows all the
// main stream's work before the branch (a record at the branch's top), and
// its stream's order.
// CHECK-LABEL: func.func @branch_copy_after_copy
// CHECK:      scf.if
// CHECK-NEXT:   %[[R:.+]] = vyre.record
// CHECK-NEXT:   vyre.copy_h2d_async {{.*}} on stream 1 after [%[[R]]]
func.func @branch_copy_after_copy(%h: memref<16xf32>, %g: memref<16xf32>, %c: i1) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  scf.if %c {
    vyre.copy_h2d %g to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}
