// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0 steady-state=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE-BY-ONE

// Tests that the bound counts an engine's fill and drain. Three batches, each
// copied in (102 us: 5.5 MB at 55 GB/s plus 2 us), through a 50 us kernel and
// copied back (102 us). The H2D engine works 306 us, and whatever the
// schedule, the last copy in is followed by its kernel and its copy back
// (152 us): 458 us, above every engine's sum and the longest path (254 us).
// The D2H engine gives the same from the other end: no copy back starts
// before the first copy in and its kernel (152 us). The overlapped schedule
// reaches it.
gpu.module @k {
  func.func private @model(%x: memref<1375000xf32>, %y: memref<1375000xf32>) attributes {gpu.kernel}
}
// SERIAL: remark: makespan 762.0 us, device time 762.0 us, bound 458.0 us (H2D copies 306.0 us, D2H copies 306.0 us, kernels 150.0 us, longest path 254.0 us, engine with fill and drain 458.0 us, device idle for the host 0.0 us;
// OVERLAP: remark: makespan 458.0 us, device time 762.0 us, bound 458.0 us
func.func @three_batches(%in: memref<3x1375000xf32> {vyre.pinned, llvm.noalias},
                         %out: memref<3x1375000xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %x0 = vyre.alloc : memref<1375000xf32>
  %x1 = vyre.alloc : memref<1375000xf32>
  %x2 = vyre.alloc : memref<1375000xf32>
  %y0 = vyre.alloc : memref<1375000xf32>
  %y1 = vyre.alloc : memref<1375000xf32>
  %y2 = vyre.alloc : memref<1375000xf32>
  %in0 = memref.subview %in[0, 0] [1, 1375000] [1, 1] : memref<3x1375000xf32> to memref<1375000xf32, strided<[1]>>
  %in1 = memref.subview %in[1, 0] [1, 1375000] [1, 1] : memref<3x1375000xf32> to memref<1375000xf32, strided<[1], offset: 1375000>>
  %in2 = memref.subview %in[2, 0] [1, 1375000] [1, 1] : memref<3x1375000xf32> to memref<1375000xf32, strided<[1], offset: 2750000>>
  %out0 = memref.subview %out[0, 0] [1, 1375000] [1, 1] : memref<3x1375000xf32> to memref<1375000xf32, strided<[1]>>
  %out1 = memref.subview %out[1, 0] [1, 1375000] [1, 1] : memref<3x1375000xf32> to memref<1375000xf32, strided<[1], offset: 1375000>>
  %out2 = memref.subview %out[2, 0] [1, 1375000] [1, 1] : memref<3x1375000xf32> to memref<1375000xf32, strided<[1], offset: 2750000>>
  vyre.copy_h2d %in0 to %x0 : memref<1375000xf32, strided<[1]>> to memref<1375000xf32>
  vyre.dispatch @k::@model blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x0, %y0 : memref<1375000xf32>, memref<1375000xf32>) access [read, write] {vyre.cost_us = 50.0}
  vyre.copy_d2h %y0 to %out0 : memref<1375000xf32> to memref<1375000xf32, strided<[1]>>
  vyre.copy_h2d %in1 to %x1 : memref<1375000xf32, strided<[1], offset: 1375000>> to memref<1375000xf32>
  vyre.dispatch @k::@model blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x1, %y1 : memref<1375000xf32>, memref<1375000xf32>) access [read, write] {vyre.cost_us = 50.0}
  vyre.copy_d2h %y1 to %out1 : memref<1375000xf32> to memref<1375000xf32, strided<[1], offset: 1375000>>
  vyre.copy_h2d %in2 to %x2 : memref<1375000xf32, strided<[1], offset: 2750000>> to memref<1375000xf32>
  vyre.dispatch @k::@model blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x2, %y2 : memref<1375000xf32>, memref<1375000xf32>) access [read, write] {vyre.cost_us = 50.0}
  vyre.copy_d2h %y2 to %out2 : memref<1375000xf32> to memref<1375000xf32, strided<[1], offset: 2750000>>
  return
}

// -----

// Tests that an engine's fill and drain are the least over its ops: a 400 us
// kernel that needs no copy and feeds nothing starts the compute engine's
// work at 0 and may end it, so the kernels bound the schedule by their sum
// alone (450 us), not by the copy before the 50 us kernel and the copy after
// it (that would be 654 us, more than a schedule that ran the 400 us kernel
// last would take).
gpu.module @k {
  func.func private @model(%x: memref<1375000xf32>, %y: memref<1375000xf32>) attributes {gpu.kernel}
  func.func private @other(%z: memref<1375000xf32>) attributes {gpu.kernel}
}
// SERIAL: remark: makespan 654.0 us, device time 654.0 us, bound 450.0 us (H2D copies 102.0 us, D2H copies 102.0 us, kernels 450.0 us, longest path 400.0 us, engine with fill and drain 450.0 us, device idle for the host 0.0 us;
// OVERLAP: remark: makespan 552.0 us, device time 654.0 us, bound 450.0 us
func.func @unrelated_first(%in: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                           %out: memref<1375000xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<1375000xf32>
  %y = vyre.alloc : memref<1375000xf32>
  %z = vyre.alloc : memref<1375000xf32>
  vyre.dispatch @k::@other blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%z : memref<1375000xf32>) access [write] {vyre.cost_us = 400.0}
  vyre.copy_h2d %in to %x : memref<1375000xf32> to memref<1375000xf32>
  vyre.dispatch @k::@model blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<1375000xf32>, memref<1375000xf32>) access [read, write] {vyre.cost_us = 50.0}
  vyre.copy_d2h %y to %out : memref<1375000xf32> to memref<1375000xf32>
  return
}

// -----

// Tests that the chains through a loop count the iterations added from its
// steady state. Two copies in (102 us each), then 100 iterations of a 10 us
// kernel that reads one and accumulates into the other, then the copy back
// (102 us): whichever copy in comes last is followed by all 100 kernels and
// the copy back, so the bound is 204 + 1000 + 102 = 1306 us, as with every
// iteration simulated one by one (the last RUN line's case).
gpu.module @k {
  func.func private @step(%x: memref<1375000xf32>, %acc: memref<1375000xf32>) attributes {gpu.kernel}
}
// SERIAL: remark: makespan 1306.0 us, device time 1306.0 us, bound 1306.0 us (H2D copies 204.0 us, D2H copies 102.0 us, kernels 1000.0 us, longest path 1204.0 us, engine with fill and drain 1306.0 us, device idle for the host 0.0 us;
// SERIAL-SAME: loop iterations added from their steady state
// OVERLAP: remark: makespan 1306.0 us, device time 1306.0 us, bound 1306.0 us
// ONE-BY-ONE: remark: makespan 1306.0 us, device time 1306.0 us, bound 1306.0 us (H2D copies 204.0 us, D2H copies 102.0 us, kernels 1000.0 us, longest path 1204.0 us, engine with fill and drain 1306.0 us, device idle for the host 0.0 us;
func.func @long_loop(%in: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                     %init: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                     %out: memref<1375000xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %x = vyre.alloc : memref<1375000xf32>
  %acc = vyre.alloc : memref<1375000xf32>
  vyre.copy_h2d %in to %x : memref<1375000xf32> to memref<1375000xf32>
  vyre.copy_h2d %init to %acc : memref<1375000xf32> to memref<1375000xf32>
  scf.for %i = %c0 to %c100 step %c1 {
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %acc : memref<1375000xf32>, memref<1375000xf32>) access [read, readwrite] {vyre.cost_us = 10.0}
  }
  vyre.copy_d2h %acc to %out : memref<1375000xf32> to memref<1375000xf32>
  return
}
