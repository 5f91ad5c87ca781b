// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0 h2d-engines=2 d2h-engines=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO

// Tests that an engine's fill counts the work its first ops wait for on
// other engines, not only their longest chain: the first kernel (300 us)
// reads two buffers, so it starts after both copies in (102 us each), one
// after the other on the one copy engine: 204 us, where the longest chain
// before it is one copy (102 us). The second kernel (300 us), whose input is
// copied in beside the first, and a copy back (12.9 us) follow: 816.9 us,
// the bound, which the overlapped schedule reaches (the chain alone gives
// 714.9 us). With two copy engines each way the copies run side by side:
// 102 us of fill, 714.9 us.
gpu.module @k {
  func.func private @add(%a: memref<1375000xf32>, %b: memref<1375000xf32>, %c: memref<150000xf32>) attributes {gpu.kernel}
}
// SERIAL: remark: makespan 918.9 us, device time 918.9 us, bound 816.9 us (H2D copies 306.0 us, D2H copies 12.9 us, kernels 600.0 us, longest path 714.9 us, engine with fill and drain 816.9 us,
// OVERLAP: remark: makespan 816.9 us, device time 918.9 us, bound 816.9 us
// TWO: remark: makespan 918.9 us, device time 918.9 us, bound 714.9 us
func.func @two_operands(%ha: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                        %hb: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                        %hd: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                        %hc: memref<150000xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<1375000xf32>
  %b = vyre.alloc : memref<1375000xf32>
  %d = vyre.alloc : memref<1375000xf32>
  %c = vyre.alloc : memref<150000xf32>
  vyre.copy_h2d %ha to %a : memref<1375000xf32> to memref<1375000xf32>
  vyre.copy_h2d %hb to %b : memref<1375000xf32> to memref<1375000xf32>
  vyre.dispatch @k::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b, %c : memref<1375000xf32>, memref<1375000xf32>, memref<150000xf32>) access [read, read, write] {vyre.cost_us = 300.0}
  vyre.copy_h2d %hd to %d : memref<1375000xf32> to memref<1375000xf32>
  vyre.dispatch @k::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d, %d, %c : memref<1375000xf32>, memref<1375000xf32>, memref<150000xf32>) access [read, read, readwrite] {vyre.cost_us = 300.0}
  vyre.copy_d2h %c to %hc : memref<150000xf32> to memref<150000xf32>
  return
}

// -----

// Where it must not count: the first kernel reads one buffer, and the
// second copy in feeds only the second kernel, which can run after it. The
// compute engine's fill is one copy (102 us), not both: counting both would
// give 204 + 2 x 50 + 12.9 = 316.9 us, above the overlapped schedule, which
// runs the second copy beside the first kernel and takes 266.9 us, the
// bound of the H2D engine (204 us of copies, then the last kernel and its
// copy back). With two copy engines each way, the kernels bound it: 102 +
// 2 x 50 + 12.9 = 214.9 us.
gpu.module @k {
  func.func private @scale(%a: memref<1375000xf32>, %c: memref<150000xf32>) attributes {gpu.kernel}
}
// SERIAL: remark: makespan 329.8 us, device time 329.8 us, bound 266.9 us (H2D copies 204.0 us, D2H copies 25.8 us, kernels 100.0 us, longest path 164.9 us, engine with fill and drain 266.9 us,
// OVERLAP: remark: makespan 266.9 us, device time 329.8 us, bound 266.9 us
// TWO: remark: makespan 329.8 us, device time 329.8 us, bound 214.9 us
func.func @one_operand_each(%ha: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                            %hb: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                            %hc: memref<150000xf32> {vyre.pinned, llvm.noalias},
                            %hd: memref<150000xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<1375000xf32>
  %b = vyre.alloc : memref<1375000xf32>
  %c = vyre.alloc : memref<150000xf32>
  %d = vyre.alloc : memref<150000xf32>
  vyre.copy_h2d %ha to %a : memref<1375000xf32> to memref<1375000xf32>
  vyre.copy_h2d %hb to %b : memref<1375000xf32> to memref<1375000xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %c : memref<1375000xf32>, memref<150000xf32>) access [read, write] {vyre.cost_us = 50.0}
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %d : memref<1375000xf32>, memref<150000xf32>) access [read, write] {vyre.cost_us = 50.0}
  vyre.copy_d2h %c to %hc : memref<150000xf32> to memref<150000xf32>
  vyre.copy_d2h %d to %hd : memref<150000xf32> to memref<150000xf32>
  return
}

// -----

// The drain counts the work that must follow the last ops: the last kernel
// (300 us) writes two buffers that two copies back read (102 us each, one
// after the other on the one D2H engine): 204 us after it, where the
// longest chain after it is one copy. A small copy in (12.9 us), a first
// kernel (300 us) whose small result is copied back beside the second:
// 12.9 + 600 + 204 = 816.9 us, the bound (the chain alone gives 714.9 us).
gpu.module @k {
  func.func private @split(%a: memref<150000xf32>, %x: memref<1375000xf32>, %y: memref<1375000xf32>) attributes {gpu.kernel}
  func.func private @first(%a: memref<150000xf32>, %r: memref<150000xf32>) attributes {gpu.kernel}
}
// SERIAL: remark: makespan 829.8 us, device time 829.8 us, bound 816.9 us (H2D copies 12.9 us, D2H copies 216.9 us, kernels 600.0 us, longest path 714.9 us, engine with fill and drain 816.9 us,
// OVERLAP: remark: makespan 816.9 us, device time 829.8 us, bound 816.9 us
// TWO: remark: makespan 829.8 us, device time 829.8 us, bound 714.9 us
func.func @two_results(%ha: memref<150000xf32> {vyre.pinned, llvm.noalias},
                       %hr: memref<150000xf32> {vyre.pinned, llvm.noalias},
                       %hx: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                       %hy: memref<1375000xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<150000xf32>
  %r = vyre.alloc : memref<150000xf32>
  %x = vyre.alloc : memref<1375000xf32>
  %y = vyre.alloc : memref<1375000xf32>
  vyre.copy_h2d %ha to %a : memref<150000xf32> to memref<150000xf32>
  vyre.dispatch @k::@first blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %r : memref<150000xf32>, memref<150000xf32>) access [readwrite, write] {vyre.cost_us = 300.0}
  vyre.copy_d2h %r to %hr : memref<150000xf32> to memref<150000xf32>
  vyre.dispatch @k::@split blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %x, %y : memref<150000xf32>, memref<1375000xf32>, memref<1375000xf32>) access [read, write, write] {vyre.cost_us = 300.0}
  vyre.copy_d2h %x to %hx : memref<1375000xf32> to memref<1375000xf32>
  vyre.copy_d2h %y to %hy : memref<1375000xf32> to memref<1375000xf32>
  return
}

// -----

// Tests that the kernels that cannot start before some time count from it:
// the first kernel (50 us) needs one copy (102 us) and may start at 102 us,
// but the second (300 us) reads a buffer copied in after the first on the
// one copy engine, so it and the third (300 us), which follows it, start
// no earlier than 204 us: 204 + 600 + 12.9 (the copy back) = 816.9 us, the
// bound, which the overlapped schedule reaches. The chain alone and the
// fill of the first kernel give 764.9 us; the copy engine's work, 306 us
// (a third copy that nothing reads ends it).
gpu.module @k {
  func.func private @first(%a: memref<1375000xf32>, %c: memref<150000xf32>) attributes {gpu.kernel}
  func.func private @second(%b: memref<1375000xf32>, %c: memref<150000xf32>) attributes {gpu.kernel}
}
// SERIAL: remark: makespan 968.9 us, device time 968.9 us, bound 816.9 us (H2D copies 306.0 us, D2H copies 12.9 us, kernels 650.0 us, longest path 764.9 us, engine with fill and drain 816.9 us,
// OVERLAP: remark: makespan 816.9 us, device time 968.9 us, bound 816.9 us
func.func @late_kernels(%ha: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                        %hb: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                        %hd: memref<1375000xf32> {vyre.pinned, llvm.noalias},
                        %hc: memref<150000xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<1375000xf32>
  %b = vyre.alloc : memref<1375000xf32>
  %d = vyre.alloc : memref<1375000xf32>
  %c = vyre.alloc : memref<150000xf32>
  vyre.copy_h2d %ha to %a : memref<1375000xf32> to memref<1375000xf32>
  vyre.dispatch @k::@first blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %c : memref<1375000xf32>, memref<150000xf32>) access [read, write] {vyre.cost_us = 50.0}
  vyre.copy_h2d %hb to %b : memref<1375000xf32> to memref<1375000xf32>
  vyre.dispatch @k::@second blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %c : memref<1375000xf32>, memref<150000xf32>) access [read, readwrite] {vyre.cost_us = 300.0}
  vyre.dispatch @k::@second blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %c : memref<1375000xf32>, memref<150000xf32>) access [read, readwrite] {vyre.cost_us = 300.0}
  vyre.copy_d2h %c to %hc : memref<150000xf32> to memref<150000xf32>
  vyre.copy_h2d %hd to %d : memref<1375000xf32> to memref<1375000xf32>
  return
}
