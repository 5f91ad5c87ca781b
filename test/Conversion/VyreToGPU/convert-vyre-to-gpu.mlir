// The region form of loops (carry-loop-streams=false): the host waits at
// the end of every iteration. carried-loops.mlir tests the default.
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=carry-loop-streams=false | FileCheck %s
// The output is stable under canonicalization and CSE.
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=carry-loop-streams=false --canonicalize --cse | FileCheck %s
// And it is race-free, and frees every stream and event, as upstream runs it.
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=carry-loop-streams=false --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null

// Tests a program that never went through --overlap-copies: everything is on
// the main stream, and a blocking copy makes the host wait for the main
// stream and destroy it; the next op starts a new one. The return waits for
// the last one.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @sequential
// CHECK-SAME:    (%[[H:.+]]: memref<16xf32>)
func.func @sequential(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // CHECK: %[[M0:.+]] = gpu.wait async{{$}}
  // CHECK: %[[D:.+]], %[[M1:.+]] = gpu.alloc async [%[[M0]]] () : memref<16xf32>
  %d = vyre.alloc : memref<16xf32>
  // CHECK: %[[M2:.+]] = gpu.memcpy async [%[[M1]]] %[[D]], %[[H]]
  // CHECK-NEXT: gpu.wait [%[[M2]]]
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: %[[N0:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[N1:.+]] = gpu.launch_func async [%[[N0]]] @k::@scale blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%{{.+}}, %{{.+}}, %{{.+}}) args(%[[D]] : memref<16xf32>)
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  // CHECK-NEXT: %[[N2:.+]] = gpu.memcpy async [%[[N1]]] %[[H]], %[[D]]
  // CHECK-NEXT: gpu.wait [%[[N2]]]
  vyre.copy_d2h %d to %h : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: %[[P0:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[P1:.+]] = gpu.dealloc async [%[[P0]]] %[[D]]
  vyre.dealloc %d : memref<16xf32>
  // CHECK-NEXT: gpu.wait [%[[P1]]]
  // CHECK-NEXT: return
  return
}

// -----

// Tests side streams: a copy starts its own stream (here joining the
// allocation of its target), a copy after a record joins the main stream's
// token, a stream that waits for another's token waits for an event
// recorded right after it (no stream is made for the join), a sync destroys
// the stream it waits for, and the return waits for the tail of every other
// stream once.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @side_streams
func.func @side_streams(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // CHECK: %[[A:.+]], %[[M1:.+]] = gpu.alloc async
  // CHECK: %[[B:.+]], %[[M2:.+]] = gpu.alloc async [%[[M1]]]
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // The copy into %a waits for %a's allocation: the gpu dialect's token
  // contract.
  // CHECK: %[[S0:.+]] = gpu.wait async [%[[M1]], %[[M1]]]
  // CHECK: %[[TA:.+]] = gpu.memcpy async [%[[S0]]] %[[A]]
  %ta = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK: %[[M3:.+]] = gpu.launch_func async [%[[M2]]] @k::@scale {{.*}} args(%[[B]] :
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  %r = vyre.record
  // The record comes after %b's allocation: no second wait for it. The side
  // stream waits for the kernel itself: an event recorded right after it.
  // CHECK: %[[E1:.+]] = llvm.call @mgpuEventCreate()
  // CHECK: llvm.call @mgpuEventRecord(%[[E1]], %{{[0-9]+}})
  // CHECK: llvm.call @mgpuStreamWaitEvent(%{{[0-9]+}}, %[[E1]])
  // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E1]])
  // CHECK-NEXT: %[[TB:.+]] = gpu.memcpy async [%[[TA]]] %[[B]]
  %tb = vyre.copy_h2d_async %h to %b on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
  // So does the main stream, for the copy into %a (its event was recorded
  // right after the copy, above).
  // CHECK: llvm.call @mgpuStreamWaitEvent(%{{[0-9]+}}, %[[E0:[0-9]+]])
  // CHECK-NEXT: llvm.call @mgpuEventDestroy(%[[E0]])
  // CHECK-NEXT: %[[M5:.+]] = gpu.launch_func async [%[[M3]]] {{.*}} args(%[[A]] :
  vyre.wait %ta
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // Both streams hold runtime calls: the host waits for each, and destroys
  // it, by runtime calls too.
  // CHECK-NOT: gpu.wait
  // CHECK: llvm.call @mgpuStreamSynchronize
  vyre.sync %tb
  // CHECK: llvm.call @mgpuStreamSynchronize
  // CHECK-NOT: Synchronize
  // CHECK-NOT: gpu.wait
  // CHECK: return
  return
}

// -----

// Tests that a copy whose only dependency is the main stream's token gets a
// stream of its own that waits on it (the token named twice), not a place on
// the main stream.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @single_dependency
func.func @single_dependency(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // CHECK: %[[M:.+]] = gpu.launch_func async
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  %r = vyre.record
  // CHECK-NEXT: %[[S:.+]] = gpu.wait async [%[[M]], %[[M]]]
  // CHECK-NEXT: gpu.memcpy async [%[[S]]]
  %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
  vyre.sync %t
  return
}

// -----

// Tests a copy inside a loop: the host waits for the main stream before the
// loop, so that no token from outside the loop is used inside it; the
// streams the body creates are waited for and destroyed before its yield,
// each iteration. The copy's stream could lose all its work to
// canonicalization (a copy into a buffer nothing reads is erased), so the
// join names the other dependency twice: it is never folded.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @copy_in_loop
func.func @copy_in_loop(%h: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[A:.+]], %[[M1:.+]] = gpu.alloc async
  %a = vyre.alloc : memref<16xf32>
  // CHECK-NEXT: gpu.wait [%[[M1]]]
  // CHECK-NEXT: scf.for
  scf.for %i = %c0 to %n step %c1 {
    // CHECK-NEXT: %[[S:.+]] = gpu.wait async{{$}}
    // CHECK-NEXT: %[[T:.+]] = gpu.memcpy async [%[[S]]]
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    // CHECK-NEXT: %[[J:.+]] = gpu.wait async [%[[T]], %[[T]]]
    // CHECK-NEXT: %[[L:.+]] = gpu.launch_func async [%[[J]]]
    vyre.wait %t
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    // CHECK-NEXT: gpu.wait [%[[T]], %[[L]]]
    // CHECK-NEXT: }
  }
  // CHECK-NEXT: return
  return
}

// -----

// Tests that a join after a loop never names a token from before the loop:
// upstream records a join's event right after the op that made the token, so
// the join would not wait for the loop's kernels, and the copy would
// overwrite %a while they still write it. The host waits for the main stream
// before the loop instead; the loop's streams are its own.
gpu.module @k {
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @join_after_loop
// CHECK-SAME:    (%[[H:.+]]: memref<16xf32> {llvm.noalias}, %[[A:.+]]: memref<16xf32> {llvm.noalias}
func.func @join_after_loop(%h: memref<16xf32> {llvm.noalias},
                           %a: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[M0:.+]] = gpu.launch_func async
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // CHECK-NEXT: gpu.wait [%[[M0]]]
  // CHECK-NEXT: scf.for
  // CHECK-NEXT:   %[[L0:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT:   %[[L1:.+]] = gpu.launch_func async [%[[L0]]]
  // CHECK-NEXT:   gpu.wait [%[[L1]]]
  // CHECK-NEXT: }
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  // CHECK-NEXT: %[[S:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[T:.+]] = gpu.memcpy async [%[[S]]] %[[A]], %[[H]]
  %r = vyre.record
  %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: %[[J:.+]] = gpu.wait async [%[[T]], %[[T]]]
  // CHECK-NEXT: gpu.launch_func async [%[[J]]]
  vyre.wait %t
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// -----

// Tests that a loop without vyre ops does not make the host wait in a
// function in stream form (the schedule says where the host waits): only a
// region that holds device work starts from a quiet device.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @host_loop
func.func @host_loop(%h: memref<16xf32> {llvm.noalias},
                     %a: memref<16xf32> {llvm.noalias},
                     %o: memref<16xindex> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK: %[[M:.+]] = gpu.launch_func async
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // CHECK-NOT: gpu.wait
  // CHECK: scf.for
  // CHECK-NEXT: memref.store
  scf.for %i = %c0 to %n step %c1 {
    memref.store %i, %o[%i] : memref<16xindex>
  }
  vyre.sync %t
  return
}

// -----

// Tests that a copy that stays in flight across a branch keeps its stream:
// the branch starts with streams of its own, and the copy's stream is joined
// after the branch, where its token was made.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @copy_across_branch
func.func @copy_across_branch(%h: memref<16xf32> {llvm.noalias},
                              %a: memref<16xf32> {llvm.noalias},
                              %b: memref<16xf32> {llvm.noalias}, %p: i1) {
  %c1 = arith.constant 1 : index
  // CHECK: %[[S:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[T:.+]] = gpu.memcpy async [%[[S]]]
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: %[[B0:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[B1:.+]] = gpu.launch_func async [%[[B0]]]
  // CHECK-NEXT: gpu.wait [%[[B1]]]
  // CHECK-NEXT: }
  scf.if %p {
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  // CHECK-NEXT: %[[J:.+]] = gpu.wait async [%[[T]], %[[T]]]
  // CHECK-NEXT: %[[L:.+]] = gpu.launch_func async [%[[J]]]
  vyre.wait %t
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // CHECK-NEXT: gpu.wait [%[[T]], %[[L]]]
  return
}

// -----

// Tests that a token made outside a loop and waited for inside it is made
// complete before the loop: the host waits for its stream there, and the
// loop body joins nothing from outside.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @outer_token_in_loop
func.func @outer_token_in_loop(%h: memref<16xf32> {llvm.noalias},
                               %a: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[T:.+]] = gpu.memcpy async
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: %[[L0:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[L1:.+]] = gpu.launch_func async [%[[L0]]]
  // CHECK-NEXT: gpu.wait [%[[L1]]]
  scf.for %i = %c0 to %n step %c1 {
    vyre.wait %t
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}

// -----

// Tests the sequential meaning of a function without async vyre ops: the
// host waits for the kernel before a host op that reads the buffer it wrote,
// but not before an op that touches no memory.
gpu.module @k {
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @sequential_host_read
func.func @sequential_host_read(%x: memref<16xf32>, %j: index) -> f32 {
  %c1 = arith.constant 1 : index
  // CHECK: %[[M:.+]] = gpu.launch_func async
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
  // CHECK-NEXT: arith.addi
  %i = arith.addi %j, %j : index
  // CHECK-NEXT: gpu.wait [%[[M]]]
  // CHECK-NEXT: memref.load
  %v = memref.load %x[%i] : memref<16xf32>
  // CHECK-NOT: gpu.wait
  // CHECK: return
  return %v : f32
}

// -----

// Tests that a write through a pointer to a buffer is a host op that may
// touch memory: the host waits for the kernel first.
gpu.module @k {
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @sequential_pointer_store
func.func @sequential_pointer_store(%x: memref<16xf32>, %v: f32) {
  %c1 = arith.constant 1 : index
  // CHECK: %[[M:.+]] = gpu.launch_func async
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
  %address = memref.extract_aligned_pointer_as_index %x : memref<16xf32> -> index
  %integer = arith.index_cast %address : index to i64
  %pointer = llvm.inttoptr %integer : i64 to !llvm.ptr
  // CHECK: gpu.wait [%[[M]]]
  // CHECK-NEXT: llvm.store
  llvm.store %v, %pointer : f32, !llvm.ptr
  return
}

// -----

// Tests that copies on one side stream keep their program order across a
// region: the branch enqueues on stream 1, so the host waits for stream 1's
// copy before the branch (the copy into %a in the branch would otherwise race
// with the one before it). Compare @copy_across_branch, where the branch has
// no copy and the stream stays in flight.
// CHECK-LABEL: func.func @side_stream_order_across_branch
func.func @side_stream_order_across_branch(%h: memref<16xf32> {llvm.noalias},
                                           %g: memref<16xf32> {llvm.noalias},
                                           %a: memref<16xf32> {llvm.noalias},
                                           %p: i1) {
  // CHECK: %[[T:.+]] = gpu.memcpy async
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: %[[S:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[U:.+]] = gpu.memcpy async [%[[S]]]
  // CHECK-NEXT: gpu.wait [%[[U]]]
  // CHECK-NEXT: }
  // CHECK-NEXT: return
  scf.if %p {
    %u = vyre.copy_h2d_async %g to %a on stream 1 : memref<16xf32> to memref<16xf32>
    vyre.sync %u
  }
  vyre.sync %t
  return
}

// -----

// Tests the same for copies into the host: the branch's copy back on stream
// 1 runs after the one before it, into the same host buffer.
// CHECK-LABEL: func.func @side_stream_order_across_branch_to_host
func.func @side_stream_order_across_branch_to_host(%h: memref<16xf32> {llvm.noalias},
                                                   %a: memref<16xf32> {llvm.noalias},
                                                   %b: memref<16xf32> {llvm.noalias},
                                                   %p: i1) {
  // CHECK: %[[T:.+]] = gpu.memcpy async
  %t = vyre.copy_d2h_async %a to %h on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: gpu.wait [%[[T]]]
  // CHECK-NEXT: scf.if
  scf.if %p {
    %u = vyre.copy_d2h_async %b to %h on stream 1 : memref<16xf32> to memref<16xf32>
    vyre.sync %u
  }
  vyre.sync %t
  return
}

// -----

// Tests that a module without vyre ops is left alone.
// CHECK-LABEL: func.func @no_vyre
// CHECK-NOT: gpu.
func.func @no_vyre(%x: index) -> index {
  return %x : index
}
