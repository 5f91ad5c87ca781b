// RUN: vyre-opt %s --vyre-kernel-access --vyre-estimate-kernel-costs --remarks-filter=estimate-kernel-costs --verify-diagnostics | FileCheck %s
// The machine's figures must be positive and finite.
// RUN: not vyre-opt %s --vyre-estimate-kernel-costs=memory-gbps=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not vyre-opt %s --vyre-estimate-kernel-costs=tflops=nan 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: --vyre-estimate-kernel-costs: memory-gbps and tflops must be positive and finite
// BAD-NOT: func.func

// Tests --vyre-estimate-kernel-costs: a roofline estimate of each kernel's
// time, from its body and its dispatch's grid, for the dispatches that
// declare none; and the dispatches it must leave alone.

gpu.module @k {
  // One load, one store, one multiply per thread: 8 bytes, 1 operation.
  gpu.func @square(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
    %b = gpu.block_id x
    %t = gpu.thread_id x
    %c256 = arith.constant 256 : index
    %base = arith.muli %b, %c256 : index
    %i = arith.addi %base, %t : index
    %v = memref.load %x[%i] : memref<262144xf32>
    %s = arith.mulf %v, %v : f32
    memref.store %s, %y[%i] : memref<262144xf32>
    gpu.return
  }
  // 1,000 fused multiply-adds on registers, one store: 4 bytes, 2,000
  // operations: bound by the arithmetic.
  gpu.func @polynomial(%y: memref<262144xf32>) kernel {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1000 = arith.constant 1000 : index
    %one = arith.constant 1.0 : f32
    %r = scf.for %k = %c0 to %c1000 step %c1 iter_args(%acc = %one) -> (f32) {
      %n = math.fma %acc, %acc, %one : f32
      scf.yield %n : f32
    }
    memref.store %r, %y[%t] : memref<262144xf32>
    gpu.return
  }
  // Loads from workgroup memory are on the chip; of a branch, the costlier
  // side counts: 4 bytes (the store in the then-branch) and 1 operation.
  gpu.func @staged(%y: memref<256xf32>, %flag: i1) workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
    %t = gpu.thread_id x
    %v = memref.load %tile[%t] : memref<256xf32, #gpu.address_space<workgroup>>
    scf.if %flag {
      %s = arith.addf %v, %v : f32
      memref.store %s, %y[%t] : memref<256xf32>
    }
    gpu.return
  }
  // An unsigned loop of i32 runs 2^32 - 1 times: 4 bytes each.
  gpu.func @unsigned_loop(%y: memref<256xf32>) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %last = arith.constant -1 : i32
    %v = arith.constant 1.0 : f32
    %i = arith.constant 0 : index
    scf.for unsigned %k = %c0 to %last step %c1 : i32 {
      memref.store %v, %y[%i] : memref<256xf32>
    }
    gpu.return
  }
  // 2^63 iterations of 4 bytes pass 2^64 - 1 bytes: not estimated.
  gpu.func @overflowing(%y: memref<256xf32>) kernel {
    %lo = arith.constant -9223372036854775808 : index
    %hi = arith.constant 9223372036854775807 : index
    %c1 = arith.constant 1 : index
    %v = arith.constant 1.0 : f32
    %i = arith.constant 0 : index
    scf.for %k = %lo to %hi step %c1 {
      memref.store %v, %y[%i] : memref<256xf32>
    }
    gpu.return
  }
  // An op that declares no effects may touch memory: not estimated.
  gpu.func @bulk_store(%p: !llvm.ptr, %n: i64) kernel {
    nvvm.st.bulk %p, size = %n : !llvm.ptr
    gpu.return
  }
  // A loop of unknown trip count: not estimated.
  gpu.func @unbounded(%y: memref<256xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %v = arith.constant 1.0 : f32
    scf.for %k = %c0 to %n step %c1 {
      memref.store %v, %y[%k] : memref<256xf32>
    }
    gpu.return
  }
}

// CHECK-LABEL: func.func @estimates
func.func @estimates(%n: index, %flag: i1, %p: !llvm.ptr, %bytes: i64) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %x = vyre.alloc : memref<262144xf32>
  %y = vyre.alloc : memref<262144xf32>
  %z = vyre.alloc : memref<256xf32>
  // 262,144 threads x 8 bytes = 2 MiB at 4,800 GB/s.
  // CHECK: vyre.dispatch @k::@square
  // CHECK-SAME: {vyre.cost_estimated, vyre.cost_us = 0.43690666666666{{[0-9]*}} : f64}
  // expected-remark @below {{kernel time estimated at 0.437 us: 262144 threads of 8 bytes and 1 floating-point operations each, at 4800.00 GB/s and 67.00 TFLOP/s}}
  vyre.dispatch @k::@square blocks(%c1024, %c1, %c1) threads(%c256, %c1, %c1) args(%x, %y : memref<262144xf32>, memref<262144xf32>)
  // The grid folds to constants (1024 = 4 x 256): 262,144 threads x 2,000
  // operations at 67 TFLOP/s.
  %c4 = arith.constant 4 : index
  %blocks = arith.muli %c4, %c256 : index
  // CHECK: vyre.dispatch @k::@polynomial
  // CHECK-SAME: vyre.cost_us = 7.82519{{[0-9]*}} : f64
  // expected-remark @below {{kernel time estimated at 7.825 us: 262144 threads of 4 bytes and 2000 floating-point operations each, at 4800.00 GB/s and 67.00 TFLOP/s}}
  vyre.dispatch @k::@polynomial blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1) args(%y : memref<262144xf32>)
  // expected-remark @below {{kernel time estimated at 0.000 us: 256 threads of 4 bytes and 1 floating-point operations each, at 4800.00 GB/s and 67.00 TFLOP/s}}
  vyre.dispatch @k::@staged blocks(%c1, %c1, %c1) threads(%c256, %c1, %c1) args(%z, %flag : memref<256xf32>, i1)
  // A declared time stands.
  // CHECK: vyre.dispatch @k::@square
  // CHECK-SAME: {vyre.cost_us = 3.000000e+01 : f64}
  vyre.dispatch @k::@square blocks(%c1024, %c1, %c1) threads(%c256, %c1, %c1) args(%x, %y : memref<262144xf32>, memref<262144xf32>) {vyre.cost_us = 30.0}
  // A grid of unknown size, and a body of unknown trip count: left to the
  // default.
  // CHECK: vyre.dispatch @k::@square
  // CHECK-NOT: vyre.cost_us
  // expected-remark @below {{kernel time not estimated: its grid and block sizes are not all constants; the default kernel time applies}}
  vyre.dispatch @k::@square blocks(%n, %c1, %c1) threads(%c256, %c1, %c1) args(%x, %y : memref<262144xf32>, memref<262144xf32>)
  // CHECK: vyre.dispatch @k::@unbounded
  // CHECK-NOT: vyre.cost_us
  // expected-remark @below {{kernel time not estimated: 'scf.for' runs a number of iterations that is not a constant; the default kernel time applies}}
  vyre.dispatch @k::@unbounded blocks(%c1, %c1, %c1) threads(%c256, %c1, %c1) args(%z, %n : memref<256xf32>, index)
  // CHECK: vyre.dispatch @k::@unsigned_loop
  // expected-remark @below {{kernel time estimated at 3579.139 us: 1 threads of 17179869180 bytes and 0 floating-point operations each}}
  vyre.dispatch @k::@unsigned_loop blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%z : memref<256xf32>)
  // expected-remark @below {{kernel time not estimated: 'scf.for' makes the count pass 2^64 - 1; the default kernel time applies}}
  vyre.dispatch @k::@overflowing blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%z : memref<256xf32>)
  // expected-remark @below {{kernel time not estimated: 'nvvm.st.bulk' has effects that are not declared; the default kernel time applies}}
  vyre.dispatch @k::@bulk_store blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%p, %bytes : !llvm.ptr, i64)
  // A time declared as another float type stands too.
  // CHECK: vyre.dispatch @k::@square
  // CHECK-SAME: {vyre.cost_us = 3.000000e+01 : f32}
  vyre.dispatch @k::@square blocks(%c1024, %c1, %c1) threads(%c256, %c1, %c1) args(%x, %y : memref<262144xf32>, memref<262144xf32>) {vyre.cost_us = 30.0 : f32}
  return
}
