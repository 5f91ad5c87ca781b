// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" --verify-diagnostics -o /dev/null

// Tests that an scf.if whose condition is computed from the iteration takes
// the branch that iteration takes: of 8 frames, every fourth (0 and 4) runs
// the 100 us kernel, the others the 10 us one (2 * 100 + 6 * 10 = 260 us).
// A loop whose branches follow the iteration is never extrapolated from a
// steady state: its iterations need not repeat.
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 260.0 us, device time 260.0 us}}
func.func @every_fourth(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %r = arith.remui %i, %c4 : index
    %key = arith.cmpi eq, %r, %c0 : index
    scf.if %key {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
    } else {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 10.0}
    }
  }
  return
}

// -----

// Tests the case where the condition is not computed from the iteration (an
// argument): the then branch, every iteration (800 us).
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 800.0 us, device time 800.0 us}}
func.func @unknown_condition(%c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.if %c {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
    } else {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 10.0}
    }
  }
  return
}

// -----

// Tests a loop of many iterations that branches on them (every 1000th of
// 100,000): it runs past max-trips without a steady state, all of it
// (100 * 100 + 99,900 * 1 = 109,900 us).
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 109900.0 us}}
func.func @long_loop() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %c100000 = arith.constant 100000 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c100000 step %c1 {
    %r = arith.remui %i, %c1000 : index
    %key = arith.cmpi eq, %r, %c0 : index
    scf.if %key {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
    } else {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 1.0}
    }
  }
  return
}

// -----

// Tests a condition computed from the iteration that the simulator cannot
// compute in the first ten iterations ((i - 10) / 1000 of a negative number)
// and can from then on (it is 0: the else branch, 1 us). The loop is run in
// full, not extrapolated from the first iterations' then branch (100 us):
// 10 * 100 + 90 * 1 = 1090 us.
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 1090.0 us, device time 1090.0 us}}
func.func @known_late(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c100 = arith.constant 100 : index
  %c1000 = arith.constant 1000 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c100 step %c1 {
    %shifted = arith.subi %i, %c10 : index
    %q = arith.divsi %shifted, %c1000 : index
    %key = arith.cmpi ne, %q, %c0 : index
    scf.if %key {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
    } else {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 1.0}
    }
  }
  return
}

// -----

// Tests that a condition read from memory at the iteration (a load indexed
// by the induction variable) is never computed: the then branch every
// iteration, and the loop is still extrapolated from its steady state, as
// it is for an inner loop whose condition reads only the outer loop's
// iteration (the same branch all through one run of it).
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 800.0 us, device time 800.0 us, bound 800.0 us (H2D copies 0.0 us, D2H copies 0.0 us, kernels 800.0 us, longest path 800.0 us, engine with fill and drain 800.0 us, device idle for the host 0.0 us; host 0.0 us in runtime calls, 1 host synchronizations; 5 loop iterations added from their steady state)}}
func.func @loaded_condition(%flags: memref<8xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %key = memref.load %flags[%i] : memref<8xi1>
    scf.if %key {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
    } else {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 10.0}
    }
  }
  return
}
// expected-remark @+1 {{makespan 11000.0 us, device time 11000.0 us, bound 11000.0 us (H2D copies 0.0 us, D2H copies 0.0 us, kernels 11000.0 us, longest path 11000.0 us, engine with fill and drain 11000.0 us, device idle for the host 0.0 us; host 0.0 us in runtime calls, 1 host synchronizations; 194 loop iterations added from their steady state)}}
func.func @outer_condition() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c100 = arith.constant 100 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %odd = arith.remui %i, %c2 : index
    %key = arith.cmpi eq, %odd, %c1 : index
    scf.for %j = %c0 to %c100 step %c1 {
      scf.if %key {
        vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 100.0}
      } else {
        vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 10.0}
      }
    }
  }
  return
}
