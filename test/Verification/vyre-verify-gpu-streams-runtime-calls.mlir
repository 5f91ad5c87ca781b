// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams

// Tests the runtime calls host code makes itself, as --convert-vyre-to-gpu
// does to chain a loop's iterations on the device: a loop that carries an
// event, each iteration's stream waiting for it, is race-free, and frees
// every event and stream.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventSynchronize(!llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @chained(%a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = gpu.wait async
    %first = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    %mp = builtin.unrealized_conversion_cast %m : !gpu.async.token to !llvm.ptr
    llvm.call @mgpuEventRecord(%first, %mp) : (!llvm.ptr, !llvm.ptr) -> ()
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%e = %first) -> (!llvm.ptr) {
      %s = gpu.wait async
      %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
      llvm.call @mgpuStreamWaitEvent(%sp, %e) : (!llvm.ptr, !llvm.ptr) -> ()
      %t = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      %next = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
      %tp = builtin.unrealized_conversion_cast %t : !gpu.async.token to !llvm.ptr
      llvm.call @mgpuEventRecord(%next, %tp) : (!llvm.ptr, !llvm.ptr) -> ()
      llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
      llvm.call @mgpuStreamDestroy(%tp) : (!llvm.ptr) -> ()
      scf.yield %next : !llvm.ptr
    }
    llvm.call @mgpuEventSynchronize(%last) : (!llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%last) : (!llvm.ptr) -> ()
    gpu.wait [%m]
    return
  }
}

// -----

// Tests that an iteration whose stream does not wait for the event races
// with the iteration before it, and that the host's wait for the last event
// does not cover the earlier iterations.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventSynchronize(!llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @unchained(%a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = gpu.wait async
    %first = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    %mp = builtin.unrealized_conversion_cast %m : !gpu.async.token to !llvm.ptr
    llvm.call @mgpuEventRecord(%first, %mp) : (!llvm.ptr, !llvm.ptr) -> ()
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%e = %first) -> (!llvm.ptr) {
      %s = gpu.wait async
      // expected-error @+2 {{race on argument #0: two executions of 'gpu.launch_func' are not ordered}}
      // expected-error @+1 {{may still be running at the return: no blocking gpu.wait synchronizes its stream after it}}
      %t = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
      %next = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
      %tp = builtin.unrealized_conversion_cast %t : !gpu.async.token to !llvm.ptr
      llvm.call @mgpuEventRecord(%next, %tp) : (!llvm.ptr, !llvm.ptr) -> ()
      llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
      llvm.call @mgpuStreamDestroy(%tp) : (!llvm.ptr) -> ()
      scf.yield %next : !llvm.ptr
    }
    llvm.call @mgpuEventSynchronize(%last) : (!llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%last) : (!llvm.ptr) -> ()
    gpu.wait [%m]
    // expected-note @+1 {{the return}}
    return
  }
}

// -----

// Tests that an event used after its destruction, a stream used after
// mgpuStreamDestroy, and an event never destroyed are reported.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  func.func @misuse(%a: memref<16xf32>, %b: memref<16xf32>) {
    %s = gpu.wait async
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    llvm.call @mgpuEventRecord(%e, %sp) : (!llvm.ptr, !llvm.ptr) -> ()
    // expected-note @+1 {{the event is destroyed here}}
    llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
    // expected-error @+1 {{uses an event that is already destroyed}}
    llvm.call @mgpuStreamWaitEvent(%sp, %e) : (!llvm.ptr, !llvm.ptr) -> ()
    // expected-note @+1 {{the stream is destroyed here, before the work is enqueued}}
    llvm.call @mgpuStreamDestroy(%sp) : (!llvm.ptr) -> ()
    // expected-error @+2 {{enqueues work on a stream that is already destroyed}}
    // expected-error @+1 {{may still be running at the return}}
    %t = gpu.memcpy async [%s] %a, %b : memref<16xf32>, memref<16xf32>
    // expected-error @+1 {{creates an event that is not destroyed at the return}}
    %leaked = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    // expected-note @+2 {{the event is still alive at this return}}
    // expected-note @+1 {{the return}}
    return
  }
}

// -----

// Tests that a loop that holds runtime calls alone, with no gpu op and no
// token in it, is unfolded as well: its second iteration records an event
// its first destroyed, and destroys it again. The loop of the second function destroys its events
// once each and is clean.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  func.func @calls_only() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s = gpu.wait async
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    scf.for %i = %c0 to %c2 step %c1 {
      // expected-error @+1 {{uses an event that is already destroyed}}
      llvm.call @mgpuEventRecord(%e, %sp) : (!llvm.ptr, !llvm.ptr) -> ()
      // expected-error @+2 {{uses an event that is already destroyed}}
      // expected-note @+1 {{the event is destroyed here}}
      llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
    }
    gpu.wait [%s]
    return
  }
  func.func @calls_only_clean(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    scf.for %i = %c0 to %n step %c1 {
      %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
      llvm.call @mgpuEventRecord(%e, %sp) : (!llvm.ptr, !llvm.ptr) -> ()
      llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
    }
    gpu.wait [%s]
    return
  }
}

// -----

// Tests a stream continued through its pointer cast back to a token, as
// --convert-vyre-to-gpu lends a stream made before a loop to its
// iterations: what runs on it is in its order (the copy of the next
// iteration after the kernel of this one needs no event), and a copy on a
// second continued stream that does not wait for the iteration's event
// races with the kernel of the iteration before. A join may not name such a
// token: gpu-to-llvm would take its pointer for an event.
module attributes {gpu.container_module} {
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @one_continued_stream(%h: memref<16xf32>, %a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = gpu.wait async
    %mp = builtin.unrealized_conversion_cast %m : !gpu.async.token to !llvm.ptr
    scf.for %i = %c0 to %n step %c1 {
      %s = builtin.unrealized_conversion_cast %mp : !llvm.ptr to !gpu.async.token
      %t = gpu.memcpy async [%s] %a, %h : memref<16xf32>, memref<16xf32>
      %k = gpu.launch_func async [%t] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    llvm.call @mgpuStreamSynchronize(%mp) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%mp) : (!llvm.ptr) -> ()
    return
  }
  func.func @two_continued_streams(%h: memref<16xf32>, %a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = gpu.wait async
    %mp = builtin.unrealized_conversion_cast %m : !gpu.async.token to !llvm.ptr
    %o = gpu.wait async
    %op = builtin.unrealized_conversion_cast %o : !gpu.async.token to !llvm.ptr
    scf.for %i = %c0 to %n step %c1 {
      %s = builtin.unrealized_conversion_cast %mp : !llvm.ptr to !gpu.async.token
      // expected-error @below {{race on argument #1: 'gpu.memcpy' and the earlier 'gpu.launch_func' are not ordered}}
      %t = gpu.memcpy async [%s] %a, %h : memref<16xf32>, memref<16xf32>
      %e = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
      %tp = builtin.unrealized_conversion_cast %t : !gpu.async.token to !llvm.ptr
      llvm.call @mgpuEventRecord(%e, %tp) : (!llvm.ptr, !llvm.ptr) -> ()
      %r = builtin.unrealized_conversion_cast %op : !llvm.ptr to !gpu.async.token
      %rp = builtin.unrealized_conversion_cast %r : !gpu.async.token to !llvm.ptr
      llvm.call @mgpuStreamWaitEvent(%rp, %e) : (!llvm.ptr, !llvm.ptr) -> ()
      llvm.call @mgpuEventDestroy(%e) : (!llvm.ptr) -> ()
      // expected-note @below {{the earlier op}}
      %k = gpu.launch_func async [%r] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    llvm.call @mgpuStreamSynchronize(%mp) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamSynchronize(%op) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%mp) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%op) : (!llvm.ptr) -> ()
    return
  }
}

// -----

module attributes {gpu.container_module} {
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  func.func @join_names_a_continued_stream() {
    %m = gpu.wait async
    %mp = builtin.unrealized_conversion_cast %m : !gpu.async.token to !llvm.ptr
    %s = builtin.unrealized_conversion_cast %mp : !llvm.ptr to !gpu.async.token
    // expected-error @below {{dependency #0 is not traceable to a stream made by gpu.wait async}}
    %j = gpu.wait async [%s]
    gpu.wait [%j]
    llvm.call @mgpuStreamDestroy(%mp) : (!llvm.ptr) -> ()
    return
  }
}
