// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops=max-pipeline-depth=2 | FileCheck %s
// Every output, once --overlap-copies has scheduled it, passes the schedule's
// referee, and through the lowering, the gpu dialect's.
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops="pipeline-depth=3" --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null

// --vyre-pipeline-loops issues each loop's copies iterations ahead into
// rotating buffers. The cases where it must not are in
// pipeline-loops-blocked.mlir.

gpu.module @k {
  // Reads its first argument, accumulates into its second.
  gpu.func @acc(%x: memref<16xf32>, %acc: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    %a = memref.load %acc[%i] : memref<16xf32>
    %s = arith.addf %v, %a : f32
    memref.store %s, %acc[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests a loop of 8 iterations at depth 2. The prologue copies iteration 0
// into the original buffer; slot 0 runs iteration 0 and copies iteration 1
// into the new buffer; the loop runs slots 1-6 in pairs, each iteration on
// its buffer and copying the next into the other; slot 7 copies nothing; the
// new buffer is freed after.
// CHECK-LABEL: func.func @static_trip_count
// CHECK-SAME: (%[[H:[^:]+]]: memref<8x16xf32>
func.func @static_trip_count(%h: memref<8x16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // CHECK: %[[A:.+]] = vyre.alloc
  // CHECK: %[[ACC:.+]] = vyre.alloc
  // CHECK: %[[A1:.+]] = vyre.alloc
  // CHECK: %[[ROW0:.+]] = memref.subview %[[H]][%c0, 0]
  // CHECK-NEXT: vyre.copy_h2d %[[ROW0]] to %[[A]]
  // CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A]], %[[ACC]] :
  // CHECK: vyre.copy_h2d {{.*}} to %[[A1]]
  // CHECK: scf.for %[[J:.+]] = %{{.+}} to %c7{{.*}} step %c2
  // CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A1]], %[[ACC]] :
  // CHECK: %[[NEXT:.+]] = arith.addi %[[J]]
  // CHECK-NEXT: %[[ROW1:.+]] = memref.subview %[[H]][%[[NEXT]], 0]
  // CHECK-NEXT: vyre.copy_h2d %[[ROW1]] to %[[A]]
  // CHECK: vyre.dispatch @k::@acc {{.*}} args(%[[A]], %[[ACC]] :
  // CHECK: memref.subview %[[H]]
  // CHECK-NEXT: vyre.copy_h2d {{.*}} to %[[A1]]
  // CHECK-NEXT: }
  // CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A1]], %[[ACC]] :
  // CHECK-NEXT: vyre.dealloc %[[A1]]
  // CHECK-NOT: vyre.copy_h2d
  // CHECK: return
  %a = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
  }
  return
}

// Tests a trip count known only at run time: the pipelined part covers the
// largest multiple of the depth, P = (n - lb) / 2 * 2 iterations, under one
// scf.if; the remainder runs as written, in a loop from P.
// CHECK-LABEL: func.func @dynamic_trip_count
func.func @dynamic_trip_count(%h: memref<?x16xf32> {vyre.pinned, llvm.noalias}, %lb: index, %n: index) {
  %c1 = arith.constant 1 : index
  // CHECK: %[[A:.+]] = vyre.alloc
  // CHECK: %[[ACC:.+]] = vyre.alloc
  // CHECK: %[[A1:.+]] = vyre.alloc
  // CHECK: %[[SPAN:.+]] = arith.subi
  // CHECK: %[[T:.+]] = arith.maxsi %[[SPAN]]
  // CHECK: %[[HALF:.+]] = arith.divui %[[T]]
  // CHECK-NEXT: %[[P:.+]] = arith.muli %[[HALF]]
  // CHECK: %[[ANY:.+]] = arith.cmpi sgt, %[[P]]
  // CHECK-NEXT: scf.if %[[ANY]] {
  // CHECK-NEXT: memref.subview
  // CHECK-NEXT: vyre.copy_h2d {{.*}} to %[[A]]
  // CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A]],
  // CHECK: vyre.copy_h2d {{.*}} to %[[A1]]
  // CHECK: %[[LAST:.+]] = arith.addi %[[P]], %c-1
  // CHECK: scf.for %{{.+}} = %{{.+}} to %[[LAST]]
  // CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A1]],
  // CHECK: vyre.copy_h2d {{.*}} to %[[A]]
  // CHECK: vyre.dispatch @k::@acc {{.*}} args(%[[A]],
  // CHECK: vyre.copy_h2d {{.*}} to %[[A1]]
  // CHECK-NEXT: }
  // CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A1]],
  // CHECK-NEXT: }
  // CHECK: scf.for %{{.+}} = %[[P]] to %[[T]]
  // CHECK: vyre.copy_h2d {{.*}} to %[[A]]
  // CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A]],
  // CHECK-NEXT: }
  // CHECK-NEXT: vyre.dealloc %[[A1]]
  %a = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  scf.for %i = %lb to %n step %c1 {
    %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<?x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
  }
  return
}

// Tests a buffer a launch declares it overwrites: it rotates too (no
// iteration sees what the one before left in it), and its copy back to the
// host is issued one iteration late, after the next iteration's launch, so
// that the two run side by side. The last copies back follow the loop.
// CHECK-LABEL: func.func @outputs_rotate
// CHECK-SAME: %[[OUT:arg[0-9]+]]: memref<4x16xf32> {llvm.noalias, vyre.pinned}) {
// CHECK: %[[X:.+]] = vyre.alloc
// CHECK: %[[Y:.+]] = vyre.alloc
// CHECK: %[[X1:.+]] = vyre.alloc
// CHECK: %[[Y1:.+]] = vyre.alloc
// CHECK: vyre.dispatch @m::@model {{.*}} args(%[[X]], %[[Y]] :
// CHECK: scf.for %[[J:[^ ]+]] =
// CHECK-NEXT: vyre.dispatch @m::@model {{.*}} args(%[[X1]], %[[Y1]] :
// CHECK: vyre.copy_h2d {{.*}} to %[[X]]
// CHECK: %[[PREV:.+]] = arith.addi %[[J]], %c-1
// CHECK-NEXT: %[[ROW:.+]] = memref.subview %[[OUT]][%[[PREV]], 0]
// CHECK-NEXT: vyre.copy_d2h %[[Y]] to %[[ROW]]
// CHECK: vyre.dispatch @m::@model {{.*}} args(%[[X]], %[[Y]] :
// CHECK: vyre.copy_d2h %[[Y1]] to
// CHECK-NEXT: }
// CHECK-NEXT: vyre.dispatch @m::@model {{.*}} args(%[[X1]], %[[Y1]] :
// CHECK: vyre.copy_d2h %[[Y]] to
// CHECK: vyre.copy_d2h %[[Y1]] to
// CHECK-NEXT: vyre.dealloc %[[X1]]
// CHECK-NEXT: vyre.dealloc %[[Y1]]
gpu.module @m {
  gpu.func @model(%x: memref<16xf32>, %y: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %y[%i] : memref<16xf32>
    gpu.return
  }
}
func.func @outputs_rotate(%in: memref<4x16xf32> {vyre.pinned, llvm.noalias}, %out: memref<4x16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = vyre.alloc : memref<16xf32>
  %y = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %src = memref.subview %in[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %dst = memref.subview %out[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %src to %x : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @m::@model blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<16xf32>, memref<16xf32>) access [read, overwrite]
    vyre.copy_d2h %y to %dst : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
  }
  return
}

// Tests depth 3: copies two iterations ahead, three buffers in rotation.
// The pipelined part covers iterations 0-5: the prologue copies 0 and 1,
// slot 0 copies 2, the loop runs slots 1-3 (copying 3-5), slots 4 and 5
// copy nothing; iterations 6 and 7 run as written, on the original buffer.
// The loop runs once: with the copies into A1 and A2 in front of it, of
// which its first kernel uses one, it is written out in front of itself,
// and no loop is left.
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops="pipeline-depth=3" | FileCheck %s --check-prefix=DEPTH3
// DEPTH3-LABEL: func.func @static_trip_count
// DEPTH3: %[[A:.+]] = vyre.alloc
// DEPTH3: %[[ACC:.+]] = vyre.alloc
// DEPTH3: %[[A1:.+]] = vyre.alloc
// DEPTH3: %[[A2:.+]] = vyre.alloc
// DEPTH3: vyre.copy_h2d {{.*}} to %[[A]]
// DEPTH3: vyre.copy_h2d {{.*}} to %[[A1]]
// DEPTH3-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A]],
// DEPTH3: vyre.copy_h2d {{.*}} to %[[A2]]
// DEPTH3-NOT: scf.for
// DEPTH3: vyre.dispatch @k::@acc {{.*}} args(%[[A1]],
// DEPTH3: vyre.copy_h2d {{.*}} to %[[A]]
// DEPTH3: vyre.dispatch @k::@acc {{.*}} args(%[[A2]],
// DEPTH3: vyre.copy_h2d {{.*}} to %[[A1]]
// DEPTH3: vyre.dispatch @k::@acc {{.*}} args(%[[A]],
// DEPTH3: vyre.copy_h2d {{.*}} to %[[A2]]
// DEPTH3-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A1]],
// DEPTH3-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A2]],
// DEPTH3-COUNT-2: vyre.copy_h2d {{.*}} to %[[A]]
// DEPTH3: vyre.dealloc %[[A1]]
// DEPTH3-NEXT: vyre.dealloc %[[A2]]

// Tests a loop nested in another: the new buffer is allocated once, before
// the outer loop, and freed after it, not in every outer iteration.
// CHECK-LABEL: func.func @nested_loop
// CHECK:         %[[A:.+]] = vyre.alloc
// CHECK-NEXT:    %[[ACC:.+]] = vyre.alloc
// CHECK-NEXT:    %[[A1:.+]] = vyre.alloc
// CHECK-NEXT:    scf.for
// CHECK-NOT:       vyre.alloc
// CHECK-NOT:       vyre.dealloc
// CHECK:           vyre.copy_h2d {{.*}} to %[[A1]]
// CHECK-NOT:       vyre.alloc
// CHECK-NOT:       vyre.dealloc
// CHECK:         vyre.dealloc %[[A1]]
// CHECK-NEXT:    return
func.func @nested_loop(%h: memref<?x16xf32> {vyre.pinned, llvm.noalias}, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  scf.for %j = %c0 to %m step %c1 {
    scf.for %i = %c0 to %n step %c1 {
      %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<?x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
      vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
    }
  }
  return
}
