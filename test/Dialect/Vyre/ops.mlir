// RUN: vyre-opt %s | FileCheck %s
// Round trips: printing and parsing again is stable through the custom form,
// the generic form and bytecode.
// RUN: vyre-opt %s | vyre-opt | FileCheck %s
// RUN: vyre-opt %s --mlir-print-op-generic | vyre-opt | FileCheck %s
// RUN: vyre-opt %s --emit-bytecode | vyre-opt | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @axpy(%x: memref<1024xf32>, %y: memref<1024xf32>, %a: f32) kernel {
      gpu.return
    }
    func.func private @opaque(%x: memref<?xf32>) attributes {gpu.kernel}
  }

  // Tests that device buffers, copies and dispatches print as they parse.
  // CHECK-LABEL: func.func @sequential
  // CHECK-SAME:    (%[[HX:.+]]: memref<1024xf32>, %[[HY:.+]]: memref<1024xf32>, %[[N:.+]]: index)
  func.func @sequential(%hx: memref<1024xf32>, %hy: memref<1024xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %a = arith.constant 2.0 : f32
    // CHECK: %[[X:.+]] = vyre.alloc : memref<1024xf32>
    %x = vyre.alloc : memref<1024xf32>
    // CHECK: %[[Y:.+]] = vyre.alloc : memref<1024xf32>
    %y = vyre.alloc : memref<1024xf32>
    // CHECK: %[[D:.+]] = vyre.alloc(%[[N]]) : memref<?xf32>
    %d = vyre.alloc(%n) : memref<?xf32>
    // CHECK: vyre.copy_h2d %[[HX]] to %[[X]] : memref<1024xf32> to memref<1024xf32>
    vyre.copy_h2d %hx to %x : memref<1024xf32> to memref<1024xf32>
    // CHECK: vyre.dispatch @kernels::@axpy blocks(%{{.+}}, %{{.+}}, %{{.+}}) threads(%{{.+}}, %{{.+}}, %{{.+}}) args(%[[X]], %[[Y]], %{{.+}} : memref<1024xf32>, memref<1024xf32>, f32){{$}}
    vyre.dispatch @kernels::@axpy blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
        args(%x, %y, %a : memref<1024xf32>, memref<1024xf32>, f32)
    // CHECK: vyre.dispatch @kernels::@axpy {{.*}} access [read, readwrite, read] {vyre.cost_us = 2.000000e+02 : f64}
    vyre.dispatch @kernels::@axpy blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
        args(%x, %y, %a : memref<1024xf32>, memref<1024xf32>, f32) access [read, readwrite, read] {vyre.cost_us = 200.0}
    // A launch may promise to overwrite an argument.
    // CHECK: vyre.dispatch @kernels::@axpy {{.*}} access [read, overwrite, read]{{$}}
    vyre.dispatch @kernels::@axpy blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
        args(%x, %y, %a : memref<1024xf32>, memref<1024xf32>, f32) access [read, overwrite, read]
    // CHECK: vyre.dispatch @kernels::@opaque {{.*}} args(%[[D]] : memref<?xf32>) access [write]
    vyre.dispatch @kernels::@opaque blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d : memref<?xf32>) access [write]
    // CHECK: vyre.copy_d2h %[[Y]] to %[[HY]] : memref<1024xf32> to memref<1024xf32>
    vyre.copy_d2h %y to %hy : memref<1024xf32> to memref<1024xf32>
    // CHECK: vyre.dealloc %[[X]] : memref<1024xf32>
    vyre.dealloc %x : memref<1024xf32>
    vyre.dealloc %y : memref<1024xf32>
    vyre.dealloc %d : memref<?xf32>
    return
  }

  gpu.module @more_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }

  // Tests that the asynchronous forms print as they parse.

  // CHECK-LABEL: func.func @async
  // CHECK-SAME: (%{{.+}}: memref<64xi8> {vyre.pinned}, %{{.+}}: memref<?xi8>)
  func.func @async(%h: memref<64xi8> {vyre.pinned}, %g: memref<?xi8>) {
    %c1 = arith.constant 1 : index
    %d = vyre.alloc : memref<64xi8>
    // CHECK: %[[R:.+]] = vyre.record
    %r = vyre.record
    // CHECK: %[[T0:.+]] = vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1 : memref<64xi8> to memref<64xi8>
    %t0 = vyre.copy_h2d_async %h to %d on stream 1 : memref<64xi8> to memref<64xi8>
    // CHECK: %[[T1:.+]] = vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 2 after [%[[R]], %[[T0]]] : memref<?xi8> to memref<64xi8>
    %t1 = vyre.copy_h2d_async %g to %d on stream 2 after [%r, %t0] : memref<?xi8> to memref<64xi8>
    // CHECK: vyre.dispatch @more_kernels::@k blocks(%{{.+}}, %{{.+}}, %{{.+}}) threads(%{{.+}}, %{{.+}}, %{{.+}}){{$}}
    vyre.dispatch @more_kernels::@k blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
    // CHECK: vyre.wait %[[T0]], %[[T1]]
    vyre.wait %t0, %t1
    // CHECK: %[[T2:.+]] = vyre.copy_d2h_async %{{.+}} to %{{.+}} on stream 3 after [%[[T1]]] : memref<64xi8> to memref<64xi8>
    %t2 = vyre.copy_d2h_async %d to %h on stream 3 after [%t1] : memref<64xi8> to memref<64xi8>
    // CHECK: vyre.sync %[[T1]], %[[T2]]
    vyre.sync %t1, %t2
    // Stream 0 is the main stream: the copies run in its order, and the
    // host does not wait for them.
    // CHECK: %[[T3:.+]] = vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 0 : memref<64xi8> to memref<64xi8>
    %t3 = vyre.copy_h2d_async %h to %d on stream 0 : memref<64xi8> to memref<64xi8>
    // CHECK: %[[T4:.+]] = vyre.copy_d2h_async %{{.+}} to %{{.+}} on stream 0 after [%[[T0]]] : memref<64xi8> to memref<64xi8>
    %t4 = vyre.copy_d2h_async %d to %h on stream 0 after [%t0] : memref<64xi8> to memref<64xi8>
    // CHECK: vyre.sync %[[T4]]
    vyre.sync %t4
    return
  }
}
