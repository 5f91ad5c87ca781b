// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams

// Tests nested loops whose iterations differ on the device: each loop
// runs two iterations in every iteration of the loop around it, and each
// of these problems shows only where an inner loop runs twice in the outer
// loop's second iteration (a trace that ran the inner loops once there
// missed all four: see docs/Verification.md).

// An inner loop that swaps two streams through its iter_args: with two
// iterations, the launch of the outer loop's last iteration lands on the
// stream that is destroyed without a wait.
module attributes {gpu.container_module} {
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @rotate(%m1: memref<16xf32> {llvm.noalias}, %m2: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = gpu.wait async
    %b = gpu.wait async
    %pb = builtin.unrealized_conversion_cast %b : !gpu.async.token to !llvm.ptr
    scf.for %i = %c0 to %n step %c1 {
      llvm.call @mgpuStreamSynchronize(%pb) : (!llvm.ptr) -> ()
      %r:4 = scf.for %j = %c0 to %n step %c1 iter_args(%x = %a, %y = %b, %mx = %m1, %my = %m2) -> (!gpu.async.token, !gpu.async.token, memref<16xf32>, memref<16xf32>) {
        // expected-error @+1 {{may still be running at the return: no blocking gpu.wait synchronizes its stream after it}}
        %t = gpu.launch_func async [%x] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%mx : memref<16xf32>)
        scf.yield %y, %t, %my, %mx : !gpu.async.token, !gpu.async.token, memref<16xf32>, memref<16xf32>
      }
    }
    llvm.call @mgpuStreamDestroy(%pb) : (!llvm.ptr) -> ()
    gpu.wait [%a]
    // expected-note @+1 {{the return}}
    return
  }
}

// -----

// The same swap: the last write to %m2 runs on the other stream than the
// read after the loops.
module attributes {gpu.container_module} {
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
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
  func.func @rotate(%m1: memref<16xf32> {llvm.noalias}, %m2: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = gpu.wait async
    %b = gpu.wait async
    %pb = builtin.unrealized_conversion_cast %b : !gpu.async.token to !llvm.ptr
    scf.for %i = %c0 to %n step %c1 {
      llvm.call @mgpuStreamSynchronize(%pb) : (!llvm.ptr) -> ()
      %r:4 = scf.for %j = %c0 to %n step %c1 iter_args(%x = %a, %y = %b, %mx = %m1, %my = %m2) -> (!gpu.async.token, !gpu.async.token, memref<16xf32>, memref<16xf32>) {
        // expected-note @+1 {{the earlier op}}
        %t = gpu.launch_func async [%x] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%mx : memref<16xf32>)
        scf.yield %y, %t, %my, %mx : !gpu.async.token, !gpu.async.token, memref<16xf32>, memref<16xf32>
      }
    }
    // expected-error @+1 {{race on argument #1: 'gpu.launch_func' and the earlier 'gpu.launch_func' are not ordered}}
    %t2 = gpu.launch_func async [%a] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m2 : memref<16xf32>)
    gpu.wait [%t2]
    gpu.wait [%b]
    return
  }
}

// -----

// An inner loop that records an outer event again on an empty stream: in
// the outer loop's second iteration, the inner loop's second read waits for
// that empty record, not for the write of the outer loop's first iteration.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
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
  func.func @rerecord(%m: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = gpu.wait async
    %pa = builtin.unrealized_conversion_cast %a : !gpu.async.token to !llvm.ptr
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %s = gpu.wait async
        %ps = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
        llvm.call @mgpuStreamWaitEvent(%ps, %e) : (!llvm.ptr, !llvm.ptr) -> ()
        // expected-error @+1 {{race on argument #0: 'gpu.launch_func' and the earlier 'gpu.launch_func' are not ordered}}
        %y = gpu.launch_func async [%s] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
        %f = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
        llvm.call @mgpuEventRecord(%f, %ps) : (!llvm.ptr, !llvm.ptr) -> ()
        llvm.call @mgpuStreamWaitEvent(%pa, %f) : (!llvm.ptr, !llvm.ptr) -> ()
        llvm.call @mgpuEventDestroy(%f) : (!llvm.ptr) -> ()
        llvm.call @mgpuStreamDestroy(%ps) : (!llvm.ptr) -> ()
        %z = gpu.wait async
        %pz = builtin.unrealized_conversion_cast %z : !gpu.async.token to !llvm.ptr
        llvm.call @mgpuEventRecord(%e, %pz) : (!llvm.ptr, !llvm.ptr) -> ()
        gpu.wait [%z]
      }
      // expected-note @+2 {{the work enqueued after the token}}
      // expected-note @+1 {{the earlier op}}
      %x = gpu.launch_func async [%a] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
      llvm.call @mgpuEventRecord(%e, %pa) : (!llvm.ptr, !llvm.ptr) -> ()
    }
    // expected-warning @+1 {{waits on a token and expects the work enqueued after it on its stream ('gpu.launch_func') to be done}}
    gpu.wait [%a]
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
    return
  }
}

// -----

// An inner loop that swaps a buffer allocated in this iteration with one
// carried from the last, which that iteration freed.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @uaf(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    // expected-note @+1 {{the work enqueued after the token}}
    %q0, %t0 = gpu.alloc async [%s] () : memref<16xf32>
    %res = scf.for %i = %c0 to %n step %c1 iter_args(%q = %q0) -> (memref<16xf32>) {
      %p, %t1 = gpu.alloc async [%s] () : memref<16xf32>
      %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%x = %p, %y = %q) -> (memref<16xf32>, memref<16xf32>) {
        // expected-error @+1 {{uses a buffer after its 'gpu.dealloc'}}
        %t = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
        scf.yield %y, %x : memref<16xf32>, memref<16xf32>
      }
      // expected-note @+1 {{the dealloc}}
      %t2 = gpu.dealloc async [%s] %p : memref<16xf32>
      scf.yield %p : memref<16xf32>
    }
    %t3 = gpu.dealloc async [%s] %q0 : memref<16xf32>
    // expected-warning @+1 {{waits on a token and expects the work enqueued after it on its stream ('gpu.alloc') to be done}}
    gpu.wait [%s]
    return
  }
}
