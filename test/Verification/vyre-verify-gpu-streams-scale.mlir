// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams="max-trace-nodes=30 repeats-once=false"

// Tests the bound on a trace's length: with repeats-once=false each loop
// body runs twice in a trace, so a nest of four loops around a launch holds
// 16 launches. The error names
// the outermost loop by its location (it does not print the nest) and the
// option; a nest of two loops is checked.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @shallow(%a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %s = gpu.wait async
        %t = gpu.launch_func async [%s] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
        gpu.wait [%t]
      }
    }
    return
  }
  func.func @deep(%a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'scf.for' op unfolds to more than max-trace-nodes=30 nodes of --vyre-verify-gpu-streams (a loop body runs twice in a trace, so each level of nesting doubles it where repeats-once does not shorten the loop's later runs)}}
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        scf.for %k = %c0 to %n step %c1 {
          scf.for %l = %c0 to %n step %c1 {
            %s = gpu.wait async
            %t = gpu.launch_func async [%s] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
            gpu.wait [%t]
          }
        }
      }
    }
    return
  }
}

// -----

// Tests the bound on a function without loops: the op that takes the trace
// past it is named (the stream's creation is a node, then one per launch).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @flat(%a: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %t0 = gpu.launch_func async [%s] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t1 = gpu.launch_func async [%t0] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t2 = gpu.launch_func async [%t1] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t3 = gpu.launch_func async [%t2] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t4 = gpu.launch_func async [%t3] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t5 = gpu.launch_func async [%t4] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t6 = gpu.launch_func async [%t5] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t7 = gpu.launch_func async [%t6] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t8 = gpu.launch_func async [%t7] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t9 = gpu.launch_func async [%t8] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t10 = gpu.launch_func async [%t9] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t11 = gpu.launch_func async [%t10] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t12 = gpu.launch_func async [%t11] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t13 = gpu.launch_func async [%t12] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t14 = gpu.launch_func async [%t13] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t15 = gpu.launch_func async [%t14] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t16 = gpu.launch_func async [%t15] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t17 = gpu.launch_func async [%t16] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t18 = gpu.launch_func async [%t17] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t19 = gpu.launch_func async [%t18] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t20 = gpu.launch_func async [%t19] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t21 = gpu.launch_func async [%t20] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t22 = gpu.launch_func async [%t21] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t23 = gpu.launch_func async [%t22] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t24 = gpu.launch_func async [%t23] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t25 = gpu.launch_func async [%t24] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t26 = gpu.launch_func async [%t25] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t27 = gpu.launch_func async [%t26] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t28 = gpu.launch_func async [%t27] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t29 = gpu.launch_func async [%t28] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    // expected-error @+1 {{'gpu.launch_func' op brings the trace to more than max-trace-nodes=30 nodes of --vyre-verify-gpu-streams}}
    %t30 = gpu.launch_func async [%t29] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %t31 = gpu.launch_func async [%t30] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    gpu.wait [%t31]
    return
  }
}
