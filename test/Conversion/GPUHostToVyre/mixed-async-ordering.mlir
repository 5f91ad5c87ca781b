// RUN: vyre-opt %s --split-input-file --vyre-gpu-async-pipeline="verify=true" | FileCheck %s

// How the drop-in orders vyre's work with the explicit work of a function
// that mixes gpu ops written with tokens and synchronous ones, checked by
// both referees (verify=true).

// Tests that an explicit launch on a buffer vyre allocates is issued after
// the allocation: the host waits for it.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<1024xf32>) kernel { gpu.return }
  }
  // CHECK-LABEL: func.func @explicit_use_of_imported_alloc
  func.func @explicit_use_of_imported_alloc(%o: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    // CHECK: %[[D:.+]], %[[A:.+]] = gpu.alloc async
    %d = gpu.alloc () : memref<1024xf32>
    %s = gpu.wait async
    // CHECK: gpu.wait [%[[A]]]
    // CHECK-NEXT: gpu.launch_func async {{.+}} args(%[[D]]
    %k = gpu.launch_func async [%s] @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<1024xf32>)
    gpu.wait [%k]
    gpu.memcpy %o, %d : memref<1024xf32>, memref<1024xf32>
    gpu.dealloc %d : memref<1024xf32>
    return
  }
}

// -----

// Tests that a call passing a buffer explicit work in flight writes waits
// for that work (its callee's synchronous kernel ran after it, as written).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<1024xf32>) kernel { gpu.return }
  }
  func.func @g(%d: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<1024xf32>)
    return
  }
  // CHECK-LABEL: func.func @call_after_explicit_work
  func.func @call_after_explicit_work(%h: memref<1024xf32>, %o: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %d = gpu.alloc () : memref<1024xf32>
    gpu.memcpy %d, %h : memref<1024xf32>, memref<1024xf32>
    %s = gpu.wait async
    // CHECK: %[[T:.+]] = gpu.launch_func async
    %t = gpu.launch_func async [%s] @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<1024xf32>)
    // CHECK-NEXT: %[[J:.+]] = gpu.wait async [%[[T]], %[[T]]]
    // CHECK-NEXT: gpu.wait [%[[J]]]
    // CHECK-NEXT: call @g
    func.call @g(%d) : (memref<1024xf32>) -> ()
    gpu.wait [%t]
    gpu.memcpy %o, %d : memref<1024xf32>, memref<1024xf32>
    gpu.dealloc %d : memref<1024xf32>
    return
  }
}

// -----

// Tests that two kernels spinning until the other starts, launched by hand
// on streams of their own, keep them with synchronous copies around them,
// and that the gpu-level referee takes their race on the flags as meant.
// The copy between the launches writes an argument marked llvm.noalias:
// it cannot touch the flags, so the host does not wait for the first
// kernel before launching the second (which would hang).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @spin(%flags: memref<2xi32>, %me: index, %other: index) kernel { gpu.return }
  }
  // CHECK-LABEL: func.func @spin_around_copies
  func.func @spin_around_copies(%flags: memref<2xi32>, %h: memref<64xf32>, %o: memref<64xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = gpu.alloc () : memref<64xf32>
    gpu.memcpy %d, %h : memref<64xf32>, memref<64xf32>
    // CHECK: gpu.launch_func async [%{{.+}}] @k::@spin
    %s0 = gpu.wait async
    %a = gpu.launch_func async [%s0] @k::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>, %c0 : index, %c1 : index)
    // CHECK-NOT: gpu.wait [
    // CHECK: gpu.launch_func async [%{{.+}}] @k::@spin
    gpu.memcpy %o, %d : memref<64xf32>, memref<64xf32>
    %s1 = gpu.wait async
    %b = gpu.launch_func async [%s1] @k::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>, %c1 : index, %c0 : index)
    gpu.wait [%a]
    gpu.wait [%b]
    gpu.dealloc %d : memref<64xf32>
    return
  }
}

// -----

// Tests the same function without llvm.noalias: the copy's target may be
// the flags the first kernel writes, so, as the program ordered them, the
// copy waits for that kernel, and the host waits before it (with these
// kernels, a hang: the second is not launched yet). Marking the argument
// llvm.noalias, or deducing it from the calls (--vyre-deduce-noalias),
// avoids it.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @spin(%flags: memref<2xi32>, %me: index, %other: index) kernel { gpu.return }
  }
  // CHECK-LABEL: func.func @spin_around_aliasing_copy
  func.func @spin_around_aliasing_copy(%flags: memref<2xi32>, %h: memref<64xf32>, %o: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = gpu.alloc () : memref<64xf32>
    gpu.memcpy %d, %h : memref<64xf32>, memref<64xf32>
    // CHECK: %[[A:.+]] = gpu.launch_func async [%{{.+}}] @k::@spin
    %s0 = gpu.wait async
    %a = gpu.launch_func async [%s0] @k::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>, %c0 : index, %c1 : index)
    // CHECK-NEXT: %[[J:.+]] = gpu.wait async [%[[A]], %[[A]]]
    // CHECK-NEXT: gpu.wait [%[[J]]]
    gpu.memcpy %o, %d : memref<64xf32>, memref<64xf32>
    %s1 = gpu.wait async
    %b = gpu.launch_func async [%s1] @k::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>, %c1 : index, %c0 : index)
    gpu.wait [%a]
    gpu.wait [%b]
    gpu.dealloc %d : memref<64xf32>
    return
  }
}

// -----

// Tests that where the function is not imported (a gpu.memset), a
// host_shared allocation stays synchronous (gpu-to-llvm lowers no other),
// and the memset, on a stream of its own, waits for the explicit copy into
// the same buffer.
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @fallback
  func.func @fallback(%h: memref<64xf32>) {
    %zero = arith.constant 0.0 : f32
    // CHECK: gpu.alloc host_shared () : memref<64xf32>
    %m = gpu.alloc host_shared () : memref<64xf32>
    %d = gpu.alloc () : memref<64xf32>
    %s = gpu.wait async
    // CHECK: %[[C:.+]] = gpu.memcpy async
    %c = gpu.memcpy async [%s] %d, %h : memref<64xf32>, memref<64xf32>
    // CHECK-NEXT: %[[J:.+]] = gpu.wait async [%[[C]], %[[C]]]
    // CHECK-NEXT: gpu.wait [%[[J]]]
    // CHECK-NEXT: %[[S:.+]] = gpu.wait async
    // CHECK-NEXT: gpu.memset async [%[[S]]]
    gpu.memset %d, %zero : memref<64xf32>, f32
    gpu.wait [%c]
    gpu.dealloc %d : memref<64xf32>
    gpu.dealloc %m : memref<64xf32>
    return
  }
}

// -----

// Tests that in a function left as written, explicit work in flight inside
// a loop's body is waited for before the body's synchronous memset on the
// same buffer, which then runs on a stream of its own.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<64xf32>
      memref.store %v, %x[%i] : memref<64xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @explicit_work_in_loop
  func.func @explicit_work_in_loop(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %d = gpu.alloc () : memref<64xf32>
    // CHECK: scf.for
    scf.for %i = %c0 to %n step %c1 {
      %s = gpu.wait async
      // CHECK: %[[K:.+]] = gpu.launch_func async
      %k = gpu.launch_func async [%s] @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<64xf32>)
      // CHECK-NEXT: %[[J:.+]] = gpu.wait async [%[[K]], %[[K]]]
      // CHECK-NEXT: gpu.wait [%[[J]]]
      // CHECK-NEXT: %[[S:.+]] = gpu.wait async
      // CHECK-NEXT: gpu.memset async [%[[S]]]
      gpu.memset %d, %zero : memref<64xf32>, f32
      gpu.wait [%k]
    }
    gpu.dealloc %d : memref<64xf32>
    return
  }
}

// -----

// Tests that a synchronous function left as written (a gpu.memset) with a
// host_shared allocation does not get upstream's pass, which would make the
// allocation asynchronous (gpu-to-llvm lowers no such form): its other
// synchronous ops run on streams of their own.
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @host_shared_not_imported
  func.func @host_shared_not_imported() -> f32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    // CHECK: gpu.alloc host_shared () : memref<64xf32>
    %m = gpu.alloc host_shared () : memref<64xf32>
    // CHECK-NEXT: %[[S:.+]] = gpu.wait async
    // CHECK-NEXT: %[[M:.+]] = gpu.memset async [%[[S]]]
    // CHECK-NEXT: gpu.wait [%[[M]]]
    gpu.memset %m, %zero : memref<64xf32>, f32
    %v = memref.load %m[%c0] : memref<64xf32>
    gpu.dealloc %m : memref<64xf32>
    return %v : f32
  }
}
