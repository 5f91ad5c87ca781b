// These cases are about copies into the device; D2H copies in them stay
// synchronous (overlap-copies-async-d2h.mlir covers the asynchronous ones).
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false" | FileCheck %s
// The referee accepts every output, with D2H copies synchronous or not.
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false" --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null

// Where --overlap-copies moves a host-to-device copy: above the kernels that
// do not touch its slot, up to the definitions of its operands, and nowhere
// when there is no copy to move or its destination is not a known slot.

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

// Tests the runtime policy's own example: a copy, then a kernel on another
// slot. The kernel overlaps the copy; the kernel reading the slot waits.
// CHECK-LABEL: func.func @copy_then_unrelated_kernel
// CHECK-SAME:    (%[[H:.+]]: memref<16xf32>)
func.func @copy_then_unrelated_kernel(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // CHECK: %[[A:.+]] = vyre.alloc
  // CHECK-NEXT: %[[T:.+]] = vyre.copy_h2d_async %[[H]] to %[[A]] on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: %[[B:.+]] = vyre.alloc
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK-NOT: vyre.wait
  // CHECK: vyre.dispatch @k::@read {{.*}} args(%[[B]]
  // CHECK-NEXT: vyre.wait %[[T]]
  // CHECK-NEXT: vyre.dispatch @k::@read {{.*}} args(%[[A]]
  // CHECK-NOT: vyre.sync
  // CHECK: return
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests hoisting: kernel A, a copy, kernel B reading the copy. Nothing would
// overlap unless the copy moves above A.
// CHECK-LABEL: func.func @hoist_above_kernel
func.func @hoist_above_kernel(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: vyre.alloc
  // CHECK-NEXT: %[[B:.+]] = vyre.alloc
  // CHECK-NEXT: %[[T:.+]] = vyre.copy_h2d_async {{.*}} to %[[B]]
  // CHECK-NEXT: vyre.dispatch @k::@write
  // CHECK-NEXT: vyre.wait %[[T]]
  // CHECK-NEXT: vyre.dispatch @k::@read {{.*}} args(%[[B]]
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// Tests two copies from one host buffer: reads do not conflict, both hoist
// above an unrelated kernel (the one into %b first: it is needed first). The
// copy nothing reads is joined at the return.
// CHECK-LABEL: func.func @two_copies_one_host_buffer
func.func @two_copies_one_host_buffer(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  // CHECK: %[[TB:.+]] = vyre.copy_h2d_async %[[H:[^ ]+]] to %[[B:[^ ]+]] on
  // CHECK-NEXT: %[[TA:.+]] = vyre.copy_h2d_async %[[H]] to %[[A:[^ ]+]] on
  // CHECK-NEXT: vyre.alloc
  // CHECK-NEXT: vyre.dispatch @k::@write
  // CHECK-NEXT: vyre.wait %[[TB]]
  // CHECK-NEXT: vyre.dispatch @k::@read {{.*}} args(%[[B]] :
  // CHECK-NEXT: vyre.sync %[[TA]]
  // CHECK-NEXT: return
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c : memref<16xf32>)
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// Tests that hoisting stops at the definition of the copy's operands: a view
// of the destination, and a view of the source.
// CHECK-LABEL: func.func @operand_definitions
func.func @operand_definitions(%h: memref<32xf32>, %offset: index) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<32xf32>
  %b = vyre.alloc : memref<16xf32>
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  // CHECK: vyre.dispatch @k::@write
  // CHECK-NEXT: memref.subview
  // CHECK-NEXT: memref.subview
  // CHECK-NEXT: vyre.copy_h2d_async
  // CHECK-NEXT: vyre.dispatch @k::@write
  %src = memref.subview %h[%offset] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1], offset: ?>>
  %dst = memref.subview %a[16] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1], offset: 16>>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.copy_h2d %src to %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: 16>>
  return
}

// Tests that a function without copies is left exactly as it is, waits and
// records included.
// CHECK-LABEL: func.func @no_copies
func.func @no_copies(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK-NEXT: arith.constant
  // CHECK-NEXT: vyre.alloc
  // CHECK-NEXT: vyre.dispatch
  // CHECK-NEXT: vyre.copy_d2h
  // CHECK-NEXT: return
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %h : memref<16xf32> to memref<16xf32>
  return
}

// Tests a copy whose destination is not a known slot: it stays in place, on
// the main stream (asynchronous there: nothing on the host touches its
// buffers).
func.func private @make_buffer() -> memref<16xf32>
// CHECK-LABEL: func.func @unknown_destination
func.func @unknown_destination(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %d = func.call @make_buffer() : () -> memref<16xf32>
  // CHECK: call @make_buffer
  // CHECK-NEXT: vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 0 :
  // CHECK-NEXT: vyre.dispatch
  // CHECK-NOT: on stream {{[1-9]}}
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  return
}
