// RUN: vyre-opt %s --vyre-kernel-access --vyre-simulate="max-trips=2" -split-input-file -verify-diagnostics -o /dev/null

// A loop that runs more than max-trips iterations one by one without
// reaching a steady state is an error at the loop that names the option.
// (Two iterations are too few to compare: the state after three is
// needed.)

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @too_few(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %d = vyre.alloc : memref<4xf32>
    // expected-error @below {{'scf.for' op runs 10 iterations, and its first 2 (max-trips) reach no steady state in --vyre-simulate; raise max-trips to simulate it}}
    scf.for %i = %c0 to %c10 step %c1 {
      vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>)
    }
    vyre.dealloc %d : memref<4xf32>
    return
  }
}
