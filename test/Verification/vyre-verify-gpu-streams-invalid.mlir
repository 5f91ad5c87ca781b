// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams

// Tests that an op with two dependencies is refused, as gpu-to-llvm fails to
// legalize it; this is what upstream --gpu-async-region makes of two streams
// that meet.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @two_dependencies(%arg0: memref<16xf32>, %arg1: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %0 = gpu.wait async
    %1 = gpu.wait async [%0]
    // expected-error @+1 {{'gpu.launch_func' op has 2 async dependencies: gpu-to-llvm lowers one at most}}
    %2 = gpu.launch_func async [%1, %0] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)  args(%arg0 : memref<16xf32>)
    gpu.wait [%2]
    return
  }
}

// -----

// Tests that an async copy without a dependency is refused: gpu-to-llvm
// leaves it unconverted.
func.func @no_dependency(%a: memref<16xf32>, %b: memref<16xf32>) {
  // expected-error @+1 {{'gpu.memcpy' op is async without a dependency: gpu-to-llvm leaves it unconverted}}
  %t = gpu.memcpy async %a, %b : memref<16xf32>, memref<16xf32>
  gpu.wait [%t]
  return
}

// -----

// Tests that a synchronous copy is refused: gpu-to-llvm leaves it
// unconverted.
func.func @synchronous_copy(%a: memref<16xf32>, %b: memref<16xf32>) {
  // expected-error @+1 {{'gpu.memcpy' op is not async: gpu-to-llvm leaves it unconverted}}
  gpu.memcpy %a, %b : memref<16xf32>, memref<16xf32>
  return
}

// -----

// Tests that a join of a loop result is refused: gpu-to-llvm cannot trace it
// to a stream and would pass the stream as an event.
func.func @join_of_loop_result(%a: memref<16xf32>, %b: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = gpu.wait async
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %s) -> (!gpu.async.token) {
    %t = gpu.memcpy async [%it] %a, %b : memref<16xf32>, memref<16xf32>
    scf.yield %t : !gpu.async.token
  }
  // expected-error @+1 {{'gpu.wait' op dependency #0 is not traceable to a stream made by gpu.wait async (it is a block argument, a loop-carried value or a region result): gpu-to-llvm would pass it as an event to mgpuStreamWaitEvent and mgpuEventDestroy}}
  %j = gpu.wait async [%r]
  gpu.wait [%j]
  return
}

// -----

// Tests that a blocking wait on a branch result is refused: gpu-to-llvm would
// synchronize and destroy it as an event.
func.func @wait_on_branch_result(%a: memref<16xf32>, %b: memref<16xf32>, %c: i1) {
  %s = gpu.wait async
  %r = scf.if %c -> (!gpu.async.token) {
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
    scf.yield %t : !gpu.async.token
  } else {
    scf.yield %s : !gpu.async.token
  }
  // expected-error @+1 {{'gpu.wait' op dependency #0 is not traceable to a stream made by gpu.wait async (it is a block argument, a loop-carried value or a region result): gpu-to-llvm would pass it as an event to mgpuEventSynchronize and mgpuEventDestroy}}
  gpu.wait [%r]
  return
}

// -----

// Tests that gpu work inside a region op the checker cannot unfold is
// refused, and that the same region op holding only host work is not.
func.func @parallel_loop(%a: memref<16xf32>, %b: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.parallel' op holds gpu work in a region --vyre-verify-gpu-streams cannot unfold (only scf.for, scf.while, scf.if, scf.index_switch and scf.execute_region)}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %s = gpu.wait async
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
    gpu.wait [%t]
    scf.reduce
  }
  return
}
func.func @host_parallel_loop(%a: memref<16xf32>, %b: memref<16xf32>, %n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = gpu.wait async
  %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  gpu.wait [%t]
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %x, %a[%i] : memref<16xf32>
    scf.reduce
  }
  return
}

// -----

// Tests that a token passed through an op the checker does not know is
// refused.
func.func @select_token(%a: memref<16xf32>, %b: memref<16xf32>, %c: i1) {
  %s1 = gpu.wait async
  %s2 = gpu.wait async
  // expected-error @+1 {{'arith.select' op passes a !gpu.async.token, which --vyre-verify-gpu-streams cannot follow}}
  %s = arith.select %c, %s1, %s2 : !gpu.async.token
  %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  gpu.wait [%t]
  return
}

// -----

// Tests that tokens crossing the function boundary are refused.
// expected-error @+1 {{'func.func' op takes a !gpu.async.token argument, whose stream --vyre-verify-gpu-streams cannot follow}}
func.func @token_argument(%t: !gpu.async.token) {
  gpu.wait [%t]
  return
}
func.func @token_result() -> !gpu.async.token {
  %s = gpu.wait async
  // expected-error @+1 {{'func.return' op returns a !gpu.async.token, whose stream --vyre-verify-gpu-streams cannot follow past the function}}
  return %s : !gpu.async.token
}

// -----

// Tests that a function body of several blocks holding gpu work is refused.
// expected-error @+1 {{'func.func' op holds gpu work in a body of several blocks, which --vyre-verify-gpu-streams cannot unfold}}
func.func @blocks(%a: memref<16xf32>, %b: memref<16xf32>) {
  %s = gpu.wait async
  cf.br ^next
^next:
  %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  gpu.wait [%t]
  return
}

// -----

// Tests that an async gpu op the checker does not model is refused.
func.func @inline_launch(%a: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %s = gpu.wait async
  // expected-error @+1 {{'gpu.launch' op is an async gpu op that --vyre-verify-gpu-streams does not model}}
  %t = gpu.launch async [%s] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  gpu.wait [%t]
  return
}

// -----

// Tests that more than 64 combinations of branches (on distinct conditions)
// are refused.
// expected-error @+1 {{'func.func' op has more than 64 combinations of scf.if branches and loop trip counts, more than --vyre-verify-gpu-streams checks: raise its max-traces to check it (each combination is one trace)}}
func.func @many_branches(%a: memref<16xf32>, %b: memref<16xf32>, %c0: i1, %c1: i1, %c2: i1, %c3: i1, %c4: i1, %c5: i1, %c6: i1) {
  %s = gpu.wait async
  scf.if %c0 {
    // expected-note @+1 {{the work enqueued after the token}}
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  }
  scf.if %c1 {
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  }
  scf.if %c2 {
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  }
  scf.if %c3 {
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  }
  scf.if %c4 {
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  }
  scf.if %c5 {
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  }
  scf.if %c6 {
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
  }
  // expected-warning @+1 {{relies on the token being its stream}}
  gpu.wait [%s]
  return
}

// -----

// Tests the output of upstream --gpu-async-region for a sync launch followed
// by a `gpu.wait async` and a copy (produced with mlir-opt 22): it turns the
// wait into a join, which leaves the first stream alive at the return.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @leak(%arg0: memref<16xf32>, %arg1: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{creates a stream that is still alive at the return: no blocking gpu.wait destroys it (a join does not destroy the streams it waits on)}}
    %0 = gpu.wait async
    %1 = gpu.launch_func async [%0] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)  args(%arg1 : memref<16xf32>)
    %2 = gpu.wait async [%1]
    %3 = gpu.memcpy async [%2] %arg0, %arg1 : memref<16xf32>, memref<16xf32>
    gpu.wait [%3]
    // expected-note @+1 {{the stream is still alive at this return}}
    return
  }
}

// -----

// Tests that a host op reading a gpu.alloc buffer that is not host_shared is
// refused: on a GPU, the host would dereference a device pointer.
module attributes {gpu.container_module} {
  func.func @host_reads_device_memory(%out: memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %t0 = gpu.wait async
    %a, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
    gpu.wait [%t1]
    // expected-error @below {{'memref.load' op reads device memory on the host: the buffer is a gpu.alloc buffer, not host_shared, which only kernels and copies may touch}}
    %v = memref.load %a[%c0] : memref<16xf32>
    memref.store %v, %out[%c0] : memref<16xf32>
    %t2 = gpu.wait async
    %t3 = gpu.dealloc async [%t2] %a : memref<16xf32>
    gpu.wait [%t3]
    return
  }
}

// -----

// Tests that an asynchronous host_shared allocation, which gpu-to-llvm
// leaves unconverted, is refused (next to the synchronous one accepted in
// vyre-verify-gpu-streams.mlir).
module attributes {gpu.container_module} {
  func.func @async_host_shared() {
    %t0 = gpu.wait async
    // expected-error @below {{'gpu.alloc' op is an asynchronous host_shared allocation: gpu-to-llvm lowers only the synchronous form}}
    %a, %t1 = gpu.alloc async [%t0] host_shared () : memref<16xf32>
    gpu.wait [%t1]
    return
  }
}
