// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=true side-streams=2" --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=true" --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// With async-d2h=false, device-to-host copies stay on the main stream
// (asynchronous there, unless async-in-place=false too).
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false" | FileCheck %s --check-prefix=SYNC
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false async-in-place=false" | FileCheck %s --check-prefix=BLOCKING
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false --remarks-filter=overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=HAND
// SYNC-NOT: vyre.copy_d2h_async {{.*}} on stream {{[1-9]}}
// SYNC: vyre.copy_d2h_async {{.*}} on stream 0
// SYNC-NOT: vyre.copy_d2h_async {{.*}} on stream {{[1-9]}}
// BLOCKING-NOT: vyre.copy_d2h_async
// BLOCKING: vyre.copy_d2h %
// BLOCKING-NOT: vyre.copy_d2h_async

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
}

// Tests that a D2H copy becomes asynchronous on a stream of its own, after
// the main stream's work that produced its source; a kernel that does not
// write the source runs beside it, a kernel that writes it waits for it on the
// device, and the host waits only before it reads the destination.
// CHECK-LABEL: func.func @result_copied_back
// CHECK: vyre.dispatch @k::@write
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: %[[T:.+]] = vyre.copy_d2h_async %{{.+}} to %{{.+}} on stream 2 after [%[[R]]]
// CHECK-NEXT: vyre.dispatch @k::@read
// CHECK-NEXT: vyre.wait %[[T]]
// CHECK-NEXT: %[[R2:.+]] = vyre.record
// CHECK-NEXT: vyre.dispatch @k::@write
// The main stream already waited for the copy: the host waits for that.
// CHECK-NEXT: vyre.sync %[[R2]]
// CHECK-NEXT: memref.load
func.func @result_copied_back(%out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
  vyre.copy_d2h %y to %out : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
  %v = memref.load %out[%c0] : memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that a copy back into a host buffer that a later H2D copy reads is
// waited for by that copy (its token); the kernel's wait for that copy then
// covers both, and the return waits for the main stream.
// CHECK-LABEL: func.func @round_trip
// CHECK: %[[D2H:.+]] = vyre.copy_d2h_async %{{.+}} to %[[STAGE:[^ ]+]] on stream 2
// CHECK-NEXT: %[[H2D:.+]] = vyre.copy_h2d_async %[[STAGE]] to %{{.+}} on stream 1 after [%[[D2H]]]
// CHECK-NEXT: vyre.wait %[[H2D]]
// CHECK-NEXT: vyre.dispatch
// CHECK-NEXT: return
func.func @round_trip() {
  %c1 = arith.constant 1 : index
  %stage = memref.alloc() : memref<16xf32>
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  vyre.copy_d2h %a to %stage : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %stage to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// -----

gpu.module @k {
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that in a loop body with nothing on the host, each iteration's copy
// back is waited for by the main stream before the iteration ends, and the
// host waits for the main stream only before it reads the buffer after the
// loop, not right after the loop: the kernel between is issued while the
// loop runs.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK: %[[T:.+]] = vyre.copy_d2h_async
// CHECK: vyre.wait %[[T]]
// CHECK-NEXT: }
// CHECK-NEXT: vyre.dispatch @k::@write
// CHECK-NEXT: %[[P:.+]] = vyre.record
// CHECK-NEXT: vyre.sync %[[P]]
// CHECK-NEXT: memref.load
func.func @loop(%out: memref<16xf32> {vyre.pinned}, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y = vyre.alloc : memref<16xf32>
  %z = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
    vyre.copy_d2h %y to %out : memref<16xf32> to memref<16xf32>
  }
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%z : memref<16xf32>)
  %r = memref.load %out[%c0] : memref<16xf32>
  return %r : f32
}

// With a host op in the body (a store into an argument that may alias the
// result), each iteration's copy back is waited for on the host, within the
// iteration, and nothing is left for after the loop.
// CHECK-LABEL: func.func @loop_with_host_op
// CHECK: scf.for
// CHECK: %[[T:.+]] = vyre.copy_d2h_async
// CHECK-NEXT: vyre.sync %[[T]]
// CHECK-NOT: vyre.wait
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @loop_with_host_op(%out: memref<16xf32> {vyre.pinned}, %n: index,
                             %scratch: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
    vyre.copy_d2h %y to %out : memref<16xf32> to memref<16xf32>
    memref.store %v, %scratch[%c0] : memref<4xf32>
  }
  return
}

// -----

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
}

// Tests that a D2H copy waits for the kernel that wrote its source, not for
// a later kernel that touches neither its source nor its destination: its
// record is right after the writer.
// CHECK-LABEL: func.func @waits_for_the_writer_only
// CHECK: vyre.dispatch @k::@write
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: vyre.dispatch @k::@read
// CHECK-NEXT: vyre.copy_d2h_async {{.*}} after [%[[R]]]
func.func @waits_for_the_writer_only(%out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %y = vyre.alloc : memref<16xf32>
  %other = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%other : memref<16xf32>)
  vyre.copy_d2h %y to %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests d2h-streams: independent copies back take the D2H streams in turn
// (2, then 3, with side-streams=1), and a copy into the same host buffer as
// an earlier one follows it on its stream. With one D2H stream (the
// default), all take stream 2.
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false d2h-streams=2" | FileCheck %s --check-prefix=TWO
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false d2h-streams=2" --vyre-verify-schedule --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// TWO-LABEL: func.func @two_d2h_streams
// TWO: %[[A:.+]] = vyre.copy_d2h_async {{.*}} on stream 2
// TWO: vyre.copy_d2h_async {{.*}} on stream 3
// TWO: vyre.copy_d2h_async {{.*}} on stream 2 after [{{.*}}%[[A]]{{.*}}]
// CHECK-LABEL: func.func @two_d2h_streams
// CHECK-COUNT-3: vyre.copy_d2h_async {{.*}} on stream 2
func.func @two_d2h_streams(%out: memref<16xf32> {vyre.pinned, llvm.noalias},
                           %log: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %y = vyre.alloc : memref<16xf32>
  %z = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
  vyre.copy_d2h %y to %out : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%z : memref<16xf32>)
  vyre.copy_d2h %z to %log : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %z to %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that a copy back into an argument that may alias the source of an
// earlier copy back (two arguments without llvm.noalias) waits for it: the
// property test found a race here with two D2H streams, where the second
// copy took the other stream.
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false d2h-streams=2" | FileCheck %s --check-prefix=ALIAS
// ALIAS-LABEL: func.func @into_a_possible_alias
// ALIAS: %[[FIRST:.+]] = vyre.copy_d2h_async %arg0 to %arg2 on stream 2
// ALIAS-NEXT: vyre.copy_d2h_async %arg0 to %arg1 on stream 2 after [{{.*}}%[[FIRST]]{{.*}}]
func.func @into_a_possible_alias(%x: memref<16xf32>, %y: memref<16xf32>,
                                 %out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  vyre.copy_d2h %x to %out : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %x to %y : memref<16xf32> to memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// Tests that in a function with asynchronous copies written by hand, the
// copies into the host stay on the main stream: the pass does not plan their
// order with the hand-written ones (here, a copy back of a buffer a
// hand-written copy fills, waited for inside the loop). Nothing on the host
// reads the copy's destination before the return, so the host does not wait
// for it.
// CHECK-LABEL: func.func @hand_written
// HAND: remark: [Missed] HandWrittenAsyncCopies | Category:overlap-copies | Function=hand_written | Remark="the function has asynchronous copies written by hand: its copies into the host stay on the main stream
// HAND-NOT: HandWrittenAsyncCopies
// CHECK-NOT:     vyre.copy_d2h_async {{.*}} on stream {{[1-9]}}
// CHECK:         scf.for
// CHECK:         vyre.copy_d2h_async %{{.+}} to %{{.+}} on stream 0 :
// CHECK-NEXT:    }
// CHECK-NEXT:    vyre.sync %{{.+}}
// CHECK-NEXT:    vyre.dealloc
func.func @hand_written(%w: memref<16xf32> {vyre.pinned, llvm.noalias},
                        %out: memref<16xf32> {vyre.pinned, llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y = vyre.alloc : memref<16xf32>
  %r = vyre.record
  %t = vyre.copy_h2d_async %w to %y on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.wait %t
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
    vyre.copy_d2h %y to %out : memref<16xf32> to memref<16xf32>
  }
  vyre.sync %t
  vyre.dealloc %y : memref<16xf32>
  return
}
