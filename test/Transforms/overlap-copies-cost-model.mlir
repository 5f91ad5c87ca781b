// The cost model as it weighs copies that the host waits for in place
// (async-in-place=false); overlap-copies-cost-model-async.mlir has the
// default, where a copy in place does not make the host wait. (order-kernels=
// false in the first run: the cases are about the copies in the input's order.)
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="async-in-place=false order-kernels=false" --vyre-verify-schedule | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=async-in-place=false --remarks-filter=overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false async-in-place=false" | FileCheck %s --check-prefix=OFF
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="event-us=0 host-sync-us=0 async-in-place=false" | FileCheck %s --check-prefix=FREE

// Tests that a copy with no kernel to run beside stays in place: the kernel
// right after it reads what it copies. Moving it saves only the copy in
// place's round trip (1.7 us host synchronization + 0.85 us launch), less
// than the main stream's join on its token (two dependencies, 3.4 us) and
// the host's wait at the return for the side stream it would open (1.7 us).
// CHECK-LABEL: func.func @nothing_to_overlap
// CHECK-NOT:     vyre.copy_h2d_async
// CHECK:         vyre.copy_h2d
// REMARK: Function=nothing_to_overlap | Remark="copy of 4 MiB: saving 2.5 us < overhead 5.1 us: left on the main stream
// OFF-LABEL: func.func @nothing_to_overlap
// OFF:         vyre.copy_h2d_async
// When joins cost nothing, it moves.
// FREE-LABEL: func.func @nothing_to_overlap
// FREE:         vyre.copy_h2d_async
gpu.module @k {
  func.func private @use_big(%x: memref<1048576xf32>) attributes {gpu.kernel}
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

// Tests that a copy of 4 KiB beside a 1 us kernel stays in place: it must
// wait for the kernel before it (a join of two dependencies, 3.4 us) and be
// waited for (3.4 us); the 1 us kernel hides 1 us of that, and the overlap
// saves 1 us plus the round trip (2.55 us), plus the 2.1 us of the later
// copy, which cannot start while the copy in place holds the host; and it
// would open the side stream, which the host waits for at the return (1.7
// us). The same copy beside a 200 us kernel moves: the kernel hides the
// joins.
// CHECK-LABEL: func.func @short_and_long_windows
// CHECK:         vyre.copy_h2d %{{.*}} to %[[A:.*]] : memref<1024xf32>
// CHECK:         vyre.copy_h2d_async %{{.*}} to %[[B:.*]] on stream 1
// REMARK: Function=short_and_long_windows | Remark="copy of 4 KiB: saving 5.6 us < overhead 7.5 us: left on the main stream
// REMARK-NOT: CopyNotWorthMoving | Category:overlap-copies | Function=short_and_long_windows
// OFF-LABEL: func.func @short_and_long_windows
// OFF-COUNT-2: vyre.copy_h2d_async
gpu.module @k {
  func.func private @busy(%x: memref<16xf32>) attributes {gpu.kernel}
  func.func private @use(%x: memref<1024xf32>) attributes {gpu.kernel}
}
func.func @short_and_long_windows(%ha: memref<1024xf32> {vyre.pinned, llvm.noalias},
                                  %hb: memref<1024xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %other = vyre.alloc : memref<16xf32>
  %a = vyre.alloc : memref<1024xf32>
  %b = vyre.alloc : memref<1024xf32>
  vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) access [read] {vyre.cost_us = 1.0}
  vyre.copy_h2d %ha to %a : memref<1024xf32> to memref<1024xf32>
  vyre.dispatch @k::@busy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%other : memref<16xf32>) access [readwrite] {vyre.cost_us = 1.0}
  vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) access [read] {vyre.cost_us = 1.0}
  vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<1024xf32>) access [read] {vyre.cost_us = 1.0}
  vyre.copy_h2d %hb to %b : memref<1024xf32> to memref<1024xf32>
  vyre.dispatch @k::@busy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%other : memref<16xf32>) access [readwrite] {vyre.cost_us = 200.0}
  vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<1024xf32>) access [read] {vyre.cost_us = 1.0}
  vyre.dealloc %other : memref<16xf32>
  vyre.dealloc %a : memref<1024xf32>
  vyre.dealloc %b : memref<1024xf32>
  return
}

// -----

// Tests that a copy left in place keeps the later copies behind it: the
// copy of %x, which the first kernel reads at once, stays in place, and the
// copies of %w0 and %w1 are not hoisted above it, where they would take the
// copy engine first. %w0's copy, also read at once, moves all the same:
// left in place, it would hold the host while %w1's copy waits behind it
// (simulated: 756.7 us moved, 760.1 us in place).
// CHECK-LABEL: func.func @order_behind_a_copy_in_place
// CHECK:         vyre.copy_h2d %{{.*}} : memref<1024xf32> to memref<1024xf32>
// CHECK-NEXT:    vyre.copy_h2d_async %{{.*}} : memref<1048576xf32> to memref<1048576xf32>
// CHECK-NEXT:    vyre.copy_h2d_async %{{.*}} : memref<1048576xf32> to memref<1048576xf32>
// CHECK-NEXT:    vyre.wait
// CHECK-NEXT:    vyre.dispatch
// OFF-LABEL: func.func @order_behind_a_copy_in_place
// OFF-COUNT-3: vyre.copy_h2d_async
gpu.module @k {
  func.func private @layer(%x: memref<1024xf32>, %w: memref<1048576xf32>) attributes {gpu.kernel}
}
func.func @order_behind_a_copy_in_place(%hx: memref<1024xf32> {vyre.pinned, llvm.noalias},
                                        %hw0: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                                        %hw1: memref<1048576xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<1024xf32>
  %w0 = vyre.alloc : memref<1048576xf32>
  %w1 = vyre.alloc : memref<1048576xf32>
  vyre.copy_h2d %hx to %x : memref<1024xf32> to memref<1024xf32>
  vyre.copy_h2d %hw0 to %w0 : memref<1048576xf32> to memref<1048576xf32>
  vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %w0 : memref<1024xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 300.0}
  vyre.copy_h2d %hw1 to %w1 : memref<1048576xf32> to memref<1048576xf32>
  vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %w1 : memref<1024xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 300.0}
  vyre.dealloc %x : memref<1024xf32>
  vyre.dealloc %w0 : memref<1048576xf32>
  vyre.dealloc %w1 : memref<1048576xf32>
  return
}

// -----

// Tests that kernels in a loop of unknown trip count make the window
// unbounded: the copy moves.
// CHECK-LABEL: func.func @loops
// CHECK:         vyre.copy_h2d_async
// CHECK:         scf.for
// REMARK-NOT: CopyNotWorthMoving | Category:overlap-copies | Function=loops
gpu.module @k {
  func.func private @busy(%x: memref<16xf32>) attributes {gpu.kernel}
  func.func private @use_big(%x: memref<1048576xf32>) attributes {gpu.kernel}
}
func.func @loops(%hb: memref<1048576xf32> {vyre.pinned, llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %other = vyre.alloc : memref<16xf32>
  %big = vyre.alloc : memref<1048576xf32>
  vyre.copy_h2d %hb to %big : memref<1048576xf32> to memref<1048576xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@busy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%other : memref<16xf32>) access [readwrite] {vyre.cost_us = 1.0}
  }
  vyre.dispatch @k::@use_big blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%big : memref<1048576xf32>) access [read]
  vyre.dealloc %other : memref<16xf32>
  vyre.dealloc %big : memref<1048576xf32>
  return
}

// -----

// Tests that a copy back to the host with nothing after it stays a blocking
// copy on the main stream: it waits for the kernel that wrote its source
// (3.4 us) and the free of its source waits for it (3.4 us), with no kernel
// to hide that, and it would open a side stream for the return to wait for
// (1.7 us).
// CHECK-LABEL: func.func @last_copy_back
// CHECK-NOT:     vyre.copy_d2h_async
// CHECK:         vyre.copy_d2h
// REMARK: Function=last_copy_back | Remark="copy of 64 B: saving 2.5 us < overhead 8.5 us: left on the main stream
// OFF-LABEL: func.func @last_copy_back
// OFF:         vyre.copy_d2h_async
gpu.module @k {
  func.func private @busy(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @last_copy_back(%h: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@busy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [write]
  vyre.copy_d2h %a to %h : memref<16xf32> to memref<16xf32>
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that a copy with no kernel to run beside still moves when, left in
// place, it would hold the host while later copies wait: the copy back of %x
// waits for the 60 us kernel and the next kernel waits for it, but the copy
// of the row into %y (which cannot go above the subview that defines its
// source) would otherwise start only once the host has waited out the kernel
// and the copy back.
// CHECK-LABEL: func.func @frees_the_host
// CHECK:         vyre.copy_d2h_async
// CHECK:         vyre.copy_h2d_async
// REMARK-NOT: Function=frees_the_host | Remark="copy of
gpu.module @k {
  func.func private @write(%x: memref<1048576xf32>) attributes {gpu.kernel}
  func.func private @use(%x: memref<1048576xf32>) attributes {gpu.kernel}
}
func.func @frees_the_host(%out: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                          %h: memref<2x1048576xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<1048576xf32>
  %y = vyre.alloc : memref<1048576xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<1048576xf32>) access [write] {vyre.cost_us = 60.0}
  vyre.copy_d2h %x to %out : memref<1048576xf32> to memref<1048576xf32>
  %row = memref.subview %h[1, 0] [1, 1048576] [1, 1] : memref<2x1048576xf32> to memref<1048576xf32, strided<[1], offset: 1048576>>
  vyre.copy_h2d %row to %y : memref<1048576xf32, strided<[1], offset: 1048576>> to memref<1048576xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<1048576xf32>) access [write] {vyre.cost_us = 60.0}
  vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<1048576xf32>) access [read] {vyre.cost_us = 60.0}
  vyre.dealloc %x : memref<1048576xf32>
  vyre.dealloc %y : memref<1048576xf32>
  return
}

// -----

// Tests that a copy which depended on a copy left in place still follows
// what that copy's token stood for. The copy into %part stays in place (the
// kernel before it writes its destination); the copy back into %h must not
// overwrite %h while the moved copy into %a still reads it. Before, it
// depended on the copy into %part, the last copy reading %h on side stream
// 1, which stood for the copy into %a by stream order. Left in place, that
// copy is on the main stream: the copy back now depends on the copy before
// it on side stream 1 instead.
// CHECK-LABEL: func.func @stream_order_behind_a_copy_in_place
// CHECK:         %[[A:.*]] = vyre.copy_h2d_async %{{.*}} on stream 1 :
// CHECK:         vyre.dispatch
// CHECK-NEXT:    vyre.copy_h2d %{{.*}} to %{{.*}} :
// CHECK-NEXT:    vyre.copy_d2h_async %{{.*}} on stream 2 after [%[[A]]] :
// REMARK: Function=stream_order_behind_a_copy_in_place | Remark="copy of 64 B: saving 2.5 us < overhead 5.1 us: left on the main stream
// OFF-LABEL: func.func @stream_order_behind_a_copy_in_place
// OFF-COUNT-2: vyre.copy_h2d_async
gpu.module @k {
  func.func private @r_w(%x: memref<16xf32>, %y: memref<16xf32>) attributes {gpu.kernel}
}
func.func @stream_order_behind_a_copy_in_place(%d: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = memref.alloc() : memref<16xf32>
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  %big = vyre.alloc : memref<32xf32>
  %view = memref.subview %big[0] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1]>>
  %part = memref.cast %view : memref<16xf32, strided<[1]>> to memref<16xf32>
  vyre.dispatch @k::@r_w blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d, %part : memref<16xf32>, memref<16xf32>) access [read, write]
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %part : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %b to %h : memref<16xf32> to memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@r_w blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c, %a : memref<16xf32>, memref<16xf32>) access [read, write]
  }
  return
}

// -----

// Tests that copies on one side stream keep their program order when one of
// them moves below a copy left in place. The copy back into %h1 stays in
// place (nothing runs beside it); the copy into %s, which must not overwrite
// %s before it is read back, moves below it, and so does the copy into %d2
// behind it on side stream 1: the copy back into %h depends on the copy into
// %d2 only, and stream order covers the copy into %s.
// CHECK-LABEL: func.func @stream_order_below_a_copy_in_place
// CHECK:         vyre.copy_d2h %{{.*}} to %{{.*}} :
// CHECK-NEXT:    vyre.copy_h2d_async %{{.*}} to %[[S:.*]] on stream 1
// CHECK-NEXT:    vyre.copy_h2d_async %{{.*}} to %{{.*}} on stream 1
// CHECK:         vyre.wait
// REMARK: Function=stream_order_below_a_copy_in_place | Remark="copy of 4 KiB: saving 4.6 us < overhead
gpu.module @k {
  func.func private @use(%a: memref<1024xf32>) attributes {gpu.kernel}
  func.func private @write(%a: memref<1024xf32>) attributes {gpu.kernel}
}
func.func @stream_order_below_a_copy_in_place() {
  %c1 = arith.constant 1 : index
  %h = memref.alloc() : memref<1024xf32>
  %hu = memref.cast %h : memref<1024xf32> to memref<*xf32>
  gpu.host_register %hu : memref<*xf32>
  %h1 = memref.alloc() : memref<1024xf32>
  %h1u = memref.cast %h1 : memref<1024xf32> to memref<*xf32>
  gpu.host_register %h1u : memref<*xf32>
  %s = vyre.alloc : memref<1024xf32>
  %d2 = vyre.alloc : memref<1024xf32>
  %d3 = vyre.alloc : memref<1024xf32>
  %d4 = vyre.alloc : memref<1024xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d3 : memref<1024xf32>) access [write] {vyre.cost_us = 1.0}
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%s : memref<1024xf32>) access [write] {vyre.cost_us = 1.0}
  vyre.copy_d2h %s to %h1 : memref<1024xf32> to memref<1024xf32>
  vyre.copy_h2d %h to %s : memref<1024xf32> to memref<1024xf32>
  vyre.copy_h2d %h to %d2 : memref<1024xf32> to memref<1024xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d4 : memref<1024xf32>) access [write] {vyre.cost_us = 200.0}
  vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%s : memref<1024xf32>) access [read] {vyre.cost_us = 1.0}
  vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d2 : memref<1024xf32>) access [read] {vyre.cost_us = 1.0}
  vyre.copy_d2h %d3 to %h : memref<1024xf32> to memref<1024xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d4 : memref<1024xf32>) access [write] {vyre.cost_us = 200.0}
  vyre.dealloc %s : memref<1024xf32>
  vyre.dealloc %d2 : memref<1024xf32>
  vyre.dealloc %d3 : memref<1024xf32>
  vyre.dealloc %d4 : memref<1024xf32>
  return
}
