// RUN: vyre-opt %s --pass-pipeline="builtin.module(vyre-version-aliasing,vyre-kernel-access,vyre-function-effects,func.func(vyre-pipeline-loops,overlap-copies),vyre-choose-versions)" --remarks-filter=version-aliasing --verify-diagnostics | FileCheck %s
// RUN: vyre-opt %s --pass-pipeline="builtin.module(vyre-version-aliasing,vyre-kernel-access,vyre-function-effects,func.func(vyre-pipeline-loops,overlap-copies),vyre-choose-versions{only-if-faster=false})" --remarks-filter=version-aliasing 2>&1 | FileCheck %s --check-prefix=KEEP
// Both versions are right by both referees, kept or folded back:
// RUN: vyre-opt %s --pass-pipeline="builtin.module(vyre-version-aliasing,vyre-kernel-access,vyre-function-effects,func.func(vyre-pipeline-loops,overlap-copies),vyre-choose-versions{only-if-faster=false},func.func(vyre-verify-schedule),convert-vyre-to-gpu{keep-effects},canonicalize,cse,vyre-verify-gpu-streams)" -o /dev/null

// Tests --vyre-choose-versions: after scheduling, a function versioned for
// aliasing keeps its versions where the copy with the arguments llvm.noalias
// is faster on the simulator's model (or, where the simulator cannot time
// it, is scheduled differently), and takes the as-written copy's body back
// elsewhere. Each case that keeps sits next to one that folds back.

gpu.module @k {
  gpu.func @square(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
    gpu.return
  }
  gpu.func @dyn(%x: memref<?xf32>) kernel {
    gpu.return
  }
  gpu.func @bump(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    gpu.return
  }
}

// A batch loop: as written, the copy back into %out may write the next
// row's source, so the loop is not pipelined; with them disjoint it is.
// CHECK-LABEL: func.func @batches(
// CHECK-NOT: vyre.versions
// CHECK: scf.if
// CHECK-NEXT: call @batches_disjoint(
// CHECK: call @batches_may_alias(
// CHECK-LABEL: func.func private @batches_disjoint(
// CHECK-LABEL: func.func private @batches_may_alias(
// KEEP: [Passed] ArgumentsVersioned | Category:version-aliasing | Remark="arguments 0, 1 of @batches are checked disjoint at run time (only-if-faster=false)"
// expected-remark @below {{arguments 0, 1 of @batches are checked disjoint at run time: @batches_disjoint runs when they are, @batches_may_alias otherwise (simulated 203.6 us with them disjoint, 373.0 us as written)}}
func.func @batches(%in: memref<8x262144xf32> {vyre.pinned}, %out: memref<8x262144xf32> {vyre.pinned}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  %c256 = arith.constant 256 : index
  %x = vyre.alloc : memref<262144xf32>
  %y = vyre.alloc : memref<262144xf32>
  scf.for %b = %c0 to %c8 step %c1 {
    %row = memref.subview %in[%b, 0] [1, 262144] [1, 1] : memref<8x262144xf32> to memref<262144xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %x : memref<262144xf32, strided<[1], offset: ?>> to memref<262144xf32>
    vyre.dispatch @k::@square blocks(%c1024, %c1, %c1) threads(%c256, %c1, %c1) args(%x, %y : memref<262144xf32>, memref<262144xf32>) {vyre.cost_us = 20.0}
    %orow = memref.subview %out[%b, 0] [1, 262144] [1, 1] : memref<8x262144xf32> to memref<262144xf32, strided<[1], offset: ?>>
    vyre.copy_d2h %y to %orow : memref<262144xf32> to memref<262144xf32, strided<[1], offset: ?>>
  }
  vyre.dealloc %x : memref<262144xf32>
  vyre.dealloc %y : memref<262144xf32>
  return
}

// Must not keep: one copy in, one kernel that reads it and writes what is
// copied back, one copy back schedule the same either way (the copy back
// follows the kernel, which follows the copy in; with the kernels' empty
// bodies taken as the only access, the copy back would run beside the copy
// in when the arguments are disjoint, and the frees, which wait for the
// whole device, would come sooner). @once is as written again: no check, no copies.
// CHECK-LABEL: func.func @once(
// CHECK-NOT: vyre.versions
// CHECK-NOT: scf.if
// CHECK: vyre.copy_h2d
// CHECK: vyre.dispatch
// CHECK: return
// CHECK-NOT: @once_
// KEEP: [Passed] ArgumentsVersioned | Category:version-aliasing | Remark="arguments 0, 1 of @once are checked disjoint at run time (only-if-faster=false)"
// expected-remark @below {{versioning @once on arguments 0, 1 does not pay: simulated 87.9 us with them disjoint, 87.9 us as written; @once stays as written}}
func.func @once(%in: memref<262144xf32> {vyre.pinned}, %out: memref<262144xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c256 = arith.constant 256 : index
  %x = vyre.alloc : memref<262144xf32>
  %y = vyre.alloc : memref<262144xf32>
  vyre.copy_h2d %in to %x : memref<262144xf32> to memref<262144xf32>
  vyre.dispatch @k::@square blocks(%c1024, %c1, %c1) threads(%c256, %c1, %c1) args(%x, %y : memref<262144xf32>, memref<262144xf32>) access [read, write] {vyre.cost_us = 20.0}
  vyre.copy_d2h %y to %out : memref<262144xf32> to memref<262144xf32>
  vyre.dealloc %x : memref<262144xf32>
  vyre.dealloc %y : memref<262144xf32>
  return
}

// Copies of dynamic size, which the simulator cannot time: kept, because
// with the arguments disjoint the second copy in need not wait for the
// first copy back, and the two versions are scheduled differently.
// CHECK-LABEL: func.func @dynamic_back_then_in(
// CHECK: scf.if
// CHECK-LABEL: func.func private @dynamic_back_then_in_disjoint(
// CHECK-LABEL: func.func private @dynamic_back_then_in_may_alias(
// expected-remark @below {{arguments 0, 1, 2 of @dynamic_back_then_in are checked disjoint at run time: they are scheduled differently when disjoint; the simulator cannot time it ('vyre.copy_h2d_async' op copies a buffer of dynamic size ('memref<?xf32>'), which --vyre-simulate cannot time)}}
func.func @dynamic_back_then_in(%a: memref<?xf32> {vyre.pinned}, %out: memref<?xf32> {vyre.pinned}, %in: memref<?xf32> {vyre.pinned}, %n: index) {
  %c1 = arith.constant 1 : index
  %d = vyre.alloc(%n) : memref<?xf32>
  %e = vyre.alloc(%n) : memref<?xf32>
  vyre.copy_h2d %a to %d : memref<?xf32> to memref<?xf32>
  vyre.dispatch @k::@dyn blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<?xf32>)
  vyre.copy_d2h %d to %out : memref<?xf32> to memref<?xf32>
  vyre.copy_h2d %in to %e : memref<?xf32> to memref<?xf32>
  vyre.dispatch @k::@dyn blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%e : memref<?xf32>)
  vyre.copy_d2h %e to %out : memref<?xf32> to memref<?xf32>
  vyre.dealloc %d : memref<?xf32>
  vyre.dealloc %e : memref<?xf32>
  return
}

// Must not keep: untimed, and scheduled alike.
// CHECK-LABEL: func.func @dynamic_alike(
// CHECK-NOT: scf.if
// CHECK: vyre.copy_h2d
// CHECK-NOT: @dynamic_alike_
// expected-remark @below {{versioning @dynamic_alike on arguments 0, 1 does not pay: both are scheduled alike; the simulator cannot time it ('vyre.copy_h2d_async' op copies a buffer of dynamic size ('memref<?xf32>'), which --vyre-simulate cannot time); @dynamic_alike stays as written}}
func.func @dynamic_alike(%a: memref<?xf32> {vyre.pinned}, %out: memref<?xf32> {vyre.pinned}, %n: index) {
  %c1 = arith.constant 1 : index
  %d = vyre.alloc(%n) : memref<?xf32>
  vyre.copy_h2d %a to %d : memref<?xf32> to memref<?xf32>
  vyre.dispatch @k::@dyn blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<?xf32>)
  vyre.copy_d2h %d to %out : memref<?xf32> to memref<?xf32>
  vyre.dealloc %d : memref<?xf32>
  return
}

// A batch loop whose trip count is an argument: pipelined when the
// arguments are disjoint. The simulator runs every loop of unknown trip
// count 4 times, and the pipelined loop is several loops (before, steady,
// after, the rest), so the two simulations count different device work and
// their makespans do not compare: kept, as scheduled differently.
// CHECK-LABEL: func.func @small_rows(
// CHECK: scf.if
// CHECK-LABEL: func.func private @small_rows_disjoint(
// expected-remark @below {{arguments 0, 1 of @small_rows are checked disjoint at run time: they are scheduled differently when disjoint; the simulator cannot compare them (the two count different device work, 336.0 us with them disjoint and 96.0 us as written: it runs each loop of unknown trip count default-trip-count times, and pipelining makes one such loop several)}}
func.func @small_rows(%in: memref<4x4xf32> {vyre.pinned}, %out: memref<4x4xf32> {vyre.pinned}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %trips = arith.minsi %n, %c4 : index
  %x = vyre.alloc : memref<4xf32>
  %y = vyre.alloc : memref<4xf32>
  scf.for %b = %c0 to %trips step %c1 {
    %row = memref.subview %in[%b, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %x : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
    vyre.dispatch @k::@bump blocks(%c1, %c1, %c1) threads(%c4, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>) {vyre.cost_us = 20.0}
    %r = arith.subi %c3, %b : index
    %orow = memref.subview %out[%r, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    vyre.copy_d2h %y to %orow : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
  }
  vyre.dealloc %x : memref<4xf32>
  vyre.dealloc %y : memref<4xf32>
  return
}
