// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu | FileCheck %s
// The output is stable under canonicalization and CSE.
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse | FileCheck %s

// Tests a program that never went through --overlap-copies: everything is on
// the main stream, blocking copies make the host wait through a joined
// stream, and the return waits for the main stream once.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @sequential
// CHECK-SAME:    (%[[H:.+]]: memref<16xf32>)
func.func @sequential(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // CHECK: %[[M0:.+]] = gpu.wait async{{$}}
  // CHECK: %[[D:.+]], %[[M1:.+]] = gpu.alloc async [%[[M0]]] () : memref<16xf32>
  %d = vyre.alloc : memref<16xf32>
  // CHECK: %[[M2:.+]] = gpu.memcpy async [%[[M1]]] %[[D]], %[[H]]
  // CHECK: %[[J:.+]] = gpu.wait async [%[[M2]], %[[M2]]]
  // CHECK: gpu.wait [%[[J]]]
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  // CHECK: %[[M3:.+]] = gpu.launch_func async [%[[M2]]] @k::@scale blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%{{.+}}, %{{.+}}, %{{.+}}) args(%[[D]] : memref<16xf32>)
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  // CHECK: %[[M4:.+]] = gpu.memcpy async [%[[M3]]] %[[H]], %[[D]]
  // CHECK: %[[J2:.+]] = gpu.wait async [%[[M4]], %[[M4]]]
  // CHECK: gpu.wait [%[[J2]]]
  vyre.copy_d2h %d to %h : memref<16xf32> to memref<16xf32>
  // CHECK: %[[M5:.+]] = gpu.dealloc async [%[[M4]]] %[[D]]
  vyre.dealloc %d : memref<16xf32>
  // CHECK: gpu.wait [%[[M5]]]
  // CHECK-NEXT: return
  return
}

// -----

// Tests side streams: a copy without dependencies starts its own stream, a
// copy after a record joins the main stream's token (named twice), the main
// stream continues on a join when it waits, and the return waits for the
// tail of every stream once.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @side_streams
func.func @side_streams(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // CHECK: %[[A:.+]], %[[M1:.+]] = gpu.alloc async
  // CHECK: %[[B:.+]], %[[M2:.+]] = gpu.alloc async [%[[M1]]]
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // CHECK: %[[S0:.+]] = gpu.wait async{{$}}
  // CHECK: %[[TA:.+]] = gpu.memcpy async [%[[S0]]] %[[A]]
  %ta = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK: %[[M3:.+]] = gpu.launch_func async [%[[M2]]] @k::@scale {{.*}} args(%[[B]] :
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  %r = vyre.record
  // CHECK: %[[S1:.+]] = gpu.wait async [%[[TA]], %[[M3]]]
  // CHECK: %[[TB:.+]] = gpu.memcpy async [%[[S1]]] %[[B]]
  %tb = vyre.copy_h2d_async %h to %b on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
  // CHECK: %[[M4:.+]] = gpu.wait async [%[[M3]], %[[TA]]]
  // CHECK: %[[M5:.+]] = gpu.launch_func async [%[[M4]]] {{.*}} args(%[[A]] :
  vyre.wait %ta
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // CHECK: %[[J:.+]] = gpu.wait async [%[[TB]], %[[TB]]]
  // CHECK: gpu.wait [%[[J]]]
  vyre.sync %tb
  // CHECK: gpu.wait [%[[M3]], %[[TA]], %[[TB]], %[[M5]]]
  // CHECK-NEXT: return
  return
}

// -----

// Tests that a copy whose only dependency is the main stream's token gets a
// stream of its own that waits on it (the token named twice), not a place on
// the main stream.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @single_dependency
func.func @single_dependency(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: %[[M:.+]] = gpu.launch_func async
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  %r = vyre.record
  // CHECK-NEXT: %[[S:.+]] = gpu.wait async [%[[M]], %[[M]]]
  // CHECK-NEXT: gpu.memcpy async [%[[S]]]
  %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
  vyre.sync %t
  return
}

// -----

// Tests a copy inside a loop: the streams the body creates are waited for and
// destroyed before its yield, each iteration; streams of the enclosing block
// are waited for at the return.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @copy_in_loop
func.func @copy_in_loop(%h: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[A:.+]], %[[M1:.+]] = gpu.alloc async
  %a = vyre.alloc : memref<16xf32>
  // CHECK: scf.for
  scf.for %i = %c0 to %n step %c1 {
    // CHECK-NEXT: %[[S:.+]] = gpu.wait async [%[[M1]], %[[M1]]]
    // CHECK-NEXT: %[[T:.+]] = gpu.memcpy async [%[[S]]]
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    // CHECK-NEXT: %[[J:.+]] = gpu.wait async [%[[M1]], %[[T]]]
    // CHECK-NEXT: %[[L:.+]] = gpu.launch_func async [%[[J]]]
    vyre.wait %t
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    // CHECK-NEXT: gpu.wait [%[[T]], %[[L]]]
    // CHECK-NEXT: }
  }
  // CHECK-NEXT: gpu.wait [%[[M1]]]
  // CHECK-NEXT: return
  return
}

// -----

// Tests that a module without vyre ops is left alone.
// CHECK-LABEL: func.func @no_vyre
// CHECK-NOT: gpu.
func.func @no_vyre(%x: index) -> index {
  return %x : index
}
