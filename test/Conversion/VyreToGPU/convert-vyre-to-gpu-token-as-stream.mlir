// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --verify-diagnostics
// The pipeline refuses the program rather than let canonicalize erase the
// wait it relies on:
// RUN: not vyre-opt %s --split-input-file --vyre-to-gpu-pipeline -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'gpu.wait' op waits on a token and expects the work enqueued after it on its stream

// Tests that hand-written async code whose blocking wait takes a token for
// its stream is refused: after canonicalize the launch would run past the
// return.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @token_as_stream(%d: memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    // expected-note @+1 {{the work enqueued after the token}}
    %k = gpu.launch_func async [%t] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    // expected-error @+1 {{'gpu.wait' op waits on a token and expects the work enqueued after it on its stream ('gpu.launch_func') to be done: it relies on the token being its stream, which upstream's canonicalize does not keep (a token stands for the op that made it); wait on the token of the last op instead}}
    gpu.wait [%t]
    return
  }
}

// -----

// Tests that a wait in a branch after the work relies on the token the
// same way, and is refused the same way, next to one that does not.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @token_as_stream_in_branch(%d: memref<16xf32> {llvm.noalias}, %c: i1) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    // expected-note @+1 {{the work enqueued after the token}}
    %k = gpu.launch_func async [%t] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    scf.if %c {
      // expected-error @+1 {{relies on the token being its stream}}
      gpu.wait [%t]
    } else {
      // Waiting on the launch's own token is right under both readings.
      gpu.wait [%k]
    }
    return
  }
}
