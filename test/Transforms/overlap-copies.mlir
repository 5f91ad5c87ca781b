// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies | FileCheck %s
// The referee accepts every output.
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies --vyre-verify-schedule -o /dev/null

// Tests the runtime policy's own example: a copy, then a kernel on another
// slot. The kernel overlaps the copy; the kernel reading the slot waits.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests that a kernel reading, or writing, the copy's slot waits for it, and
// that an empty kernel on the slot does not.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests hoisting: kernel A, a copy, kernel B reading the copy. Nothing would
// overlap unless the copy moves above A.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests that only the first op touching the slot waits: the main stream
// orders the rest.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests write-after-read: the copy cannot move above an earlier reader of its
// slot, and waits for that reader only (a record after it), not the stream.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests write-after-write: an earlier writer of the slot is waited for the same
// way.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests the other device-side hazards on the slot: a D2H copy from it and a
// dealloc of it wait for the copy on the device.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests two copies into one slot: the second depends on the first's token,
// and only the second is waited for.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests two copies from one host buffer: reads do not conflict, both hoist
// above an unrelated kernel. The copy nothing reads is joined at the return.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// CHECK-LABEL: func.func @two_copies_one_host_buffer
func.func @two_copies_one_host_buffer(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  // CHECK: %[[TA:.+]] = vyre.copy_h2d_async %[[H:[^ ]+]] to %[[A:[^ ]+]] on
  // CHECK-NEXT: vyre.alloc
  // CHECK-NEXT: %[[TB:.+]] = vyre.copy_h2d_async %[[H]] to %[[B:[^ ]+]] on
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

// -----

// Tests that a host write to the copy's source waits on the host (vyre.sync),
// after which the main stream needs no wait either; a host write to another
// buffer neither waits nor stops hoisting.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests that freeing the copy's source on the host waits for the copy.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests that an op with unknown effects (a call) stops hoisting and is
// preceded by a sync; the copy after it gets a record for the call's work.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests that hoisting stops at the definition of the copy's operands: a view
// of the destination, and a view of the source.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests that an op with regions counts as what its body touches: a loop that
// reads the slot waits for the copy before it starts, and a loop that does
// not is overlapped.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests that a loop writing the host source on the host gets a sync before
// it, and that the copy cannot move above a loop that writes the slot.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests a copy inside a loop body: it overlaps within the body, waits for the
// main stream's earlier work at the body's start (an earlier iteration may
// still read the slot), and is synchronized before the yield only if the main
// stream did not wait for it.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// CHECK-LABEL: func.func @copy_in_loop
func.func @copy_in_loop(%h: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
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
  // CHECK: scf.for
  // CHECK-NEXT: vyre.record
  // CHECK-NEXT: %[[U:.+]] = vyre.copy_h2d_async
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: vyre.sync %[[U]]
  // CHECK-NEXT: }
  scf.for %i = %c0 to %n step %c1 {
    vyre.copy_h2d %h to %c : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  return
}

// -----

// Tests copies in both branches of an scf.if, each joined in its own block,
// and a copy before the if that the then-branch reads.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// CHECK-LABEL: func.func @copies_in_if
func.func @copies_in_if(%h: memref<16xf32>, %cond: i1) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: %[[T:.+]] = vyre.copy_h2d_async {{.*}} to %[[A:[^ ]+]] on
  // CHECK: vyre.wait %[[T]]
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: vyre.record
  // CHECK-NEXT: %[[TT:.+]] = vyre.copy_h2d_async
  // CHECK-NEXT: vyre.dispatch @k::@read {{.*}} args(%[[A]] :
  // CHECK-NEXT: vyre.sync %[[TT]]
  // CHECK-NEXT: } else {
  // CHECK-NEXT: vyre.record
  // CHECK-NEXT: %[[TE:.+]] = vyre.copy_h2d_async
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

// -----

// Tests that a function without copies is left exactly as it is, waits and
// records included.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests a copy whose destination is not a known slot: it stays in place.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func private @make_buffer() -> memref<16xf32>
// CHECK-LABEL: func.func @unknown_destination
func.func @unknown_destination(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %d = func.call @make_buffer() : () -> memref<16xf32>
  // CHECK: vyre.copy_h2d %{{.+}} to
  // CHECK-NOT: vyre.copy_h2d_async
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  return
}


// -----

// Tests that a blocking D2H copy after the wait orders the host too: the host
// write of the source after it needs no sync.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// CHECK-LABEL: func.func @d2h_orders_the_host
func.func @d2h_orders_the_host(%h: memref<16xf32> {llvm.noalias}, %out: memref<16xf32> {llvm.noalias}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: vyre.wait
  // CHECK-NEXT: vyre.dispatch @k::@read
  // CHECK-NEXT: vyre.copy_d2h
  // CHECK-NEXT: memref.store
  // CHECK-NOT: vyre.sync
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  memref.store %v, %h[%c0] : memref<16xf32>
  return
}

// -----

// Tests that an async copy already in the input, which a main-stream wait
// cannot order, takes the token of an open copy into its slot as a
// dependency.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests that a kernel writing a function argument that may alias the copy's
// host source is ordered after the copy, and keeps the copy below it.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// CHECK-LABEL: func.func @kernel_writes_aliasing_argument
func.func @kernel_writes_aliasing_argument(%h: memref<16xf32>, %d: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: vyre.dispatch @k::@write
  // CHECK-NEXT: vyre.record
  // CHECK-NEXT: %[[T:.+]] = vyre.copy_h2d_async
  // CHECK-NEXT: vyre.wait %[[T]]
  // CHECK-NEXT: vyre.dispatch @k::@write
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}


// -----

// Tests that a host op touching a buffer that main-stream work may still be
// using waits for the main stream (a record synchronized once), next to a host
// write of the copy's source, which waits for the copy only.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests copies through arguments that may alias: a copy into %g, which may be
// %h, waits for the copies still reading %h; with llvm.noalias it does not.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// CHECK-LABEL: func.func @aliasing_arguments
func.func @aliasing_arguments(%h: memref<16xf32>, %g: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: vyre.copy_h2d_async %[[H:[^ ]+]] to %{{.+}} on stream 1 :
  // CHECK: %[[TB:.+]] = vyre.copy_h2d_async %[[H]] to %{{.+}} on stream 1 :
  // CHECK: vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1 after [{{.*}}%[[TB]]{{.*}}]
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %g : memref<16xf32> to memref<16xf32>
  return
}
// CHECK-LABEL: func.func @noalias_arguments
func.func @noalias_arguments(%h: memref<16xf32> {llvm.noalias}, %g: memref<16xf32> {llvm.noalias}) {
  %a = vyre.alloc : memref<16xf32>
  // The copy into %g waits only for the caller's work on it (a record at
  // the start), not for the copy reading %h.
  // CHECK: %[[R:.+]] = vyre.record
  // CHECK: vyre.copy_h2d_async
  // CHECK-NEXT: vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1 after [%[[R]]] :
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %g : memref<16xf32> to memref<16xf32>
  return
}


// -----

// Tests a copy whose source is a device buffer (found by vyre-fuzz-mlir): it
// stays behind the kernel that writes its source and depends on it, and a
// later kernel writing the source waits for the copy to have read it.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

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

// -----

// Tests that a host write through a pointer taken from a copy's source waits
// for the copy: the pass cannot tell what a store through a pointer touches,
// so it assumes everything.
gpu.module @kernels {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
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
  vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  vyre.dealloc %d : memref<16xf32>
  return
}

// -----

// Tests that taking a pointer without accessing memory through it leaves
// the copy in flight: only the access is a host op that may touch the buffer.
gpu.module @kernels {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
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
  vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  vyre.dealloc %d : memref<16xf32>
  return %integer : i64
}
