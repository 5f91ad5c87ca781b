// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams
// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams="repeats-once=false"

// Tests the entry signature that lets a loop run repeat an earlier run of the
// same loop with one iteration (repeats-once, on by default): each program
// has an inner loop whose second run differs from its first only in what its
// second iteration would find, and each must report the same with the
// shortcut as without it.

// The inner loop's iter_arg starts as the event %q in the outer loop's
// second iteration, and as another event in its first: only where they are
// the same event does the inner loop's second iteration record an event the
// first destroyed. The loop's inits belong in its entry signature.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  func.func @init_aliases_input() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s = gpu.wait async
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    %e1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    %e2 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%x = %e1, %q = %e2) -> (!llvm.ptr, !llvm.ptr) {
      %last = scf.for %j = %c0 to %c2 step %c1 iter_args(%p = %x) -> (!llvm.ptr) {
        // expected-error @+1 {{uses an event that is already destroyed}}
        llvm.call @mgpuEventRecord(%q, %sp) : (!llvm.ptr, !llvm.ptr) -> ()
        // expected-note @+1 {{the event is destroyed here}}
        llvm.call @mgpuEventDestroy(%p) : (!llvm.ptr) -> ()
        %next = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
        scf.yield %next : !llvm.ptr
      }
      llvm.call @mgpuEventDestroy(%last) : (!llvm.ptr) -> ()
      scf.yield %q, %q : !llvm.ptr, !llvm.ptr
    }
    gpu.wait [%s]
    return
  }
}

// -----

// A race that shows only where the inner loop's iter_arg and %q are
// different events: then the second iteration's read waits for nothing the
// first iteration's write recorded. The outer loop's first iteration starts
// the inner loop with them the same event, its second with a new one.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
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
  func.func @missed_race(%m: memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %a = gpu.wait async
    %b = gpu.wait async
    %ap = builtin.unrealized_conversion_cast %a : !gpu.async.token to !llvm.ptr
    %bp = builtin.unrealized_conversion_cast %b : !gpu.async.token to !llvm.ptr
    %q = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    %r = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    %f = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    %out = scf.for %i = %c0 to %c2 step %c1 iter_args(%x = %q) -> (!llvm.ptr) {
      llvm.call @mgpuStreamSynchronize(%ap) : (!llvm.ptr) -> ()
      llvm.call @mgpuStreamSynchronize(%bp) : (!llvm.ptr) -> ()
      %last = scf.for %j = %c0 to %c2 step %c1 iter_args(%p = %x) -> (!llvm.ptr) {
        llvm.call @mgpuStreamWaitEvent(%bp, %p) : (!llvm.ptr, !llvm.ptr) -> ()
        // expected-error @+1 {{race on argument #0: 'gpu.launch_func' and the earlier 'gpu.launch_func' are not ordered}}
        %t1 = gpu.launch_func async [%b] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
        llvm.call @mgpuEventRecord(%r, %bp) : (!llvm.ptr, !llvm.ptr) -> ()
        llvm.call @mgpuStreamWaitEvent(%ap, %r) : (!llvm.ptr, !llvm.ptr) -> ()
        // expected-note @+1 {{the earlier op}}
        %t2 = gpu.launch_func async [%a] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
        llvm.call @mgpuEventRecord(%q, %ap) : (!llvm.ptr, !llvm.ptr) -> ()
        scf.yield %p : !llvm.ptr
      }
      scf.yield %f : !llvm.ptr
    }
    llvm.call @mgpuStreamSynchronize(%ap) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamSynchronize(%bp) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%ap) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%bp) : (!llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%q) : (!llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%r) : (!llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%f) : (!llvm.ptr) -> ()
    return
  }
}

// -----

// The event the inner loop uses is destroyed before the outer loop's first
// iteration and new in its second: only in the second does the inner loop's
// second iteration record it after its first destroyed it. Whether an event
// is destroyed already belongs in the entry signature. Each use is reported
// twice, once with the destroy before the loops and once with the one inside
// (the verifier matches both to one expectation): the note inside is the one
// a run of one iteration would miss.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  func.func @destroyed_on_entry() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s = gpu.wait async
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    %e0 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    // expected-note @+1 {{the event is destroyed here}}
    llvm.call @mgpuEventDestroy(%e0) : (!llvm.ptr) -> ()
    %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%e = %e0) -> (!llvm.ptr) {
      scf.for %j = %c0 to %c2 step %c1 {
        // expected-error @+1 {{uses an event that is already destroyed}}
        llvm.call @mgpuEventRecord(%e, %sp) : (!llvm.ptr, !llvm.ptr) -> ()
        // expected-error @+2 {{uses an event that is already destroyed}}
        // expected-note @+1 {{the event is destroyed here}}
        llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
      }
      %fresh = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
      scf.yield %fresh : !llvm.ptr
    }
    llvm.call @mgpuEventDestroy(%r) : (!llvm.ptr) -> ()
    gpu.wait [%s]
    return
  }
}
