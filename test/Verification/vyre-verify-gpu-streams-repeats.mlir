// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams
// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams="repeats-once=false"

// Tests the rule that lets a loop run repeat an earlier run of the same loop
// with one iteration (repeats-once, on by default): each program has an inner
// loop whose second run differs from its first in what its second iteration
// would find or order, and each must report the same with the shortcut as
// without it. Each failed on an earlier version.

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

// -----

// An inner loop that swaps two events through its iter_args: after two
// iterations its first result is the event it started with, after one the
// other. Such a loop never runs as a repeat: an iter_arg that takes another
// iter_arg of the loop is no event of the iteration.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  func.func @swap() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s = gpu.wait async
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    scf.for %i = %c0 to %c2 step %c1 {
      %a = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
      %b = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
      %r:2 = scf.for %j = %c0 to %c2 step %c1 iter_args(%p = %a, %q = %b) -> (!llvm.ptr, !llvm.ptr) {
        llvm.call @mgpuEventRecord(%p, %sp) : (!llvm.ptr, !llvm.ptr) -> ()
        scf.yield %q, %p : !llvm.ptr, !llvm.ptr
      }
      // expected-note @+1 {{the event is destroyed here}}
      llvm.call @mgpuEventDestroy(%r#0) : (!llvm.ptr) -> ()
      // expected-error @+1 {{uses an event that is already destroyed}}
      llvm.call @mgpuEventDestroy(%a) : (!llvm.ptr) -> ()
      llvm.call @mgpuEventDestroy(%b) : (!llvm.ptr) -> ()
    }
    gpu.wait [%s]
    return
  }
}

// -----

// The same swap, where a shortened run would hide an error: with every run
// in full, both results of the outer loop are one event, destroyed twice.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  func.func @swap_missed() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s = gpu.wait async
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    %e0 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    %e1 = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    %o:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%u = %e0, %v = %e1) -> (!llvm.ptr, !llvm.ptr) {
      // expected-note @+1 {{the event is destroyed here}}
      llvm.call @mgpuEventDestroy(%u) : (!llvm.ptr) -> ()
      // expected-error @+1 {{uses an event that is already destroyed}}
      llvm.call @mgpuEventDestroy(%v) : (!llvm.ptr) -> ()
      %a = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
      // expected-error @+1 {{creates an event that is not destroyed at the return}}
      %b = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
      %r:2 = scf.for %j = %c0 to %c2 step %c1 iter_args(%p = %a, %q = %b) -> (!llvm.ptr, !llvm.ptr) {
        llvm.call @mgpuEventRecord(%p, %sp) : (!llvm.ptr, !llvm.ptr) -> ()
        scf.yield %q, %p : !llvm.ptr, !llvm.ptr
      }
      scf.yield %r#0, %a : !llvm.ptr, !llvm.ptr
    }
    // expected-note @+1 {{the event is destroyed here}}
    llvm.call @mgpuEventDestroy(%o#0) : (!llvm.ptr) -> ()
    // expected-error @+1 {{uses an event that is already destroyed}}
    llvm.call @mgpuEventDestroy(%o#1) : (!llvm.ptr) -> ()
    gpu.wait [%s]
    // expected-note @+1 {{the event is still alive at this return}}
    return
  }
}

// -----

// An identity-layout alias made inside the inner loop from a descriptor
// built outside it, of the outer loop's memref iter_arg: the view it reaches
// through LLVM values is part of what the inner loop uses, so the runs in
// the outer loop's two iterations (%n, then %m) differ, and the race between
// the memset of %m and the copy out of it is found.
!desc = !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
module attributes {gpu.container_module} {
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  func.func @alias(%m: memref<16xf32> {llvm.noalias}, %n: memref<16xf32> {llvm.noalias},
                   %d: memref<16xf32> {llvm.noalias}, %f: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %sa = gpu.wait async
    %sb = gpu.wait async
    %ap = builtin.unrealized_conversion_cast %sa : !gpu.async.token to !llvm.ptr
    %o = scf.for %i = %c0 to %c2 step %c1 iter_args(%w = %n) -> (memref<16xf32>) {
      %aligned = memref.extract_aligned_pointer_as_index %w : memref<16xf32> -> index
      %a64 = arith.index_cast %aligned : index to i64
      %pointer = llvm.inttoptr %a64 : i64 to !llvm.ptr
      %zero = llvm.mlir.constant(0 : i64) : i64
      %sixteen = llvm.mlir.constant(16 : i64) : i64
      %one = llvm.mlir.constant(1 : i64) : i64
      %d0 = llvm.mlir.poison : !desc
      %d1 = llvm.insertvalue %pointer, %d0[0] : !desc
      %d2 = llvm.insertvalue %pointer, %d1[1] : !desc
      %d3 = llvm.insertvalue %zero, %d2[2] : !desc
      %d4 = llvm.insertvalue %sixteen, %d3[3, 0] : !desc
      %d5 = llvm.insertvalue %one, %d4[4, 0] : !desc
      scf.for %j = %c0 to %c2 step %c1 {
        %alias = builtin.unrealized_conversion_cast %d5 : !desc to memref<16xf32>
        // expected-note @+2 {{the work enqueued after the token}}
        // expected-error @+1 {{race on argument #0: 'gpu.memset' and the earlier 'gpu.memcpy' are not ordered}}
        %t1 = gpu.memset async [%sa] %m, %f : memref<16xf32>, f32
        llvm.call @mgpuStreamSynchronize(%ap) : (!llvm.ptr) -> ()
        // expected-note @+2 {{the work enqueued after the token}}
        // expected-note @+1 {{the earlier op}}
        %t2 = gpu.memcpy async [%sb] %d, %alias : memref<16xf32>, memref<16xf32>
      }
      scf.yield %m : memref<16xf32>
    }
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%sa, %sb]
    return
  }
}

// -----

// An inner loop that makes %s2 wait for the event %e before recording %e
// on %s1: its second iteration orders %s2 after the outer iteration's write,
// which one iteration would not. A shortened trace would report a race that
// is not there; it is built again in full, and nothing is reported.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @wait_before_record(%m: memref<16xf32> {llvm.noalias}, %f: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    %p1 = builtin.unrealized_conversion_cast %s1 : !gpu.async.token to !llvm.ptr
    %p2 = builtin.unrealized_conversion_cast %s2 : !gpu.async.token to !llvm.ptr
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    scf.for %i = %c0 to %c2 step %c1 {
      llvm.call @mgpuStreamSynchronize(%p2) : (!llvm.ptr) -> ()
      // expected-note @+1 {{the work enqueued after the token}}
      %w = gpu.launch_func async [%s1] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
      scf.for %j = %c0 to %c2 step %c1 {
        llvm.call @mgpuStreamWaitEvent(%p2, %e) : (!llvm.ptr, !llvm.ptr) -> ()
        llvm.call @mgpuEventRecord(%e, %p1) : (!llvm.ptr, !llvm.ptr) -> ()
      }
      // expected-note @+1 {{the work enqueued after the token}}
      %t = gpu.memset async [%s2] %m, %f : memref<16xf32>, f32
    }
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%s1]
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%s2]
    return
  }
}

// -----

// The same with a host wait: the inner loop synchronizes the host with %e
// before recording %e again, so a second iteration waits for the outer
// loop's memset and one iteration would not. Nothing is reported.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventSynchronize(!llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  func.func @sync_before_record(%m: memref<16xf32> {llvm.noalias}, %f: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s = gpu.wait async
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    scf.for %i = %c0 to %c2 step %c1 {
      %t = gpu.memset async [%s] %m, %f : memref<16xf32>, f32
      scf.for %j = %c0 to %c2 step %c1 {
        llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> ()
        llvm.call @mgpuEventRecord(%e, %sp) : (!llvm.ptr, !llvm.ptr) -> ()
      }
    }
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%sp) : (!llvm.ptr) -> ()
    return
  }
}

// -----

// The same kind of ordering, where one iteration reports another problem:
// in the outer loop's second iteration, the inner loop's second memset comes
// after the host waited for the dealloc of %m (a use after free), and its
// first races with the dealloc. A shortened trace sees the race only (fewer
// orderings never leave a trace clean: a use not ordered after the dealloc
// races with it); it is built again in full, which finds both.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventSynchronize(!llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  func.func @sync_uaf(%m: memref<16xf32> {llvm.noalias}, %f: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    %p2 = builtin.unrealized_conversion_cast %s2 : !gpu.async.token to !llvm.ptr
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        // expected-note @+4 {{the work enqueued after the token}}
        // expected-note @+3 {{the earlier op}}
        // expected-error @+2 {{race on argument #0: 'gpu.memset' and the earlier 'gpu.dealloc' are not ordered}}
        // expected-error @+1 {{uses a buffer after its 'gpu.dealloc'}}
        %x = gpu.memset async [%s1] %m, %f : memref<16xf32>, f32
        llvm.call @mgpuEventRecord(%e, %p2) : (!llvm.ptr, !llvm.ptr) -> ()
        llvm.call @mgpuEventSynchronize(%e) : (!llvm.ptr) -> ()
      }
      // expected-note @+5 {{the work enqueued after the token}}
      // expected-error @+4 {{race on argument #0: 'gpu.dealloc' and the earlier 'gpu.memset' are not ordered}}
      // expected-note @+3 {{the earlier op}}
      // expected-note @+2 {{the dealloc}}
      // expected-error @+1 {{uses a buffer after its 'gpu.dealloc'}}
      %d = gpu.dealloc async [%s2] %m : memref<16xf32>
    }
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%s1]
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%s2]
    return
  }
}
