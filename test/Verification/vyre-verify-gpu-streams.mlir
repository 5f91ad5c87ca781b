// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams

// Tests that a join of a token defined before a loop waits only for the work
// before the loop (gpu-to-llvm records its event right after the token's
// defining op), so a copy on the joined stream races with the kernel the loop
// launched on that stream; a blocking wait after the loop (next function)
// orders them.
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
  func.func @stale_token(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %s = gpu.wait async
    %t = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      // expected-note @+2 {{the work enqueued after the token}}
      // expected-note @+1 {{the earlier op}}
      %k = gpu.launch_func async [%t] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    }
    %j = gpu.wait async [%t, %t]
    // expected-error @+1 {{race on argument #1: 'gpu.memcpy' and the earlier 'gpu.launch_func' are not ordered}}
    %c = gpu.memcpy async [%j] %h, %d : memref<16xf32>, memref<16xf32>
    gpu.wait [%c]
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%t]
    return
  }
  func.func @synced_token(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %s = gpu.wait async
    %t = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      // expected-note @+1 {{the work enqueued after the token}}
      %k = gpu.launch_func async [%t] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    }
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%t]
    %s2 = gpu.wait async
    %c = gpu.memcpy async [%s2] %h, %d : memref<16xf32>, memref<16xf32>
    gpu.wait [%c]
    return
  }
}

// -----

// Tests that a loop-carried token used only as the single dependency of the
// next op keeps the work on one stream, and that a blocking wait on the
// stream's first token (a loop result cannot be waited on) covers it all.
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
  func.func @carried_token(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    // expected-note @+1 {{the work enqueued after the token}}
    %t = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %t) -> (!gpu.async.token) {
      %k = gpu.launch_func async [%it] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      scf.yield %k : !gpu.async.token
    }
    %c = gpu.memcpy async [%r] %h, %d : memref<16xf32>, memref<16xf32>
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%s]
    %v = memref.load %h[%c0] : memref<16xf32>
    return
  }
}

// -----

// Tests that a token defined before a loop and joined inside it has one event,
// recorded once and destroyed on every iteration: from the second iteration
// on the join uses a destroyed event; with an unknown trip count the loop may
// not run, and the event leaks. A join inside the loop of a token defined in
// the same block (next function) is fine.
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
  func.func @join_in_loop(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %s = gpu.wait async
    // expected-note @+1 {{the event is recorded after this op}}
    %t = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      // expected-error @+1 {{dependency #0: waits on and destroys an event that an earlier execution of this join already destroyed}}
      %j = gpu.wait async [%t]
      %k = gpu.launch_func async [%j] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      gpu.wait [%k]
    }
    gpu.wait [%t]
    return
  }
  func.func @join_in_loop_maybe_empty(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    // expected-note @+2 {{the event is recorded after this op}}
    // expected-note @+1 {{the event is created after this op}}
    %t = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+2 {{dependency #0: waits on and destroys an event that an earlier execution of this join already destroyed}}
      // expected-error @+1 {{dependency #0: gpu-to-llvm creates an event after the op that defines it, and this join does not run to destroy it}}
      %j = gpu.wait async [%t]
      %k = gpu.launch_func async [%j] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      gpu.wait [%k]
    }
    gpu.wait [%t]
    return
  }
  func.func @join_beside_def(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}, %e: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %s = gpu.wait async
      %t = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
      %s2 = gpu.wait async
      %c0f = arith.constant 0.0 : f32
      %u = gpu.memset async [%s2] %e, %c0f : memref<16xf32>, f32
      %j = gpu.wait async [%t, %u]
      %k = gpu.launch_func async [%j] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      gpu.wait [%t, %u, %k]
    }
    return
  }
}

// -----

// Tests that a join whose only run is in a branch that is not taken leaks the
// event gpu-to-llvm created after the token's defining op.
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
  func.func @join_in_branch(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}, %b: i1) {
    %s = gpu.wait async
    // expected-note @+1 {{the event is created after this op}}
    %t = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    scf.if %b {
      // expected-error @+1 {{dependency #0: gpu-to-llvm creates an event after the op that defines it, and this join does not run to destroy it}}
      %j = gpu.wait async [%t]
      gpu.wait [%j]
    }
    gpu.wait [%t]
    return
  }
  func.func @def_in_branch(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}, %b: i1) {
    scf.if %b {
      %s = gpu.wait async
      %t = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
      %j = gpu.wait async [%t]
      gpu.wait [%t, %j]
    } else {
      %s = gpu.wait async
      %t = gpu.memcpy async [%s] %h, %d : memref<16xf32>, memref<16xf32>
      gpu.wait [%t]
    }
    return
  }
}

// -----

// Tests that a blocking wait naming two tokens of one stream destroys that
// stream twice, that work enqueued on a destroyed stream is reported, and
// that waiting on the stream's last token alone is fine.
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
  func.func @same_stream_twice(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %a = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    %b = gpu.launch_func async [%a] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    // expected-error @+1 {{token #1 names a stream an earlier token of this wait already names: the stream is destroyed twice}}
    gpu.wait [%a, %b]
    return
  }
  func.func @after_destroy(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %a = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    // expected-note @+2 {{the stream is destroyed here, before the work is enqueued}}
    // expected-note @+1 {{the stream is destroyed here}}
    gpu.wait [%a]
    // expected-error @+1 {{enqueues work on a stream that is already destroyed}}
    %b = gpu.launch_func async [%a] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    // expected-error @+1 {{token #0 names a stream that is already destroyed: it is synchronized and destroyed again}}
    gpu.wait [%b]
    return
  }
  func.func @last_token(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %a = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    %b = gpu.launch_func async [%a] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%b]
    return
  }
}

// -----

// Tests that a buffer from gpu.alloc async is used only by ops ordered after
// the alloc, not by a copy on another stream, and never after its dealloc.
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
  func.func @alloc_other_stream(%h: memref<16xf32>) {
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    // expected-note @+1 {{the alloc}}
    %m, %a = gpu.alloc async [%s1] () : memref<16xf32>
    // expected-error @+1 {{uses a buffer from 'gpu.alloc async' but is not ordered after the alloc}}
    %c = gpu.memcpy async [%s2] %m, %h : memref<16xf32>, memref<16xf32>
    %j = gpu.wait async [%a, %c]
    %f = gpu.dealloc async [%j] %m : memref<16xf32>
    gpu.wait [%a, %c, %f]
    return
  }
  func.func @use_after_dealloc(%h: memref<16xf32>) {
    %s = gpu.wait async
    %m, %a = gpu.alloc async [%s] () : memref<16xf32>
    // expected-note @+1 {{the dealloc}}
    %f = gpu.dealloc async [%a] %m : memref<16xf32>
    // expected-error @+1 {{uses a buffer after its 'gpu.dealloc'}}
    %c = gpu.memcpy async [%f] %m, %h : memref<16xf32>, memref<16xf32>
    gpu.wait [%c]
    return
  }
  func.func @alloc_same_stream(%h: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %s = gpu.wait async
      %m, %a = gpu.alloc async [%s] () : memref<16xf32>
      %c = gpu.memcpy async [%a] %m, %h : memref<16xf32>, memref<16xf32>
      %k = gpu.launch_func async [%c] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
      %f = gpu.dealloc async [%k] %m : memref<16xf32>
      gpu.wait [%f]
    }
    return
  }
}

// -----

// Tests that a launch whose stream nothing waits on may still run at the
// return, and leaks its stream; a dependency-free launch makes a stream of
// its own (gpu-to-llvm creates one), which a blocking wait destroys.
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
  func.func @never_waited(%d: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{creates a stream that is still alive at the return}}
    %s = gpu.wait async
    // expected-error @+1 {{may still be running at the return: no blocking gpu.wait synchronizes its stream after it}}
    %t = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    // expected-note @+2 {{the return}}
    // expected-note @+1 {{the stream is still alive at this return}}
    return
  }
  func.func @waited(%d: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%t]
    return
  }
  func.func @own_stream(%d: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.launch_func async @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%t]
    gpu.launch_func @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    return
  }
}

// -----

// Tests that the host must not load from a buffer a kernel writes before a
// blocking wait on the kernel's stream, that it may load one a kernel only
// reads, and that arguments without llvm.noalias may be one buffer.
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
  func.func @load_without_wait(%d: memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    // expected-note @+1 {{the earlier op}}
    %t = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    // expected-error @+1 {{race on argument #0: 'memref.load' and the earlier 'gpu.launch_func' are not ordered}}
    %v = memref.load %d[%c0] : memref<16xf32>
    gpu.wait [%t]
    return %v : f32
  }
  func.func @load_after_wait(%d: memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%t]
    %v = memref.load %d[%c0] : memref<16xf32>
    return %v : f32
  }
  func.func @load_beside_reader(%d: memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    %v = memref.load %d[%c0] : memref<16xf32>
    gpu.wait [%t]
    return %v : f32
  }
  func.func @store_to_alias(%d: memref<16xf32>, %e: memref<16xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    // expected-note @+1 {{the earlier op}}
    %t = gpu.launch_func async [%s] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    // expected-error @+1 {{race on argument #0: 'memref.store' and the earlier 'gpu.launch_func' are not ordered}}
    memref.store %x, %e[%c0] : memref<16xf32>
    gpu.wait [%t]
    return
  }
  func.func @store_to_noalias(%d: memref<16xf32> {llvm.noalias}, %e: memref<16xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    memref.store %x, %e[%c0] : memref<16xf32>
    gpu.wait [%t]
    return
  }
}

// -----

// Tests that work on two streams that write one buffer races unless a join
// orders them, and that a subview in the kernel and a view on the host both
// resolve to the buffer they view.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write_view(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      %v = memref.subview %x[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
      memref.store %z, %v[%i] : memref<8xf32, strided<[1]>>
      gpu.return
    }
    gpu.func @atomic(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 1.0 : f32
      %r = memref.atomic_rmw addf %z, %x[%i] : (f32, memref<16xf32>) -> f32
      gpu.return
    }
  }
  func.func @two_streams(%d: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    // expected-note @+1 {{the earlier op}}
    %a = gpu.launch_func async [%s1] @k::@write_view blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    // expected-error @+1 {{race on argument #0: 'gpu.launch_func' and the earlier 'gpu.launch_func' are not ordered}}
    %b = gpu.launch_func async [%s2] @k::@atomic blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%a, %b]
    return
  }
  func.func @joined_streams(%d: memref<16xf32>, %h: memref<4xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    %a = gpu.launch_func async [%s1] @k::@write_view blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    %c = gpu.memcpy async [%s2] %h, %h : memref<4xf32>, memref<4xf32>
    %j = gpu.wait async [%a, %c]
    %b = gpu.launch_func async [%j] @k::@atomic blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%a, %c, %b]
    %v = memref.subview %d[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
    %w = memref.cast %h : memref<4xf32> to memref<?xf32>
    %x = memref.load %v[%c1] : memref<4xf32, strided<[1], offset: 4>>
    memref.store %x, %w[%c1] : memref<?xf32>
    return
  }
}

// -----

// Tests that a memref carried through scf.for iter_args holds the buffer
// yielded by the previous iteration, and the loop result the buffer of the
// last one (the initial buffer when the loop does not run): freeing the
// carried-in buffer and yielding the new one is right, freeing the new one
// and yielding it (next function) uses a freed buffer in the next iteration.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @rw(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      memref.store %v, %b[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @carried_buffer(%h: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s0 = gpu.wait async
    %a0, %t0 = gpu.alloc async [%s0] () : memref<16xf32>
    gpu.wait [%t0]
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a0) -> (memref<16xf32>) {
      %s = gpu.wait async
      %b, %tb = gpu.alloc async [%s] () : memref<16xf32>
      %tc = gpu.memcpy async [%tb] %b, %h : memref<16xf32>, memref<16xf32>
      %tl = gpu.launch_func async [%tc] @k::@rw blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>, %b : memref<16xf32>)
      %td = gpu.dealloc async [%tl] %x : memref<16xf32>
      gpu.wait [%td]
      scf.yield %b : memref<16xf32>
    }
    %s1 = gpu.wait async
    %t1 = gpu.dealloc async [%s1] %r : memref<16xf32>
    gpu.wait [%t1]
    return
  }
  func.func @carried_freed_buffer(%h: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s0 = gpu.wait async
    %a0, %t0 = gpu.alloc async [%s0] () : memref<16xf32>
    gpu.wait [%t0]
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a0) -> (memref<16xf32>) {
      %s = gpu.wait async
      %b, %tb = gpu.alloc async [%s] () : memref<16xf32>
      %tc = gpu.memcpy async [%tb] %b, %h : memref<16xf32>, memref<16xf32>
      // expected-error @+1 {{uses a buffer after its 'gpu.dealloc'}}
      %tl = gpu.launch_func async [%tc] @k::@rw blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>, %b : memref<16xf32>)
      // expected-note @+1 {{the dealloc}}
      %td = gpu.dealloc async [%tl] %b : memref<16xf32>
      gpu.wait [%td]
      scf.yield %b : memref<16xf32>
    }
    %s1 = gpu.wait async
    %t1 = gpu.dealloc async [%s1] %a0 : memref<16xf32>
    gpu.wait [%t1]
    return
  }
}

// -----

// Tests that a buffer carried through scf.while follows the yields, and a
// view of the carried value the buffer it holds: a kernel left running on one
// stream across iterations writes %y while the before region loads a view of
// %x, which is right while each keeps its buffer, and races once the after
// region swaps them (next function).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @while_kept(%a: memref<16xf32> {llvm.noalias}, %b: memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %s = gpu.wait async
    %r:2 = scf.while (%x = %a, %y = %b) : (memref<16xf32>, memref<16xf32>) -> (memref<16xf32>, memref<16xf32>) {
      %xv = memref.cast %x : memref<16xf32> to memref<?xf32>
      %v = memref.load %xv[%c0] : memref<?xf32>
      %go = arith.cmpf ogt, %v, %zero : f32
      scf.condition(%go) %x, %y : memref<16xf32>, memref<16xf32>
    } do {
    ^bb0(%x: memref<16xf32>, %y: memref<16xf32>):
      // expected-note @+1 {{the work enqueued after the token}}
      %k = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<16xf32>)
      scf.yield %x, %y : memref<16xf32>, memref<16xf32>
    }
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%s]
    return
  }
  func.func @while_swapped(%a: memref<16xf32> {llvm.noalias}, %b: memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %s = gpu.wait async
    %r:2 = scf.while (%x = %a, %y = %b) : (memref<16xf32>, memref<16xf32>) -> (memref<16xf32>, memref<16xf32>) {
      %xv = memref.cast %x : memref<16xf32> to memref<?xf32>
      // expected-error @+1 {{race on argument #1: 'memref.load' and the earlier 'gpu.launch_func' are not ordered}}
      %v = memref.load %xv[%c0] : memref<?xf32>
      %go = arith.cmpf ogt, %v, %zero : f32
      scf.condition(%go) %x, %y : memref<16xf32>, memref<16xf32>
    } do {
    ^bb0(%x: memref<16xf32>, %y: memref<16xf32>):
      // expected-note @+2 {{the work enqueued after the token}}
      // expected-note @+1 {{the earlier op}}
      %k = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<16xf32>)
      scf.yield %y, %x : memref<16xf32>, memref<16xf32>
    }
    // expected-warning @+1 {{relies on the token being its stream}}
    gpu.wait [%s]
    return
  }
}

// -----

// Tests that scf.if and scf.execute_region results hold the buffer their
// taken branch yields: a kernel writing the chosen buffer runs beside a copy
// into a third buffer, and races with a copy into one of the buffers the
// branch may choose (next function).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @chosen_apart(%h: memref<16xf32> {llvm.noalias}, %c: i1) {
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %a, %ta = gpu.alloc async [%s] () : memref<16xf32>
    %b, %tb = gpu.alloc async [%ta] () : memref<16xf32>
    %e, %te = gpu.alloc async [%tb] () : memref<16xf32>
    gpu.wait [%te]
    %m = scf.if %c -> (memref<16xf32>) {
      scf.yield %a : memref<16xf32>
    } else {
      %v = scf.execute_region -> memref<16xf32> {
        %w = memref.cast %b : memref<16xf32> to memref<16xf32>
        scf.yield %w : memref<16xf32>
      }
      scf.yield %v : memref<16xf32>
    }
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    %k = gpu.launch_func async [%s1] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
    %cp = gpu.memcpy async [%s2] %e, %h : memref<16xf32>, memref<16xf32>
    gpu.wait [%k, %cp]
    return
  }
  func.func @chosen_together(%h: memref<16xf32> {llvm.noalias}, %c: i1) {
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %a, %ta = gpu.alloc async [%s] () : memref<16xf32>
    %b, %tb = gpu.alloc async [%ta] () : memref<16xf32>
    gpu.wait [%tb]
    %m = scf.if %c -> (memref<16xf32>) {
      scf.yield %a : memref<16xf32>
    } else {
      %v = scf.execute_region -> memref<16xf32> {
        %w = memref.cast %b : memref<16xf32> to memref<16xf32>
        scf.yield %w : memref<16xf32>
      }
      scf.yield %v : memref<16xf32>
    }
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    // expected-note @+1 {{the earlier op}}
    %k = gpu.launch_func async [%s1] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
    // expected-error @+1 {{race on the buffer of 'gpu.alloc': 'gpu.memcpy' and the earlier 'gpu.launch_func' are not ordered}}
    %cp = gpu.memcpy async [%s2] %b, %h : memref<16xf32>, memref<16xf32>
    gpu.wait [%k, %cp]
    return
  }
}

// -----

// Tests that an arith.select of two arguments is one of them: two copies that
// read it and another argument into buffers of their own run beside each
// other; a copy into an argument the select may be, or beside a write to an
// argument without noalias, races with a read of it (second and third
// functions); a select that may be an allocation meets a copy into it (last
// function).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @selected_apart(%a: memref<16xf32> {llvm.noalias}, %b: memref<16xf32> {llvm.noalias}, %c: i1) {
    %s = gpu.wait async
    %d1, %t1 = gpu.alloc async [%s] () : memref<16xf32>
    %d2, %t2 = gpu.alloc async [%t1] () : memref<16xf32>
    gpu.wait [%t2]
    %m = arith.select %c, %a, %b : memref<16xf32>
    %v = memref.subview %m[0] [16] [1] : memref<16xf32> to memref<16xf32, strided<[1]>>
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    %cp1 = gpu.memcpy async [%s1] %d1, %v : memref<16xf32>, memref<16xf32, strided<[1]>>
    %cp2 = gpu.memcpy async [%s2] %d2, %b : memref<16xf32>, memref<16xf32>
    gpu.wait [%cp1, %cp2]
    return
  }
  func.func @selected_written(%a: memref<16xf32> {llvm.noalias}, %b: memref<16xf32> {llvm.noalias}, %c: i1) {
    %s = gpu.wait async
    %d1, %t1 = gpu.alloc async [%s] () : memref<16xf32>
    %d2, %t2 = gpu.alloc async [%t1] () : memref<16xf32>
    gpu.wait [%t2]
    %m = arith.select %c, %a, %b : memref<16xf32>
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    // expected-note @+1 {{the earlier op}}
    %cp1 = gpu.memcpy async [%s1] %d1, %m : memref<16xf32>, memref<16xf32>
    // expected-error @+1 {{race on the buffer of 'arith.select': 'gpu.memcpy' and the earlier 'gpu.memcpy' are not ordered}}
    %cp2 = gpu.memcpy async [%s2] %b, %d2 : memref<16xf32>, memref<16xf32>
    gpu.wait [%cp1, %cp2]
    return
  }
  func.func @selected_shared(%a: memref<16xf32>, %b: memref<16xf32> {llvm.noalias}, %e: memref<16xf32>, %c: i1) {
    %s = gpu.wait async
    %d1, %t1 = gpu.alloc async [%s] () : memref<16xf32>
    %d2, %t2 = gpu.alloc async [%t1] () : memref<16xf32>
    gpu.wait [%t2]
    %m = arith.select %c, %a, %b : memref<16xf32>
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    // expected-note @+1 {{the earlier op}}
    %cp1 = gpu.memcpy async [%s1] %d1, %m : memref<16xf32>, memref<16xf32>
    // expected-error @+1 {{race on the buffer of 'arith.select': 'gpu.memcpy' and the earlier 'gpu.memcpy' are not ordered}}
    %cp2 = gpu.memcpy async [%s2] %e, %d2 : memref<16xf32>, memref<16xf32>
    gpu.wait [%cp1, %cp2]
    return
  }
  func.func @selected_allocation(%a: memref<16xf32> {llvm.noalias}, %h: memref<16xf32> {llvm.noalias}, %c: i1) {
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %d1, %t1 = gpu.alloc async [%s] () : memref<16xf32>
    gpu.wait [%t1]
    %m = arith.select %c, %a, %d1 : memref<16xf32>
    %s1 = gpu.wait async
    %s2 = gpu.wait async
    // expected-note @+1 {{the earlier op}}
    %k = gpu.launch_func async [%s1] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
    // expected-error @+1 {{race on the buffer of 'arith.select': 'gpu.memcpy' and the earlier 'gpu.launch_func' are not ordered}}
    %cp = gpu.memcpy async [%s2] %d1, %h : memref<16xf32>, memref<16xf32>
    gpu.wait [%k, %cp]
    return
  }
}

// -----

// Tests that every case of an scf.index_switch runs in some trace: a case
// that leaves its kernel unwaited leaves it running at the return and its
// stream alive; with every case waiting (next function) all is done.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @switch_all_wait(%d: memref<16xf32>, %i: index) {
    %c1 = arith.constant 1 : index
    scf.index_switch %i
    case 0 {
      %s = gpu.wait async
      %k = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      gpu.wait [%k]
      scf.yield
    }
    default {
      scf.yield
    }
    return
  }
  func.func @switch_case_unwaited(%d: memref<16xf32>, %i: index) {
    %c1 = arith.constant 1 : index
    scf.index_switch %i
    case 0 {
      %s = gpu.wait async
      %k = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      gpu.wait [%k]
      scf.yield
    }
    case 3 {
      // expected-error @+1 {{creates a stream that is still alive at the return}}
      %s = gpu.wait async
      // expected-error @+1 {{may still be running at the return}}
      %k = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      scf.yield
    }
    default {
      scf.yield
    }
    // expected-note @+2 {{the return}}
    // expected-note @+1 {{the stream is still alive at this return}}
    return
  }
}

// -----

// Tests that gpu.host_register and gpu.host_unregister touch only their
// operand's buffer: unpinning an unrelated buffer while a kernel is in flight
// is fine, unpinning the host source of a copy in flight (next function) is a
// race.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @unpin_other(%h: memref<16xf32> {llvm.noalias}, %hb: memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %u = memref.cast %h : memref<16xf32> to memref<*xf32>
    gpu.host_register %u : memref<*xf32>
    %s = gpu.wait async
    %d, %ta = gpu.alloc async [%s] () : memref<16xf32>
    %e, %tb = gpu.alloc async [%ta] () : memref<16xf32>
    %tc = gpu.memcpy async [%tb] %d, %h : memref<16xf32>, memref<16xf32>
    gpu.wait [%tc]
    %s2 = gpu.wait async
    %k = gpu.launch_func async [%s2] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%e : memref<16xf32>)
    %ub = memref.cast %hb : memref<16xf32> to memref<*xf32>
    gpu.host_unregister %ub : memref<*xf32>
    gpu.wait [%k]
    return
  }
  func.func @unpin_in_flight(%h: memref<16xf32> {llvm.noalias}) {
    %u = memref.cast %h : memref<16xf32> to memref<*xf32>
    gpu.host_register %u : memref<*xf32>
    %s = gpu.wait async
    %d, %ta = gpu.alloc async [%s] () : memref<16xf32>
    // expected-note @+1 {{the earlier op}}
    %tc = gpu.memcpy async [%ta] %d, %h : memref<16xf32>, memref<16xf32>
    // expected-error @+1 {{race on argument #0: 'gpu.host_unregister' and the earlier 'gpu.memcpy' are not ordered}}
    gpu.host_unregister %u : memref<*xf32>
    gpu.wait [%tc]
    return
  }
}

// -----

// Tests that a kernel's summary comes from its parameters, however many
// workgroup attributions follow them among its entry block's arguments: the
// kernel writes its second parameter, so a host load of that buffer races
// with it, and after a wait (next function) it does not.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @w(%a: memref<16xf32>, %b: memref<16xf32>)
        workgroup(%s0: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s1: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s2: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s3: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s4: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s5: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s6: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s7: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s8: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s9: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s10: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s11: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s12: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s13: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s14: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s15: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s16: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s17: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s18: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s19: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s20: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s21: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s22: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s23: memref<4xf32, #gpu.address_space<workgroup>>)
        kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      memref.store %v, %b[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @attributions_race(%x: memref<16xf32> {llvm.noalias}, %y: memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    // expected-note @+1 {{the earlier op}}
    %t = gpu.launch_func async [%s] @k::@w blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>, %y : memref<16xf32>)
    // expected-error @+1 {{race on argument #1: 'memref.load' and the earlier 'gpu.launch_func' are not ordered}}
    %v = memref.load %y[%c0] : memref<16xf32>
    gpu.wait [%t]
    return %v : f32
  }
  func.func @attributions_waited(%x: memref<16xf32> {llvm.noalias}, %y: memref<16xf32> {llvm.noalias}) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @k::@w blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>, %y : memref<16xf32>)
    gpu.wait [%t]
    %v = memref.load %y[%c0] : memref<16xf32>
    return %v : f32
  }
}

// -----

// Tests that a host store through a pointer may write any buffer: it races
// with a copy still reading the buffer the pointer came from; after the wait
// (next function) it does not.
module attributes {gpu.container_module} {
  func.func @pointer_store_race(%h: memref<16xf32> {llvm.noalias}, %v: f32) {
    %s = gpu.wait async
    %d, %ta = gpu.alloc async [%s] () : memref<16xf32>
    // expected-note @+1 {{the earlier op}}
    %tc = gpu.memcpy async [%ta] %d, %h : memref<16xf32>, memref<16xf32>
    %address = memref.extract_aligned_pointer_as_index %h : memref<16xf32> -> index
    %integer = arith.index_cast %address : index to i64
    %pointer = llvm.inttoptr %integer : i64 to !llvm.ptr
    // expected-error @+1 {{race on}}
    llvm.store %v, %pointer : f32, !llvm.ptr
    %tf = gpu.dealloc async [%tc] %d : memref<16xf32>
    gpu.wait [%tf]
    return
  }
  func.func @pointer_store_waited(%h: memref<16xf32> {llvm.noalias}, %v: f32) {
    %s = gpu.wait async
    %d, %ta = gpu.alloc async [%s] () : memref<16xf32>
    %tc = gpu.memcpy async [%ta] %d, %h : memref<16xf32>, memref<16xf32>
    %tf = gpu.dealloc async [%tc] %d : memref<16xf32>
    gpu.wait [%tf]
    %address = memref.extract_aligned_pointer_as_index %h : memref<16xf32> -> index
    %integer = arith.index_cast %address : index to i64
    %pointer = llvm.inttoptr %integer : i64 to !llvm.ptr
    llvm.store %v, %pointer : f32, !llvm.ptr
    return
  }
}

// -----

// Tests that a copy through an identity-layout alias of a row (how
// --convert-vyre-to-gpu copies a contiguous view with an offset) is taken as
// touching the row's array: a host store into the array races with it, a
// store into another buffer does not.
!desc = !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
func.func @alias_of_row(%h: memref<4x16xf32> {llvm.noalias},
                        %e: memref<16xf32> {llvm.noalias}, %i: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
  %aligned = memref.extract_aligned_pointer_as_index %row : memref<16xf32, strided<[1], offset: ?>> -> index
  %base, %offset, %size, %stride = memref.extract_strided_metadata %row : memref<16xf32, strided<[1], offset: ?>> -> memref<f32>, index, index, index
  %bytes = arith.muli %offset, %c4 : index
  %address = arith.addi %aligned, %bytes : index
  %address64 = arith.index_cast %address : index to i64
  %pointer = llvm.inttoptr %address64 : i64 to !llvm.ptr
  %zero = llvm.mlir.constant(0 : i64) : i64
  %sixteen = llvm.mlir.constant(16 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %d0 = llvm.mlir.poison : !desc
  %d1 = llvm.insertvalue %pointer, %d0[0] : !desc
  %d2 = llvm.insertvalue %pointer, %d1[1] : !desc
  %d3 = llvm.insertvalue %zero, %d2[2] : !desc
  %d4 = llvm.insertvalue %sixteen, %d3[3, 0] : !desc
  %d5 = llvm.insertvalue %one, %d4[4, 0] : !desc
  %alias = builtin.unrealized_conversion_cast %d5 : !desc to memref<16xf32>
  %s = gpu.wait async
  %dev, %a = gpu.alloc async [%s] () : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %t = gpu.memcpy async [%a] %alias, %dev : memref<16xf32>, memref<16xf32>
  memref.store %x, %e[%c0] : memref<16xf32>
  // expected-error @+1 {{race on argument #0: 'memref.store' and the earlier 'gpu.memcpy' are not ordered}}
  memref.store %x, %h[%c0, %c0] : memref<4x16xf32>
  %f = gpu.dealloc async [%t] %dev : memref<16xf32>
  gpu.wait [%f]
  return
}

// -----

// Tests that the host may read a gpu.alloc buffer that is host_shared once
// the work writing it is done (next to the refusal of one that is not, in
// vyre-verify-gpu-streams-invalid.mlir).
module attributes {gpu.container_module} {
  func.func @host_reads_shared_memory(%in: memref<16xf32>, %out: memref<16xf32>) {
    %c0 = arith.constant 0 : index
    // Synchronous: gpu-to-llvm lowers no other host_shared allocation.
    %a = gpu.alloc host_shared () : memref<16xf32>
    %t1 = gpu.wait async
    %t2 = gpu.memcpy async [%t1] %a, %in : memref<16xf32>, memref<16xf32>
    gpu.wait [%t2]
    %v = memref.load %a[%c0] : memref<16xf32>
    memref.store %v, %out[%c0] : memref<16xf32>
    %t3 = gpu.wait async
    %t4 = gpu.dealloc async [%t3] %a : memref<16xf32>
    gpu.wait [%t4]
    return
  }
}

// -----

// Tests that a program that takes a token for its stream is warned about:
// the blocking wait on %t covers the launch only because gpu-to-llvm makes
// %t its stream; canonicalize would erase it. Waiting on the launch's own
// token is right under both readings, and is not warned about.
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
    // expected-warning @+1 {{waits on a token and expects the work enqueued after it on its stream ('gpu.launch_func') to be done: it relies on the token being its stream, which upstream's canonicalize does not keep (a token stands for the op that made it); wait on the token of the last op instead}}
    gpu.wait [%t]
    return
  }
  func.func @waits_on_the_last_token(%d: memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    %k = gpu.launch_func async [%t] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%k]
    return
  }
}

// -----

// Tests that kernels are not taken for host code: a kernel that holds a
// region op (gpu.all_reduce, scf.if) and a CPU helper of several blocks pass,
// while the host function beside them is still checked (its copy back, on a
// stream of its own, races with the copy in and the kernel).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @sum(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      %s = gpu.all_reduce add %v uniform {} : (f32) -> (f32)
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %i, %c0 : index
      scf.if %first {
        memref.store %s, %x[%i] : memref<16xf32>
      }
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
  func.func @main(%h: memref<16xf32> {llvm.noalias}, %d: memref<16xf32> {llvm.noalias}, %o: memref<16xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    // expected-note @+1 {{the earlier op}}
    %t = gpu.memcpy async [%s] %d, %h : memref<16xf32>, memref<16xf32>
    // expected-note @+1 {{the earlier op}}
    %k = gpu.launch_func async [%t] @k::@sum blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    %s2 = gpu.wait async
    // expected-error @+2 {{race on argument #1: 'gpu.memcpy' and the earlier 'gpu.launch_func' are not ordered}}
    // expected-error @+1 {{race on argument #1: 'gpu.memcpy' and the earlier 'gpu.memcpy' are not ordered}}
    %back = gpu.memcpy async [%s2] %o, %d : memref<16xf32>, memref<16xf32>
    gpu.wait [%k, %back]
    return
  }
}
