// RUN: vyre-opt %s --vyre-gpu-async-pipeline=verify=true 2>&1 | FileCheck %s

// Tests that both referees of the drop-in's verify=true check host code
// only: a kernel that holds a region op (gpu.all_reduce) and a CPU helper of
// several blocks pass, and the program lowers.

// CHECK-NOT: error
// CHECK-LABEL: func.func @helper
// CHECK: cf.cond_br
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func async
// CHECK-NOT: error

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @sum(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      %s = gpu.all_reduce add %v uniform {} : (f32) -> (f32)
      memref.store %s, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @helper(%c: i1, %a: i32, %b: i32) -> i32 {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    return %a : i32
  ^bb2:
    return %b : i32
  }
  func.func @main(%h: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %d = gpu.alloc () : memref<16xf32>
    gpu.memcpy %d, %h : memref<16xf32>, memref<16xf32>
    gpu.launch_func @k::@sum blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.memcpy %h, %d : memref<16xf32>, memref<16xf32>
    gpu.dealloc %d : memref<16xf32>
    return
  }
}
