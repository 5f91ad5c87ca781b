// RUN: vyre-opt %s --vyre-kernel-access --vyre-simulate=steady-state=false -split-input-file -verify-diagnostics -o /dev/null
// RUN: not vyre-opt %s --vyre-kernel-access --vyre-simulate -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=STEADY
// RUN: not vyre-opt %s --vyre-kernel-access --vyre-simulate="steady-state=false max-trips=2000000" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=RAISED
// RUN: vyre-opt %vyre_src/examples/copy_then_unrelated_kernel.mlir --vyre-kernel-access --vyre-simulate="trace=%t.json max-trace-events=2" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=CAPPED
// RUN: vyre-opt %vyre_src/examples/copy_then_unrelated_kernel.mlir --vyre-kernel-access --vyre-simulate="trace=%t.all.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t.all.json --check-prefix=ALL

// A trace keeps at most max-trace-events ops, and says what it left out (the
// makespan still counts them all); without the cap, no such note.
// CAPPED-COUNT-2: "ph": "X"
// CAPPED: "name": "@copy_then_unrelated_kernel trace capped: {{[0-9]+}} later ops left out (max-trace-events=2)"
// ALL-NOT: trace capped

// Trip counts and byte sizes are exact: a count that does not fit, or that
// is over max-trips when every iteration is run (steady-state=false), is an
// error at the loop, and a copy of more than 2^64 - 1 bytes an error at the
// copy; never a wrapped count or 0 B. With the steady state (the default),
// both long loops below are run until their iterations repeat, then the
// rest is added: the same figures as running a million and one iterations
// one by one (RAISED), and 2^64 - 1 iterations of 10 us.
// STEADY: remark: makespan 184467440737095516160.0 us, device time 184467440737095516160.0 us, {{.*}} 18446744073709551612 loop iterations added from their steady state)
// STEADY: remark: makespan 15000044.1 us, device time 15000015.0 us, {{.*}}; 999998 loop iterations added from their steady state)
// RAISED: remark: makespan 15000044.1 us, device time 15000015.0 us

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // From the most negative index to the most positive one: 2^64 - 1
  // iterations, which a signed subtraction would wrap to none.
  func.func @huge_trip_count() {
    %c1 = arith.constant 1 : index
    %lo = arith.constant -9223372036854775808 : index
    %hi = arith.constant 9223372036854775807 : index
    %d = vyre.alloc : memref<4xf32>
    // expected-error @below {{'scf.for' op runs 18446744073709551615 iterations, more than --vyre-simulate runs (max-trips=1000000); raise max-trips to simulate it}}
    scf.for %i = %lo to %hi step %c1 {
      vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>)
    }
    vyre.dealloc %d : memref<4xf32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // One more iteration than max-trips allows by default; with max-trips
  // raised it is simulated.
  func.func @over_the_limit() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 1000001 : index
    %d = vyre.alloc : memref<4xf32>
    // expected-error @below {{'scf.for' op runs 1000001 iterations, more than --vyre-simulate runs (max-trips=1000000)}}
    scf.for %i = %c0 to %n step %c1 {
      vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>) {vyre.cost_us = 15.0 : f64}
    }
    vyre.dealloc %d : memref<4xf32>
    return
  }
}

// -----

// Stepping down from the top: a negative span runs no iteration (scf.for
// compares signed), a step of 2^62 over the whole range runs four.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // expected-remark @below {{device time 40.0 us, bound 65.8 us}}
  func.func @wide_steps() {
    %c1 = arith.constant 1 : index
    %lo = arith.constant -9223372036854775808 : index
    %hi = arith.constant 9223372036854775807 : index
    %step = arith.constant 4611686018427387904 : index
    %d = vyre.alloc : memref<4xf32>
    scf.for %i = %hi to %lo step %c1 {
      vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>)
    }
    scf.for %i = %lo to %hi step %step {
      vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>)
    }
    vyre.dealloc %d : memref<4xf32>
    return
  }
}

// -----

// 2^40 x 2^40 four-byte elements: 2^82 bytes, which 64 bits cannot hold.
module {
  func.func @huge_copy(%h: memref<1099511627776x1099511627776xf32>) {
    %d = vyre.alloc : memref<1099511627776x1099511627776xf32>
    // expected-error @below {{'vyre.copy_h2d' op copies a buffer of 'memref<1099511627776x1099511627776xf32>', more than 2^64 - 1 bytes}}
    vyre.copy_h2d %h to %d : memref<1099511627776x1099511627776xf32> to memref<1099511627776x1099511627776xf32>
    vyre.dealloc %d : memref<1099511627776x1099511627776xf32>
    return
  }
}
