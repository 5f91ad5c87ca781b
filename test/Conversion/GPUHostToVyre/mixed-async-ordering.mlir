// RUN: vyre-opt %s --split-input-file --vyre-gpu-async-pipeline="verify=true" | FileCheck %s

// How the drop-in orders vyre's work with the explicit work of a function
// that mixes gpu ops written with tokens and synchronous ones, checked by
// both referees (verify=true). Where the host waits for one explicit
// token, it synchronizes that token's stream (the import's join of the token
// with itself is lowered so), which the author goes on using.

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
    // CHECK-NEXT: %[[P:.+]] = builtin.unrealized_conversion_cast %[[T]] : !gpu.async.token to !llvm.ptr
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[P]])
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
    // CHECK-NEXT: %[[P:.+]] = builtin.unrealized_conversion_cast %[[A]] : !gpu.async.token to !llvm.ptr
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[P]])
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
// the synchronous ops run on one stream, the host waits for the allocation
// before the explicit copy into the buffer is issued, and the memset, on a
// new stream, waits for that copy.
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @fallback
  func.func @fallback(%h: memref<64xf32>) {
    %zero = arith.constant 0.0 : f32
    // CHECK: gpu.alloc host_shared () : memref<64xf32>
    // CHECK-NEXT: %[[S0:.+]] = gpu.wait async
    // CHECK-NEXT: %{{.+}}, %[[A:.+]] = gpu.alloc async [%[[S0]]]
    %m = gpu.alloc host_shared () : memref<64xf32>
    %d = gpu.alloc () : memref<64xf32>
    // CHECK-NEXT: %[[E:.+]] = gpu.wait async
    // CHECK-NEXT: gpu.wait [%[[A]]]
    %s = gpu.wait async
    // CHECK-NEXT: %[[C:.+]] = gpu.memcpy async [%[[E]]]
    %c = gpu.memcpy async [%s] %d, %h : memref<64xf32>, memref<64xf32>
    // CHECK-NEXT: %[[P:.+]] = builtin.unrealized_conversion_cast %[[C]] : !gpu.async.token to !llvm.ptr
    // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[P]])
    // CHECK-NEXT: %[[S:.+]] = gpu.wait async
    // CHECK-NEXT: %[[M:.+]] = gpu.memset async [%[[S]]]
    // CHECK-NEXT: gpu.wait [%[[C]]]
    // CHECK-NEXT: %[[F:.+]] = gpu.dealloc async [%[[M]]]
    // CHECK-NEXT: %[[G:.+]] = gpu.dealloc async [%[[F]]]
    // CHECK-NEXT: gpu.wait [%[[G]]]
    // CHECK-NEXT: return
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
// same buffer, which then runs on a stream of the body's, waited for at the
// body's end.
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
      // CHECK-NEXT: %[[P:.+]] = builtin.unrealized_conversion_cast %[[K]] : !gpu.async.token to !llvm.ptr
      // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[P]])
      // CHECK-NEXT: %[[S:.+]] = gpu.wait async
      // CHECK-NEXT: %[[M:.+]] = gpu.memset async [%[[S]]]
      // CHECK-NEXT: gpu.wait [%[[K]]]
      // CHECK-NEXT: gpu.wait [%[[M]]]
      // CHECK-NEXT: }
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
// synchronous ops run on one stream, which the host waits for before it
// reads the buffer, and a new one after.
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
    // CHECK-NEXT: memref.load
    // CHECK-NEXT: %[[S1:.+]] = gpu.wait async
    // CHECK-NEXT: %[[F:.+]] = gpu.dealloc async [%[[S1]]]
    // CHECK-NEXT: gpu.wait [%[[F]]]
    gpu.memset %m, %zero : memref<64xf32>, f32
    %v = memref.load %m[%c0] : memref<64xf32>
    gpu.dealloc %m : memref<64xf32>
    return %v : f32
  }
}

// -----

// Tests that in a function left as written, the host waits for the stream
// of its synchronous ops only before an op that may need their work: not
// before a store to a host buffer of its own, a pure op, or a read of the
// copy's source, but before a write to that source, and before a read of
// what a copy wrote.
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @chain_waits_where_needed
  func.func @chain_waits_where_needed(%h: memref<64xf32>, %x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %local = memref.alloc () : memref<64xf32>
    %d = gpu.alloc () : memref<64xf32>
    %s = gpu.wait async
    %e = gpu.memset async [%s] %d, %zero : memref<64xf32>, f32
    gpu.wait [%e]
    // The two device buffers, freed together, are one allocation, made
    // where the first was.
    // CHECK:      %[[LOCAL:.+]] = memref.alloc
    // CHECK:      %[[BYTES:[^,]+]], %{{.+}} = gpu.alloc async [%{{.+}}] () : memref<512xi8>
    // CHECK:      %[[D2:.+]] = memref.view %[[BYTES]]
    // CHECK:      gpu.memset async
    // CHECK-NEXT: gpu.wait
    // CHECK-NEXT: %[[S:.+]] = gpu.wait async
    // CHECK-NEXT: %[[C:.+]] = gpu.memcpy async [%[[S]]] %[[D2]]
    // CHECK-NEXT: memref.store %{{.+}}, %[[LOCAL]][
    // CHECK-NEXT: %[[Y:.+]] = arith.addf
    // CHECK-NEXT: memref.load %arg0
    // CHECK-NEXT: gpu.wait [%[[C]]]
    // CHECK-NEXT: memref.store %[[Y]], %arg0
    %d2 = gpu.alloc () : memref<64xf32>
    gpu.memcpy %d2, %h : memref<64xf32>, memref<64xf32>
    memref.store %x, %local[%c0] : memref<64xf32>
    %y = arith.addf %x, %x : f32
    %v = memref.load %h[%c0] : memref<64xf32>
    memref.store %y, %h[%c0] : memref<64xf32>
    // CHECK-NEXT: %[[S2:.+]] = gpu.wait async
    // CHECK-NEXT: %[[B:.+]] = gpu.memcpy async [%[[S2]]] %[[LOCAL]]
    // CHECK-NEXT: gpu.wait [%[[B]]]
    // CHECK-NEXT: memref.load %[[LOCAL]]
    // CHECK-NEXT: %[[S3:.+]] = gpu.wait async
    // CHECK-NEXT: %[[G:.+]] = gpu.dealloc async [%[[S3]]] %[[BYTES]]
    // CHECK-NEXT: memref.dealloc %[[LOCAL]]
    // CHECK-NEXT: arith.addf
    // CHECK-NEXT: gpu.wait [%[[G]]]
    // CHECK-NEXT: return
    gpu.memcpy %local, %d2 : memref<64xf32>, memref<64xf32>
    %w = memref.load %local[%c0] : memref<64xf32>
    gpu.dealloc %d2 : memref<64xf32>
    gpu.dealloc %d : memref<64xf32>
    memref.dealloc %local : memref<64xf32>
    %r = arith.addf %v, %w : f32
    return %r : f32
  }
}
