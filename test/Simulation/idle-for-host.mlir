// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate --verify-diagnostics -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate=steady-state=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVERY
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule --vyre-simulate -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// A free per buffer, as a program lowered by upstream's passes pays:
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate=group-allocations=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=APART

// Tests the host's time in which the device is idle, which the bound adds
// to the longest path and to the busiest engine: the first launch (0.85 us:
// nothing runs before the host has issued it), each free (the runtime's
// free waits for the whole device, then synchronizes, 1.7 us, and frees,
// 21.5 us), and the return's first synchronization (1.7 us). No device op
// runs in that time, in any schedule of the program.
//
// Two 100 us kernels on two buffers, freed at the end, with a host store
// between the frees: 0.85 + 2 x 23.2 + 1.7 = 48.95 us idle; the bound is
// 200 + 48.95 = 248.95 us, and the program takes exactly that (the second
// launch is issued while the first kernel runs).
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 248.9 us, device time 200.0 us, bound 248.9 us (H2D copies 0.0 us, D2H copies 0.0 us, kernels 200.0 us, longest path 100.0 us, engine with fill and drain 200.0 us, device idle for the host 49.0 us; host 49.8 us in runtime calls, 3 host synchronizations)}}
func.func @frees_apart(%h: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
  vyre.dealloc %a : memref<16xf32>
  memref.store %v, %h[%c0] : memref<4xf32>
  vyre.dealloc %b : memref<16xf32>
  return
}
// EVERY: makespan 248.9 us, device time 200.0 us, bound 248.9 us
// OVERLAP: makespan 248.9 us, device time 200.0 us, bound 248.9 us
// NONE: makespan 200.0 us, device time 200.0 us, bound 200.0 us ({{.*}}device idle for the host 0.0 us;
// APART: makespan 248.9 us, device time 200.0 us, bound 248.9 us

// -----

// The same two buffers freed one right after the other (a constant between
// them changes nothing): the lowering allocates and frees them as one
// buffer, so one free: 0.85 + 23.2 + 1.7 = 25.75 us idle, and the bound and
// the makespan are 225.75 us (printed either side of it).
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{kernels 200.0 us, longest path 100.0 us, engine with fill and drain 200.0 us, device idle for the host 25.8 us; host 26.6 us in runtime calls, 2 host synchronizations)}}
func.func @frees_together() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
  vyre.dealloc %a : memref<16xf32>
  %c2 = arith.constant 2 : index
  vyre.dealloc %b : memref<16xf32>
  return
}
// EVERY: makespan 225.{{[78]}} us, device time 200.0 us, bound 225.{{[78]}} us
// OVERLAP: makespan 225.{{[78]}} us, device time 200.0 us, bound 225.{{[78]}} us
// NONE: makespan 200.0 us, device time 200.0 us, bound 200.0 us
// APART: makespan 248.9 us, device time 200.0 us, bound 248.9 us

// -----

// A buffer made and freed in each of 20 iterations: each free is idle time
// for the device, counted in the iterations added from the loop's steady
// state as in those run one by one: 0.85 + 20 x 23.2 + 1.7 = 466.55 us
// (rounded one way or the other); the bound is 200 + 466.55 us. The
// program takes 87.6 us more: each iteration's launch (0.85 us) and the
// host's wait after each run of a body that is not a device region
// (1.7 us), while the device idles.
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 754.1 us, device time 200.0 us, bound 666.5 us (H2D copies 0.0 us, D2H copies 0.0 us, kernels 200.0 us, longest path 200.0 us, engine with fill and drain 200.0 us, device idle for the host 466.6 us; host 554.1 us in runtime calls, 21 host synchronizations; 17 loop iterations added from their steady state)}}
func.func @free_per_iteration() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  scf.for %i = %c0 to %c20 step %c1 {
    %a = vyre.alloc : memref<16xf32>
    vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite]
    vyre.dealloc %a : memref<16xf32>
  }
  return
}
// EVERY: makespan 754.1 us, device time 200.0 us, bound 666.5 us ({{.*}}device idle for the host 466.{{[56]}} us;
// OVERLAP: makespan 754.1 us, device time 200.0 us, bound 666.5 us
// NONE: makespan 200.0 us, device time 200.0 us, bound 200.0 us
// APART: makespan 754.1 us, device time 200.0 us, bound 666.5 us

// -----

// No device work: nothing is launched and no stream is used; the bound is
// 0 and so is the idle time.
// expected-remark @+1 {{makespan 0.0 us, device time 0.0 us, bound 0.0 us (H2D copies 0.0 us, D2H copies 0.0 us, kernels 0.0 us, longest path 0.0 us, engine with fill and drain 0.0 us, device idle for the host 0.0 us; host 0.0 us in runtime calls, 0 host synchronizations)}}
func.func @host_only(%x: memref<16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  memref.store %v, %x[%c0] : memref<16xf32>
  return
}
// EVERY: makespan 0.0 us, device time 0.0 us, bound 0.0 us
// OVERLAP: makespan 0.0 us, device time 0.0 us, bound 0.0 us
// NONE: makespan 0.0 us, device time 0.0 us, bound 0.0 us
// APART: makespan 0.0 us, device time 0.0 us, bound 0.0 us
