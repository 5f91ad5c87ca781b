// RUN: vyre-opt %s --vyre-kernel-access | FileCheck %s
// Running it twice changes nothing.
// RUN: vyre-opt %s --vyre-kernel-access | vyre-opt --vyre-kernel-access | FileCheck %s

// Tests the summary --vyre-kernel-access records on each kernel: per
// argument, in the vocabulary of a dispatch's access list.
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @copy
  // CHECK-SAME: vyre.access = [#vyre.access<read>, #vyre.access<write>, #vyre.access<none>, #vyre.access<none>]
  gpu.func @copy(%in: memref<16xf32>, %out: memref<16xf32>, %unused: memref<16xf32>, %n: index) kernel {
    %i = gpu.thread_id x
    %v = memref.load %in[%i] : memref<16xf32>
    memref.store %v, %out[%i] : memref<16xf32>
    gpu.return
  }

  // An atomic read-modify-write is both; a store through a view is a write
  // of the viewed argument.
  // CHECK-LABEL: gpu.func @views_and_atomics
  // CHECK-SAME: vyre.access = [#vyre.access<readwrite>, #vyre.access<write>]
  gpu.func @views_and_atomics(%sum: memref<1xf32>, %out: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %r = memref.atomic_rmw addf %one, %sum[%c0] : (f32, memref<1xf32>) -> f32
    %half = memref.subview %out[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
    memref.store %r, %half[%c0] : memref<8xf32, strided<[1]>>
    gpu.return
  }

  // A summary already there is widened to cover the body, never narrowed.
  // CHECK-LABEL: gpu.func @widened
  // CHECK-SAME: vyre.access = [#vyre.access<readwrite>, #vyre.access<write>]
  gpu.func @widened(%a: memref<16xf32>, %b: memref<16xf32>) kernel attributes {vyre.access = [#vyre.access<write>, #vyre.access<write>]} {
    %i = gpu.thread_id x
    %v = memref.load %a[%i] : memref<16xf32>
    gpu.return
  }

  // A function that is not a kernel gets no summary.
  // CHECK-LABEL: gpu.func @helper
  // CHECK-NOT: vyre.access
  // CHECK: gpu.return
  gpu.func @helper(%a: memref<16xf32>) {
    gpu.return
  }

  // A bodiless kernel keeps what it declares, or gets nothing.
  // CHECK: func.func private @declared(memref<16xf32>) attributes {gpu.kernel, vyre.access = [#vyre.access<read>]}
  func.func private @declared(memref<16xf32>) attributes {gpu.kernel, vyre.access = [#vyre.access<read>]}
  // CHECK: func.func private @undeclared(memref<16xf32>) attributes {gpu.kernel}
  func.func private @undeclared(memref<16xf32>) attributes {gpu.kernel}

  // A func.func kernel with a body is summarized too.
  // CHECK-LABEL: func.func @func_kernel
  // CHECK-SAME: vyre.access = [#vyre.access<readwrite>]
  func.func @func_kernel(%a: memref<16xf32>) attributes {gpu.kernel} {
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0] : memref<16xf32>
    func.call @external(%a) : (memref<16xf32>) -> ()
    return
  }
  func.func private @external(memref<16xf32>)
}
