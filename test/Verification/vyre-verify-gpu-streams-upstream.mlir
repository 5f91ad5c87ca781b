// RUN: mlir-opt %s --split-input-file --gpu-async-region \
// RUN:   | not vyre-opt --split-input-file --vyre-verify-gpu-streams \
// RUN:       -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=error: --implicit-check-not="see current operation"
// RUN: mlir-opt %s --split-input-file --gpu-async-region \
// RUN:   | not vyre-opt --split-input-file --vyre-verify-gpu-streams 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=ACCEPTED

// Real upstream output, checked as produced: `--gpu-async-region` (mlir-opt
// 22) makes the synchronous gpu ops below async, one stream per chain of ops,
// and the checker judges what it made.

// Tests that a plain sequence of a launch, a copy and a host load comes out
// right: one stream, waited on before the load.
// ACCEPTED-LABEL: func.func @sequence
// ACCEPTED: gpu.wait async
// ACCEPTED: gpu.wait [%{{.*}}]
// ACCEPTED-NEXT: memref.load
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @sequence(%h: memref<16xf32>, %d: memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.memcpy %h, %d : memref<16xf32>, memref<16xf32>
    %v = memref.load %h[%c0] : memref<16xf32>
    return %v : f32
  }
}

// -----

// Tests that launches in a loop and in a branch come out right: a stream per
// region, created and waited on inside it.
// ACCEPTED-LABEL: func.func @loop_and_branch
// ACCEPTED: scf.for
// ACCEPTED: scf.if
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @loop_and_branch(%h: memref<16xf32>, %d: memref<16xf32>, %n: index, %b: i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    }
    scf.if %b {
      gpu.launch_func @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    }
    gpu.memcpy %h, %d : memref<16xf32>, memref<16xf32>
    return
  }
}

// -----

// Tests that a `gpu.wait async` after synchronous work comes out as a join of
// the stream the pass made for that work: the join waits on it but nothing
// destroys it, so it leaks.
// CHECK: error: 'gpu.wait' op creates a stream that is still alive at the return: no blocking gpu.wait destroys it (a join does not destroy the streams it waits on)
// CHECK: note: the stream is still alive at this return
// ACCEPTED-NOT: func.func @join_leaks
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @join_leaks(%h: memref<16xf32>, %d: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    %t = gpu.wait async
    %u = gpu.memcpy async [%t] %h, %d : memref<16xf32>, memref<16xf32>
    gpu.wait [%u]
    return
  }
}
