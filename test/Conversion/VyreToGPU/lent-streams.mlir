// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=lend-streams=false | FileCheck %s --check-prefix=OWN

// Tests that a chained loop's body makes no stream: the stream retired
// before the loop (the main stream, which allocated) is continued inside,
// through its pointer cast back to a token, and the second stream the body
// needs is made once, before the loop. Each waits for the iteration's event
// as a new stream would. After the loop, the block continues them again; the
// host waits for the one whose work comes after the last event, which is
// then known done (no mgpuEventSynchronize), and each stream is destroyed
// once, at the end.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @body_borrows
// The two buffers are one allocation (allocated together, freed together).
// CHECK:         %{{.+}}, %[[ALLOC:.+]] = gpu.alloc async {{.*}} : memref<320xi8>
// CHECK-NEXT:    %[[MAIN:.+]] = builtin.unrealized_conversion_cast %[[ALLOC]] : !gpu.async.token to !llvm.ptr
// CHECK:         llvm.call @mgpuEventRecord(%{{.+}}, %[[MAIN]])
// CHECK-NEXT:    %[[BEFORE:.+]] = gpu.wait async{{$}}
// CHECK-NEXT:    %[[SECOND:.+]] = builtin.unrealized_conversion_cast %[[BEFORE]] : !gpu.async.token to !llvm.ptr
// CHECK-NEXT:    %[[LAST:.+]] = scf.for {{.*}} iter_args(%[[EVENT:.+]] = %{{.+}}) -> (!llvm.ptr) {
// CHECK-NOT:       gpu.wait
// CHECK:           %[[S1:.+]] = builtin.unrealized_conversion_cast %[[MAIN]] : !llvm.ptr to !gpu.async.token
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[MAIN]], %[[EVENT]])
// CHECK-NEXT:      gpu.memcpy async [%[[S1]]]
// CHECK:           %[[S2:.+]] = builtin.unrealized_conversion_cast %[[SECOND]] : !llvm.ptr to !gpu.async.token
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[SECOND]], %[[EVENT]])
// CHECK-NEXT:      gpu.launch_func async [%[[S2]]]
// CHECK-NOT:       gpu.wait
// CHECK-NOT:       mgpuStreamDestroy
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[AFTER:.+]] = builtin.unrealized_conversion_cast %[[SECOND]] : !llvm.ptr to !gpu.async.token
// CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[SECOND]], %[[LAST]])
// CHECK-NEXT:    gpu.launch_func async [%[[AFTER]]]
// CHECK-NOT:     mgpuEventSynchronize
// CHECK:         llvm.call @mgpuStreamSynchronize(
// CHECK-NOT:     mgpuEventSynchronize
// CHECK:         llvm.call @mgpuEventDestroy(%[[LAST]])
// CHECK-NEXT:    llvm.call @mgpuStreamDestroy(%[[MAIN]])
// CHECK-NEXT:    llvm.call @mgpuStreamDestroy(%[[SECOND]])
// CHECK-NEXT:    return
// Without lending, every iteration makes its streams and destroys them.
// OWN-LABEL: func.func @body_borrows
// OWN:         scf.for
// OWN:           gpu.wait async{{$}}
// OWN:           gpu.wait async{{$}}
// OWN:           llvm.call @mgpuStreamDestroy
// OWN:           scf.yield
func.func @body_borrows(%h: memref<16xf32> {vyre.pinned, llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    vyre.wait %t
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %b : memref<16xf32>
  return
}

// -----

// Tests that no stream that allocates is borrowed: before the vyre.alloc in
// the body, the body makes its own stream (the allocation is ordered before
// other streams by its token, which a join names); after it, it borrows.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @allocates_in_body
// CHECK:         scf.for
// CHECK-NEXT:      %[[FRESH:.+]] = gpu.wait async{{$}}
// CHECK:           gpu.launch_func async [%[[FRESH]]]
// CHECK-NEXT:      gpu.alloc async
// CHECK:           llvm.call @mgpuStreamSynchronize
// CHECK-NEXT:      llvm.call @mgpuStreamDestroy
// CHECK-NEXT:      %[[LENT:.+]] = builtin.unrealized_conversion_cast %{{.+}} : !llvm.ptr to !gpu.async.token
// CHECK:           gpu.launch_func async [%[[LENT]]]
func.func @allocates_in_body(%h: memref<16xf32> {vyre.pinned, llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    %t = vyre.alloc : memref<16xf32>
    vyre.copy_h2d %h to %t : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%t : memref<16xf32>)
    vyre.dealloc %t : memref<16xf32>
  }
  vyre.dealloc %b : memref<16xf32>
  return
}

// -----

// Tests that a join never names a token on a borrowed stream (gpu-to-llvm
// would take it for an event): the stream that waits for both copies waits
// for an event recorded right after each.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @joins_borrowed
// CHECK:         scf.for
// CHECK-NOT:       gpu.wait
// CHECK:           %[[T1:.+]] = gpu.memcpy async
// CHECK-NEXT:      %[[T1P:.+]] = builtin.unrealized_conversion_cast %[[T1]]
// CHECK-NEXT:      %[[E1:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:      llvm.call @mgpuEventRecord(%[[E1]], %[[T1P]])
// CHECK-NOT:       gpu.wait
// CHECK:           %[[T2:.+]] = gpu.memcpy async
// CHECK-NEXT:      %[[T2P:.+]] = builtin.unrealized_conversion_cast %[[T2]]
// CHECK-NEXT:      %[[E2:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:      llvm.call @mgpuEventRecord(%[[E2]], %[[T2P]])
// CHECK-NEXT:      %[[M:.+]] = builtin.unrealized_conversion_cast %[[MP:.+]] : !llvm.ptr to !gpu.async.token
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[MP]], %[[E1]])
// CHECK-NEXT:      llvm.call @mgpuEventDestroy(%[[E1]])
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[MP]], %[[E2]])
// CHECK-NEXT:      llvm.call @mgpuEventDestroy(%[[E2]])
// CHECK-NEXT:      gpu.launch_func async [%[[M]]]
// CHECK-NOT:       gpu.wait
// CHECK:           scf.yield
func.func @joins_borrowed(%h: memref<16xf32> {vyre.pinned, llvm.noalias},
                          %h2: memref<16xf32> {vyre.pinned, llvm.noalias},
                          %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    %t2 = vyre.copy_h2d_async %h2 to %b on stream 2 after [%r] : memref<16xf32> to memref<16xf32>
    vyre.wait %t
    vyre.wait %t2
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %b : memref<16xf32>
  return
}

// -----

// Tests a chained branch: its block continues the main stream retired
// before it; after a host wait for that stream (a copy that stays on the
// main stream), it continues it again; nothing is destroyed in the branch.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @branch_borrows
// CHECK:         %[[L:.+]] = gpu.launch_func async
// CHECK-NEXT:    %[[MAIN:.+]] = builtin.unrealized_conversion_cast %[[L]] : !gpu.async.token to !llvm.ptr
// CHECK:         scf.if
// CHECK-NEXT:      %[[S:.+]] = builtin.unrealized_conversion_cast %[[MAIN]] : !llvm.ptr to !gpu.async.token
// CHECK:           gpu.memcpy async [%[[S]]]
// CHECK:           llvm.call @mgpuStreamSynchronize
// CHECK-NEXT:      %[[S2:.+]] = builtin.unrealized_conversion_cast %[[MAIN]] : !llvm.ptr to !gpu.async.token
// CHECK:           gpu.launch_func async [%[[S2]]]
// CHECK-NOT:       mgpuStreamDestroy
// CHECK:           scf.yield
// CHECK:         llvm.call @mgpuStreamDestroy(%[[MAIN]])
// CHECK-NEXT:    return
func.func @branch_borrows(%h: memref<16xf32> {vyre.pinned, llvm.noalias}, %c: i1) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  scf.if %c {
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that an allocation on a stream a chained op retired is known done
// once the host waits for the event recorded after it: a stream made later,
// in a region nested in a chained loop's body, uses the buffer without
// naming the allocation's token (from outside the loop, gpu-to-llvm would
// record its event once and destroy it in every iteration).
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @alloc_on_retired_stream
// CHECK:         scf.if
// CHECK:           %{{.+}}, %[[ALLOC:.+]] = gpu.alloc async
// CHECK:           %[[S:.+]] = memref.view
// CHECK:           scf.for
// CHECK:             llvm.call @mgpuEventSynchronize(
// CHECK:             scf.if
// CHECK:               %[[NEW:.+]] = gpu.wait async{{$}}
// CHECK-NEXT:          %[[COPY:.+]] = gpu.memcpy async [%[[NEW]]] %[[S]]
// CHECK-NOT:           %[[ALLOC]]
// CHECK:               gpu.launch_func async
// CHECK-NOT:           %[[ALLOC]]
// CHECK:               gpu.wait [
// CHECK-NEXT:        }
func.func @alloc_on_retired_stream(%h: memref<16xf32> {vyre.pinned, llvm.noalias},
                             %o: memref<16xf32> {vyre.pinned, llvm.noalias},
                             %n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %d = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d : memref<16xf32>)
  scf.if %c {
    %s = vyre.alloc : memref<16xf32>
    %u = vyre.alloc : memref<16xf32>
    scf.for %i = %c0 to %n step %c1 {
      %t = vyre.copy_d2h_async %d to %o on stream 0 : memref<16xf32> to memref<16xf32>
      %e = vyre.record
      %q = arith.remui %i, %c3 : index
      %p = arith.cmpi eq, %q, %c0 : index
      scf.if %p {
        %cp = vyre.copy_h2d_async %h to %s on stream 1 after [%e] : memref<16xf32> to memref<16xf32>
        vyre.wait %cp
        vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%s : memref<16xf32>)
      }
    }
    %r = vyre.record
    vyre.sync %r
    vyre.dealloc %s : memref<16xf32>
    vyre.dealloc %u : memref<16xf32>
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d : memref<16xf32>)
  }
  vyre.dealloc %d : memref<16xf32>
  return
}

// -----

// Tests, on a program of the property test (Inputs/lent-streams-join.mlir),
// that a stream made by a join that waited for a token on a borrowed stream
// by an event is not named by a later join: its first token does not
// include that wait where gpu-to-llvm records a join's event. Both referees
// run (verify=true); the lowering goes through upstream's LLVM pipeline.
// RUN: vyre-opt %S/Inputs/lent-streams-join.mlir --vyre-to-gpu-pipeline="side-streams=1 d2h-streams=1 async-d2h=false cost-model=false async-in-place=true pipeline-depth=3 buffer-budget=128 verify=true" -o %t.join.mlir
// RUN: mlir-opt %t.join.mlir --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" -o %t.join.llvm.mlir
// RUN: vyre-opt %t.join.llvm.mlir --test-vyre-stream-balance -o /dev/null
// RUN: mlir-translate --mlir-to-llvmir %t.join.llvm.mlir -o /dev/null
