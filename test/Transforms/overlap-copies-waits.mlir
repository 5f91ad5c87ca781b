// These cases are about copies into the device; D2H copies in them stay
// synchronous (overlap-copies-async-d2h.mlir covers the asynchronous ones).
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false" | FileCheck %s
// The referee accepts every output, with D2H copies synchronous or not.
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false" --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null

// Which device work waits for a copy, and which work the copy waits for: the
// first op on the main stream that touches its slot waits (vyre.wait), and
// the copy waits for earlier readers and writers of its slot (a record).

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

// Tests that a kernel reading, or writing, the copy's slot waits for it, and
// that an empty kernel on the slot does not.
// CHECK-LABEL: func.func @reader_writer_and_empty
func.func @reader_writer_and_empty(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: %[[TA:.+]] = vyre.copy_h2d_async {{.*}} to %[[A:[^ ]+]]
  // CHECK: %[[TB:.+]] = vyre.copy_h2d_async {{.*}} to %[[B:[^ ]+]]
  // CHECK-NOT: vyre.wait
  // CHECK: vyre.dispatch @k::@empty {{.*}} args(%[[A]]
  // CHECK-NEXT: vyre.wait %[[TA]]
  // CHECK-NEXT: vyre.dispatch @k::@read {{.*}} args(%[[A]]
  // CHECK-NEXT: vyre.wait %[[TB]]
  // CHECK-NEXT: vyre.dispatch @k::@write {{.*}} args(%[[B]]
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@empty blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// Tests that only the first op touching the slot waits: the main stream
// orders the rest.
// CHECK-LABEL: func.func @only_first_waits
func.func @only_first_waits(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: vyre.wait
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: vyre.dispatch @k::@write
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NOT: vyre.wait
  // CHECK-NOT: vyre.sync
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests write-after-read: the copy cannot move above an earlier reader of its
// slot, and waits for that reader only (a record after it), not the stream.
// CHECK-LABEL: func.func @write_after_read
func.func @write_after_read(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: vyre.dispatch @k::@read {{.*}} args(%[[A:[^ ]+]] :
  // CHECK-NEXT: %[[R:.+]] = vyre.record
  // CHECK-NEXT: %[[T:.+]] = vyre.copy_h2d_async {{.*}} to %[[A]] on stream 1 after [%[[R]]]
  // CHECK-NEXT: vyre.dispatch @k::@write {{.*}} args(%[[B:[^ ]+]] :
  // CHECK-NEXT: vyre.wait %[[T]]
  // CHECK-NEXT: vyre.dispatch @k::@read {{.*}} args(%[[A]] :
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests write-after-write: an earlier writer of the slot is waited for the same
// way.
// CHECK-LABEL: func.func @write_after_write
func.func @write_after_write(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: vyre.dispatch @k::@write
  // CHECK-NEXT: %[[R:.+]] = vyre.record
  // CHECK-NEXT: vyre.copy_h2d_async {{.*}} after [%[[R]]]
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests the other device-side hazards on the slot: a D2H copy from it and a
// dealloc of it wait for the copy on the device.
// CHECK-LABEL: func.func @d2h_and_dealloc
func.func @d2h_and_dealloc(%h: memref<16xf32> {llvm.noalias}, %out: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: %[[TA:.+]] = vyre.copy_h2d_async
  // CHECK: %[[TB:.+]] = vyre.copy_h2d_async
  // CHECK-NEXT: vyre.wait %[[TA]]{{$}}
  // CHECK-NEXT: vyre.copy_d2h
  // CHECK-NEXT: vyre.wait %[[TB]]{{$}}
  // CHECK-NEXT: vyre.dealloc
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  vyre.dealloc %b : memref<16xf32>
  return
}

// Tests two copies into one slot: the second depends on the first's token,
// and only the second is waited for.
// CHECK-LABEL: func.func @two_copies_one_slot
func.func @two_copies_one_slot(%h: memref<16xf32> {llvm.noalias}, %g: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: %[[T1:.+]] = vyre.copy_h2d_async %{{.+}} to %[[A:[^ ]+]] on stream 1 :
  // CHECK-NEXT: %[[T2:.+]] = vyre.copy_h2d_async %{{.+}} to %[[A]] on stream 1 after [%[[T1]]]
  // CHECK-NEXT: vyre.wait %[[T2]]{{$}}
  // CHECK-NEXT: vyre.dispatch @k::@read
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %g to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests that an async copy already in the input, which a main-stream wait
// cannot order, takes the token of an open copy into its slot as a
// dependency.
// CHECK-LABEL: func.func @async_copy_in_input
func.func @async_copy_in_input(%h: memref<16xf32> {llvm.noalias}, %g: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: %[[T:.+]] = vyre.copy_h2d_async %{{.+}} to %[[A:[^ ]+]] on stream 1 :
  // CHECK-NEXT: %[[U:.+]] = vyre.copy_h2d_async %{{.+}} to %[[A]] on stream 2 after [%[[T]]]
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  %u = vyre.copy_h2d_async %g to %a on stream 2 : memref<16xf32> to memref<16xf32>
  vyre.wait %u
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests the same for an async copy into the host in the input: it reads
// the slot an open copy writes, so it takes that copy's token too (a wait
// on the main stream, whose progress it already depends on, would not order
// it).
// CHECK-LABEL: func.func @async_copy_back_in_input
func.func @async_copy_back_in_input(%h: memref<16xf32> {llvm.noalias, vyre.pinned}, %out: memref<16xf32> {llvm.noalias, vyre.pinned}) {
  %a = vyre.alloc : memref<16xf32>
  // CHECK: %[[T:.+]] = vyre.copy_h2d_async %{{.+}} to %[[A:[^ ]+]] on stream 1 :
  // CHECK-NEXT: %[[R:.+]] = vyre.record
  // CHECK-NEXT: vyre.copy_d2h_async %[[A]] to %{{.+}} on stream 2 after [%[[R]], %[[T]]]
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  %r = vyre.record
  %u = vyre.copy_d2h_async %a to %out on stream 2 after [%r] : memref<16xf32> to memref<16xf32>
  vyre.sync %u
  vyre.dealloc %a : memref<16xf32>
  return
}

// Tests a copy whose source is a device buffer (found by vyre-fuzz-mlir): it
// stays behind the kernel that writes its source and depends on it, and a
// later kernel writing the source waits for the copy to have read it.
// CHECK-LABEL: func.func @device_source
func.func @device_source() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: vyre.dispatch @k::@write {{.*}} args(%[[A:[^ ]+]] :
  // CHECK-NEXT: %[[R:.+]] = vyre.record
  // CHECK-NEXT: %[[T:.+]] = vyre.copy_h2d_async %[[A]] to %{{.+}} on stream 1 after [%[[R]]]
  // CHECK-NEXT: vyre.wait %[[T]]
  // CHECK-NEXT: vyre.dispatch @k::@write {{.*}} args(%[[A]] :
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_h2d %a to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}
