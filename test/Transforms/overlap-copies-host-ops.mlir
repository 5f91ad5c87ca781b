// These cases are about copies into the device; D2H copies in them stay
// synchronous (overlap-copies-async-d2h.mlir covers the asynchronous ones).
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false" | FileCheck %s
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false async-in-place=false" | FileCheck %s --check-prefix=BLOCKING
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false async-in-place=false" --vyre-verify-schedule -o /dev/null
// The referee accepts every output, with D2H copies synchronous or not.
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false" --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null

// Host ops that touch a buffer a copy or the main stream may still be using
// wait for it on the host (vyre.sync); host ops that touch nothing of the
// kind do not.

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
  // Touches nothing.
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// Tests that a host write to the copy's source waits on the host (vyre.sync),
// after which the main stream needs no wait either; a host write to another
// buffer neither waits nor stops hoisting.
// CHECK-LABEL: func.func @host_write_to_source
func.func @host_write_to_source(%h: memref<16xf32> {llvm.noalias}, %g: memref<16xf32> {llvm.noalias}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: %[[TA:.+]] = vyre.copy_h2d_async %[[H:[^ ]+]] to
  // CHECK-NEXT: vyre.alloc
  // CHECK-NEXT: memref.store %{{.+}}, %[[G:[^ ]+]][
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: vyre.sync %[[TA]]
  // CHECK-NEXT: memref.store %{{.+}}, %[[H]][
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NOT: vyre.wait
  memref.store %v, %g[%c0] : memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  memref.store %v, %h[%c0] : memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests that freeing the copy's source on the host waits for the copy.
// CHECK-LABEL: func.func @host_free_of_source
func.func @host_free_of_source() {
  %c1 = arith.constant 1 : index
  %h = memref.alloc() : memref<16xf32>
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: %[[T:.+]] = vyre.copy_h2d_async
  // CHECK-NEXT: vyre.alloc
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: vyre.sync %[[T]]
  // CHECK-NEXT: memref.dealloc
  // CHECK-NOT: vyre.sync
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  memref.dealloc %h : memref<16xf32>
  return
}

// Tests that an op with unknown effects (a call) stops hoisting and is
// preceded by a sync; the copy after it gets a record for the call's work.
func.func private @opaque()
// CHECK-LABEL: func.func @unknown_effects
func.func @unknown_effects(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: %[[TA:.+]] = vyre.copy_h2d_async
  // CHECK-NEXT: vyre.alloc
  // CHECK-NEXT: vyre.sync %[[TA]]
  // CHECK-NEXT: call @opaque()
  // CHECK-NEXT: %[[R:.+]] = vyre.record
  // CHECK-NEXT: %[[TB:.+]] = vyre.copy_h2d_async {{.*}} after [%[[R]]]
  // CHECK-NEXT: vyre.wait %[[TB]]
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  func.call @opaque() : () -> ()
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// Tests that a D2H copy left on the main stream after the wait orders the
// host too: the host write of the source after it waits for that copy, which
// the main stream runs after the copy into the device (async-in-place; the
// copy into the host no longer blocks the host, so the wait it stood for is
// placed where the host needs it). With async-in-place=false the copy blocks
// the host, and the write needs no wait.
// CHECK-LABEL: func.func @d2h_orders_the_host
// BLOCKING-LABEL: func.func @d2h_orders_the_host
// BLOCKING: vyre.copy_d2h %
// BLOCKING-NEXT: memref.store
func.func @d2h_orders_the_host(%h: memref<16xf32> {llvm.noalias}, %out: memref<16xf32> {llvm.noalias}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: vyre.wait
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: %[[T:.+]] = vyre.copy_d2h_async {{.*}} on stream 0
  // CHECK-NEXT: vyre.sync %[[T]]
  // CHECK-NEXT: memref.store
  // CHECK-NOT: vyre.sync
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  memref.store %v, %h[%c0] : memref<16xf32>
  return
}

// Tests that a host op touching a buffer that main-stream work may still be
// using waits for the main stream (a record synchronized once), next to a host
// write of the copy's source, which waits for the copy only.
// CHECK-LABEL: func.func @host_op_after_kernel
func.func @host_op_after_kernel(%h: memref<16xf32> {llvm.noalias}, %g: memref<16xf32> {llvm.noalias}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: %[[T:.+]] = vyre.copy_h2d_async
  // CHECK: vyre.dispatch @k::@write {{.*}} args(%[[G:[^ ]+]] :
  // CHECK-NEXT: vyre.sync %[[T]]
  // CHECK-NEXT: memref.store %{{.+}}, %[[H:[^ ]+]][
  // CHECK-NEXT: %[[R:.+]] = vyre.record
  // CHECK-NEXT: vyre.sync %[[R]]
  // CHECK-NEXT: memref.store %{{.+}}, %[[G]][
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%g : memref<16xf32>)
  memref.store %v, %h[%c0] : memref<16xf32>
  memref.store %v, %g[%c0] : memref<16xf32>
  return
}

// Tests that a host write through a pointer taken from a copy's source waits
// for the copy: the pass cannot tell what a store through a pointer touches,
// so it assumes everything.
// CHECK-LABEL: func.func @store_through_pointer
func.func @store_through_pointer(%h: memref<16xf32> {llvm.noalias}, %v: f32) {
  %c1 = arith.constant 1 : index
  %d = vyre.alloc : memref<16xf32>
  // CHECK: %[[T:.+]] = vyre.copy_h2d_async
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  %address = memref.extract_aligned_pointer_as_index %h : memref<16xf32> -> index
  %integer = arith.index_cast %address : index to i64
  %pointer = llvm.inttoptr %integer : i64 to !llvm.ptr
  // CHECK: vyre.sync %[[T]]
  // CHECK-NEXT: llvm.store
  llvm.store %v, %pointer : f32, !llvm.ptr
  vyre.dispatch @k::@empty blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  vyre.dealloc %d : memref<16xf32>
  return
}

// Tests that taking a pointer without accessing memory through it leaves
// the copy in flight: only the access is a host op that may touch the buffer.
// CHECK-LABEL: func.func @pointer_without_access
func.func @pointer_without_access(%h: memref<16xf32> {llvm.noalias}) -> i64 {
  %c1 = arith.constant 1 : index
  %d = vyre.alloc : memref<16xf32>
  // CHECK: %[[T:.+]] = vyre.copy_h2d_async
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  // CHECK-NOT: vyre.sync
  // CHECK: memref.extract_aligned_pointer_as_index
  // CHECK-NOT: vyre.sync
  // CHECK: vyre.wait %[[T]]
  %address = memref.extract_aligned_pointer_as_index %h : memref<16xf32> -> index
  %integer = arith.index_cast %address : index to i64
  vyre.dispatch @k::@empty blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  vyre.dealloc %d : memref<16xf32>
  return %integer : i64
}

// Tests that a copy from a staging buffer the host has just filled waits for
// nothing but program order: the host write is done when the copy is
// enqueued, and the earlier unrelated kernel keeps running beside the copy.
// CHECK-LABEL: func.func @host_filled_staging_buffer
// CHECK: vyre.dispatch @k::@write
// CHECK-NEXT: memref.store
// CHECK-NEXT: %[[T:.+]] = vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1 :
// CHECK-NEXT: vyre.wait %[[T]]
// CHECK-NEXT: vyre.dispatch @k::@read
func.func @host_filled_staging_buffer(%stage: memref<16xf32> {vyre.pinned}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<16xf32>
  %y = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
  memref.store %v, %stage[%c0] : memref<16xf32>
  vyre.copy_h2d %stage to %y : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
  return
}

// Tests that where the op before the copy may have device work (a call of
// unknown effect), the copy still waits for the main stream past it.
// CHECK-LABEL: func.func @call_before_copy
// CHECK: call @unknown
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1 after [%[[R]]]
func.func private @unknown(memref<16xf32>)
func.func @call_before_copy(%stage: memref<16xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<16xf32>
  %y = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
  func.call @unknown(%stage) : (memref<16xf32>) -> ()
  vyre.copy_h2d %stage to %y : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
  return
}
