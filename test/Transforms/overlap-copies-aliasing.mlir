// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false | FileCheck %s
// The referee accepts every output.
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null

// Function arguments without llvm.noalias may be one buffer: a copy from one
// is ordered against work on the other, as if they were the same.

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

// Tests that a kernel writing a function argument that may alias the copy's
// host source is ordered after the copy, and keeps the copy below it.
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

// Tests copies through arguments that may alias: a copy into %g, which may be
// %h, waits for the copies still reading %h; with llvm.noalias it does not.
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
