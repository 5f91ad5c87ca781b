// RUN: vyre-opt %s --vyre-kernel-access --vyre-simulate -verify-diagnostics -o /dev/null

// The counts added from a steady state are checked: 2^64 - 1 iterations
// that each make the host wait twice cannot be counted in 64 bits (an error
// at the loop that adds them), and once each, with the wait at the return,
// neither (an error at the function).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // expected-error @below {{'func.func' op makes more than 2^64 - 1 host synchronizations in --vyre-simulate}}
  func.func @too_many_syncs(%h: memref<4xf32> {vyre.pinned}) {
    %c1 = arith.constant 1 : index
    %lo = arith.constant -9223372036854775808 : index
    %hi = arith.constant 9223372036854775807 : index
    %d = vyre.alloc : memref<4xf32>
    scf.for %i = %lo to %hi step %c1 {
      vyre.copy_d2h %d to %h : memref<4xf32> to memref<4xf32>
    }
    vyre.dealloc %d : memref<4xf32>
    return
  }
  func.func @twice_too_many_syncs(%h: memref<4xf32> {vyre.pinned}) {
    %c1 = arith.constant 1 : index
    %lo = arith.constant -9223372036854775808 : index
    %hi = arith.constant 9223372036854775807 : index
    %d = vyre.alloc : memref<4xf32>
    // expected-error @below {{'scf.for' op runs 18446744073709551612 more iterations than --vyre-simulate can count the host synchronizations or the iterations of (more than 2^64 - 1)}}
    scf.for %i = %lo to %hi step %c1 {
      vyre.copy_d2h %d to %h : memref<4xf32> to memref<4xf32>
      vyre.copy_d2h %d to %h : memref<4xf32> to memref<4xf32>
    }
    vyre.dealloc %d : memref<4xf32>
    return
  }
}
