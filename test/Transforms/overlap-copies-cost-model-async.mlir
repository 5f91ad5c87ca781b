// The cost model at its default, where a copy left in place is asynchronous
// on the main stream (async-in-place): the host does not wait for it, so
// moving it saves only the overlap. overlap-copies-cost-model.mlir has
// async-in-place=false, where the copy in place makes the host wait.
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies --vyre-verify-schedule | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies --remarks-filter=overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false" | FileCheck %s --check-prefix=OFF

// Tests that a copy with no kernel to run beside stays in place and saves
// nothing by moving: the kernel right after it reads what it copies, and
// the copy in place costs no host wait (it saved 2.5 us, the round trip,
// with async-in-place=false). The overhead is the main stream's join on its
// token (3.4 us) and the host's wait at the return for the side stream it
// would open (1.7 us).
// CHECK-LABEL: func.func @nothing_to_overlap
// CHECK-NOT:     on stream 1
// CHECK:         vyre.copy_h2d_async %{{.*}} on stream 0
// REMARK: Function=nothing_to_overlap | Remark="copy of 4 MiB: saving 0.0 us < overhead 5.1 us: left on the main stream
// OFF-LABEL: func.func @nothing_to_overlap
// OFF:         vyre.copy_h2d_async %{{.*}} on stream 1
gpu.module @k {
  func.func private @use_big(%x: memref<1048576xf32>) attributes {gpu.kernel}
  func.func private @busy(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @nothing_to_overlap(%hb: memref<1048576xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %big = vyre.alloc : memref<1048576xf32>
  vyre.copy_h2d %hb to %big : memref<1048576xf32> to memref<1048576xf32>
  vyre.dispatch @k::@use_big blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%big : memref<1048576xf32>) access [read] {vyre.cost_us = 100.0}
  vyre.dealloc %big : memref<1048576xf32>
  return
}

// -----

// Tests that the same copy moves when a 100 us kernel that does not read it
// comes first: the overlap saves the copy's 78.3 us, above the joins.
// CHECK-LABEL: func.func @kernel_to_overlap
// CHECK:         vyre.copy_h2d_async %{{.*}} on stream 1
// CHECK:         vyre.dispatch @k::@busy
// REMARK-NOT: Function=kernel_to_overlap | Remark="copy of
// OFF-LABEL: func.func @kernel_to_overlap
// OFF:         vyre.copy_h2d_async %{{.*}} on stream 1
gpu.module @k {
  func.func private @use_big(%x: memref<1048576xf32>) attributes {gpu.kernel}
  func.func private @busy(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @kernel_to_overlap(%hb: memref<1048576xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %big = vyre.alloc : memref<1048576xf32>
  %other = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@busy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%other : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
  vyre.copy_h2d %hb to %big : memref<1048576xf32> to memref<1048576xf32>
  vyre.dispatch @k::@use_big blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%big : memref<1048576xf32>) access [read] {vyre.cost_us = 100.0}
  vyre.dealloc %other : memref<16xf32>
  vyre.dealloc %big : memref<1048576xf32>
  return
}
