// RUN: vyre-opt %s --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" --test-vyre-stream-balance --verify-diagnostics -o /dev/null

// Tests that streams and events paired on every path are accepted: a join in
// the block of its dependencies, a loop body that destroys what it creates.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func @paired(%h: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %d, %t = gpu.alloc async [%s] () : memref<16xf32>
    gpu.wait [%t]
    scf.for %i = %c0 to %n step %c1 {
      %a = gpu.wait async
      %c = gpu.memcpy async [%a] %d, %h : memref<16xf32>, memref<16xf32>
      %b = gpu.wait async
      %l = gpu.launch_func async [%b] @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<16xf32>)
      %j = gpu.wait async [%c, %c, %l, %l]
      %m = gpu.launch_func async [%j] @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      gpu.wait [%c, %l, %m]
    }
    return
  }
}

// -----

// Tests that a token made before a loop and joined inside it is found: the
// events are created once, before the loop, and destroyed in every iteration
// (so a loop that runs no iteration leaks them, and one that runs twice
// destroys them twice).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  // expected-error @+1 {{a block is reached with 1 or 1 live streams and 2 or 0 live events, depending on the path: creates and destroys are unpaired on some path}}
  func.func @event_outside_loop(%h: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %d, %t = gpu.alloc async [%s] () : memref<16xf32>
    scf.for %i = %c0 to %n step %c1 {
      %j = gpu.wait async [%t, %t]
      %c = gpu.memcpy async [%j] %d, %h : memref<16xf32>, memref<16xf32>
      gpu.wait [%c]
    }
    gpu.wait [%t]
    return
  }
}

// -----

// Tests that a blocking wait naming one stream twice is found: it destroys
// the stream twice.
module attributes {gpu.container_module} {
  func.func @destroyed_twice(%h: memref<16xf32>) {
    %s = gpu.wait async
    %d, %t = gpu.alloc async [%s] () : memref<16xf32>
    %c = gpu.memcpy async [%t] %d, %h : memref<16xf32>, memref<16xf32>
    gpu.wait [%t, %c]
    // expected-error @+1 {{returns with -1 streams and 0 events created and not destroyed on some path}}
    return
  }
}

// -----

// Tests that a join whose dependencies' streams are never destroyed is
// found: only the joined stream is.
module attributes {gpu.container_module} {
  func.func @leak_on_join(%h: memref<16xf32>) {
    %s = gpu.wait async
    %d, %t = gpu.alloc async [%s] () : memref<16xf32>
    %j = gpu.wait async [%t, %t]
    %c = gpu.memcpy async [%j] %d, %h : memref<16xf32>, memref<16xf32>
    gpu.wait [%c]
    // expected-error @+1 {{returns with 1 streams and 0 events created and not destroyed on some path}}
    return
  }
}

// -----

// Tests that a branch that destroys a stream the other branch does not is
// found where the branches meet.
module attributes {gpu.container_module} {
  // expected-error @+1 {{a block is reached with 1 or 0 live streams and 0 or 0 live events, depending on the path: creates and destroys are unpaired on some path}}
  func.func @one_branch_destroys(%h: memref<16xf32>, %p: i1) {
    %s = gpu.wait async
    %d, %t = gpu.alloc async [%s] () : memref<16xf32>
    scf.if %p {
      gpu.wait [%t]
    }
    return
  }
}
