// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null

// Host ops stay on the host: the body of a non-outlined gpu.launch is device
// code, and gets no vyre.record or vyre.sync; the launch as a whole waits
// for what its body touches.

gpu.module @k {
  gpu.func @w(%a: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %a[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that a launch body reading a buffer a copy fills, in a loop in the
// body, gets no host wait inside: the host waits before the launch.
// CHECK-LABEL: func.func @launch_body_reads_the_copy
// CHECK: %[[T:.+]] = vyre.copy_h2d_async
// CHECK: vyre.sync %[[T]]
// CHECK: gpu.launch
// CHECK-NOT: vyre.
// CHECK: gpu.terminator
func.func @launch_body_reads_the_copy(%h0: memref<16xf32> {llvm.noalias}, %h1: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  scf.for %j = %c0 to %n step %c1 {
    vyre.copy_h2d %h0 to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@w blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
      scf.for %i = %c0 to %n step %c1 {
        %e = memref.load %a[%i] : memref<16xf32>
        memref.store %e, %b[%i] : memref<16xf32>
      }
      gpu.terminator
    }
    vyre.copy_d2h %b to %h1 : memref<16xf32> to memref<16xf32>
  }
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %b : memref<16xf32>
  return
}

// -----

// Tests that a launch body touching nothing the copy touches does not order
// it: the copy stays in flight across the launch.
// CHECK-LABEL: func.func @launch_body_touches_another_buffer
// CHECK: %[[T:.+]] = vyre.copy_h2d_async
// CHECK-NOT: vyre.sync
// CHECK: gpu.launch
// CHECK-NOT: vyre.
// CHECK: gpu.terminator
// CHECK: vyre.sync %[[T]]
// CHECK-NEXT: return
func.func @launch_body_touches_another_buffer(%h0: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h0 to %a : memref<16xf32> to memref<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %b[%tx] : memref<16xf32>
    gpu.terminator
  }
  vyre.dealloc %b : memref<16xf32>
  return
}
