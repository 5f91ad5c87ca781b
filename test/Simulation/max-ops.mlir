// RUN: vyre-opt %s --vyre-kernel-access --vyre-simulate="max-ops=100 steady-state=false" -split-input-file -verify-diagnostics -o /dev/null
// RUN: vyre-opt %s --vyre-kernel-access --vyre-simulate="max-ops=100" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=STEADY

// A nest of loops multiplies their trip counts: past max-ops ops, the
// simulator stops with an error at the outermost loop (by location: it does
// not print the nest), never a hang; a nest under the bound is simulated.
// With the steady state (the default), each loop runs only until its
// iterations repeat: the nest of 10^9 kernels fits in 100 ops.
// STEADY: remark: makespan 192.5 us
// STEADY: remark: makespan 10000000036.0 us, device time 10000000000.0 us, bound 10000000025.8 us

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // expected-remark @+1 {{makespan}}
  func.func @small_nest() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %d = vyre.alloc : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>)
      }
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
  func.func @large_nest() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1000 = arith.constant 1000 : index
    %d = vyre.alloc : memref<4xf32>
    // expected-error @+1 {{'scf.for' op runs more than max-ops=100 ops in --vyre-simulate (the trip counts of nested loops multiply); raise max-ops to simulate it}}
    scf.for %i = %c0 to %c1000 step %c1 {
      scf.for %j = %c0 to %c1000 step %c1 {
        scf.for %k = %c0 to %c1000 step %c1 {
          vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>)
        }
      }
    }
    vyre.dealloc %d : memref<4xf32>
    return
  }
}
