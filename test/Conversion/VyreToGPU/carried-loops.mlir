// The shapes below are those of iterations that make their own streams
// (lend-streams=false; lent-streams.mlir has the default, where they continue
// streams made before the loop); the referee checks both.
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=lend-streams=false | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=lend-streams=false --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// The region form, for comparison: the host waits in every iteration.
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=carry-loop-streams=false | FileCheck %s --check-prefix=REGION

// Tests a flat loop (its vyre ops directly in its body): the iterations are
// chained on the device. The main stream records an event before the loop;
// the loop carries it; every stream an iteration makes waits for it; the
// iteration joins its streams, records the next event on the join, destroys
// the event it waited for, and destroys its streams without the host
// waiting. After the loop, the streams made wait for the last event, and
// the block's end waits for it on the host.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @chained
// CHECK:         %{{.+}}, %[[ALLOC:.+]] = gpu.alloc async
// CHECK-NEXT:    %[[M:.+]] = builtin.unrealized_conversion_cast %[[ALLOC]] : !gpu.async.token to !llvm.ptr
// CHECK:         %[[FIRST:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[FIRST]], %[[M]])
// CHECK-NEXT:    %[[LAST:.+]] = scf.for {{.*}} iter_args(%[[EVENT:.+]] = %[[FIRST]]) -> (!llvm.ptr) {
// CHECK-NEXT:      %[[S:.+]] = gpu.wait async{{$}}
// CHECK-NEXT:      %[[SP:.+]] = builtin.unrealized_conversion_cast %[[S]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[SP]], %[[EVENT]])
// CHECK-NEXT:      %[[T:.+]] = gpu.memcpy async [%[[S]]]
// The copy stays (a launch reads its destination) on a stream that waited
// for the event: the join on it does not wait again (@erasable_copy, below,
// is the case where it must).
// CHECK-NEXT:      builtin.unrealized_conversion_cast %[[T]]
// CHECK-NEXT:      %[[J:.+]] = gpu.wait async [%[[T]], %[[T]]]
// CHECK-NEXT:      %[[L:.+]] = gpu.launch_func async [%[[J]]]
// CHECK:           %[[NEXT:.+]] = llvm.call @mgpuEventCreate()
// CHECK:           llvm.call @mgpuEventRecord(%[[NEXT]],
// CHECK-NEXT:      llvm.call @mgpuEventDestroy(%[[EVENT]])
// CHECK-NOT:       gpu.wait [
// CHECK:           llvm.call @mgpuStreamDestroy
// CHECK:           scf.yield %[[NEXT]] : !llvm.ptr
// CHECK-NEXT:    }
// CHECK:         llvm.call @mgpuEventSynchronize(%[[LAST]])
// CHECK-NEXT:    llvm.call @mgpuEventDestroy(%[[LAST]])
// REGION-LABEL: func.func @chained
// REGION:         scf.for
// REGION:           gpu.wait [
// REGION-NEXT:    }
func.func @chained(%h: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    vyre.wait %t
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}

// -----

// Tests that a stream an iteration makes does not wait for the event again
// where it joins a token already ordered after it: a launch, or a copy
// canonicalize keeps, on a stream that waited, or a join that is. A copy
// continuing on a side stream that waited does not wait again either. The
// main stream waits for each copy itself (an event recorded right after
// it), without a stream made for the join.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @joins_after_the_event
// CHECK:         scf.for {{.*}} iter_args(%[[EVENT:.+]] = %{{.+}}) -> (!llvm.ptr) {
// CHECK-NEXT:      %[[S:.+]] = gpu.wait async{{$}}
// CHECK-NEXT:      %[[SP:.+]] = builtin.unrealized_conversion_cast %[[S]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[SP]], %[[EVENT]])
// CHECK-NEXT:      %[[T1:.+]] = gpu.memcpy async [%[[S]]]
// CHECK-NEXT:      %[[T1P:.+]] = builtin.unrealized_conversion_cast %[[T1]]
// CHECK-NEXT:      %[[E1:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:      llvm.call @mgpuEventRecord(%[[E1]], %[[T1P]])
// CHECK-NEXT:      %[[T2:.+]] = gpu.memcpy async [%[[T1]]]
// CHECK-NEXT:      %[[T2P:.+]] = builtin.unrealized_conversion_cast %[[T2]]
// CHECK-NEXT:      %[[E2:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:      llvm.call @mgpuEventRecord(%[[E2]], %[[T2P]])
// CHECK-NEXT:      %[[M:.+]] = gpu.wait async{{$}}
// CHECK-NEXT:      %[[MP:.+]] = builtin.unrealized_conversion_cast %[[M]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[MP]], %[[EVENT]])
// CHECK-NEXT:      %[[L1:.+]] = gpu.launch_func async [%[[M]]]
// CHECK-NEXT:      %[[L1P:.+]] = builtin.unrealized_conversion_cast %[[L1]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[L1P]], %[[E1]])
// CHECK-NEXT:      llvm.call @mgpuEventDestroy(%[[E1]])
// CHECK-NEXT:      %[[L2:.+]] = gpu.launch_func async [%[[L1]]]
// CHECK-NEXT:      %[[L2P:.+]] = builtin.unrealized_conversion_cast %[[L2]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[L2P]], %[[E2]])
// CHECK-NEXT:      llvm.call @mgpuEventDestroy(%[[E2]])
// CHECK-NEXT:      gpu.launch_func async [%[[L2]]]
// CHECK-NOT:       mgpuStreamWaitEvent
// CHECK:           scf.yield
func.func @joins_after_the_event(%h: memref<16xf32>, %h2: memref<16xf32>,
                                 %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    %t2 = vyre.copy_h2d_async %h2 to %c on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    vyre.wait %t
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    vyre.wait %t2
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c : memref<16xf32>)
  }
  return
}

// A copy into a buffer that nothing but copies uses: canonicalize erases
// it, and its token becomes its stream's creation, before the stream's
// wait. A join that names only it waits for the event itself, which keeps
// the launch after the previous iteration once the copy is gone (the second
// RUN line's referee checks that output).
// CHECK-LABEL: func.func @erasable_copy
// CHECK:         scf.for {{.*}} iter_args(%[[EVENT:.+]] = %{{.+}}) -> (!llvm.ptr) {
// CHECK:           %[[T:.+]] = gpu.memcpy async
// CHECK-NEXT:      builtin.unrealized_conversion_cast %[[T]]
// CHECK-NEXT:      %[[J:.+]] = gpu.wait async [%[[T]], %[[T]]]
// CHECK-NEXT:      %[[JP:.+]] = builtin.unrealized_conversion_cast %[[J]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[JP]], %[[EVENT]])
// CHECK-NEXT:      gpu.launch_func async [%[[J]]]
func.func @erasable_copy(%h: memref<16xf32>, %b: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    vyre.wait %t
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  return
}
// -----

// Tests that after a chained loop the host waits for it on its event where
// the schedule makes the host wait for the main stream (a record taken with
// no main stream stands for the loop's work), and that a copy after the loop
// runs on a stream that waits for the loop's event.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @after_the_loop
// CHECK:         %[[LAST:.+]] = scf.for
// CHECK:         llvm.call @mgpuEventSynchronize(%[[LAST]])
// CHECK-NEXT:    memref.load
// CHECK-NEXT:    %[[S:.+]] = gpu.wait async{{$}}
// CHECK-NEXT:    %[[SP:.+]] = builtin.unrealized_conversion_cast %[[S]]
// CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[SP]], %[[LAST]])
// CHECK-NEXT:    gpu.memcpy async [%[[S]]]
func.func @after_the_loop(%h: memref<16xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  %r = vyre.record
  vyre.sync %r
  %v = memref.load %h[%c0] : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
  vyre.sync %t
  vyre.dealloc %a : memref<16xf32>
  return %v : f32
}

// -----

// Tests a branch in a loop: both are chained. The event before the branch
// is the iteration's own (nothing is in flight yet); the branch yields the
// event after its work, or, without device work in a block, the event
// before it; no block makes the host wait.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @branch_in_loop
// CHECK:         scf.for {{.*}} iter_args(%[[EVENT:.+]] = %{{.+}}) -> (!llvm.ptr) {
// CHECK-NEXT:      %[[AFTER:.+]] = scf.if %{{.+}} -> (!llvm.ptr) {
// CHECK-NEXT:        %[[S:.+]] = gpu.wait async{{$}}
// CHECK-NEXT:        %[[SP:.+]] = builtin.unrealized_conversion_cast %[[S]]
// CHECK-NEXT:        llvm.call @mgpuStreamWaitEvent(%[[SP]], %[[EVENT]])
// CHECK-NEXT:        %[[L:.+]] = gpu.launch_func async [%[[S]]]
// CHECK-NEXT:        builtin.unrealized_conversion_cast %[[L]]
// CHECK-NEXT:        %[[NEXT:.+]] = llvm.call @mgpuEventCreate()
// CHECK:             llvm.call @mgpuEventRecord(%[[NEXT]],
// CHECK-NEXT:        llvm.call @mgpuEventDestroy(%[[EVENT]])
// CHECK-NOT:         gpu.wait [
// CHECK:             scf.yield %[[NEXT]] : !llvm.ptr
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[EVENT]] : !llvm.ptr
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[T:.+]] = gpu.wait async{{$}}
// CHECK-NEXT:      %[[TP:.+]] = builtin.unrealized_conversion_cast %[[T]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[TP]], %[[AFTER]])
// CHECK-NEXT:      gpu.launch_func async [%[[T]]]
// CHECK-NOT:       gpu.wait [
// CHECK:           llvm.call @mgpuEventDestroy(%[[AFTER]])
// CHECK-NOT:       gpu.wait [
// CHECK:           scf.yield
// CHECK-NEXT:    }
func.func @branch_in_loop(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that a loop with a region op other than a loop or a branch holding
// vyre ops in its body is not chained: the host waits in every iteration,
// as for any region.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @not_chained
// CHECK:         scf.for
// CHECK-NOT:       iter_args
// CHECK:           scf.execute_region
// CHECK:           gpu.wait [
func.func @not_chained(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.execute_region {
      vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
      scf.yield
    }
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests nested loops: both are chained. Inside the outer body, the inner
// loop's first event is recorded after the copy the main stream was to
// wait for, on a join (which waits for the outer event), without the host
// waiting; the inner loop destroys the outer iteration's event once it
// has waited for it. The kernel after the inner loop waits for the inner
// loop's last event, and the next outer event is recorded on its stream
// with no join: that stream comes after every other stream of the body (the
// copy's, which the main stream's join named, and the main stream, which
// the inner loop's first event was recorded after). Then the inner loop's
// last event is destroyed. Nothing in either body makes the host wait.
// CHECK-LABEL: func.func @nested
// CHECK:         scf.for {{.*}} iter_args(%[[OUTER:.+]] = %{{.+}}) -> (!llvm.ptr) {
// CHECK-NOT:       gpu.wait [
// CHECK-NOT:       Synchronize
// CHECK:           %[[FIRST:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:      %[[MAIN:.+]] = gpu.wait async [%[[COPY:.+]], %[[COPY]]]
// CHECK-NEXT:      %[[MP:.+]] = builtin.unrealized_conversion_cast %[[MAIN]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[MP]], %[[OUTER]])
// CHECK-NEXT:      llvm.call @mgpuEventRecord(%[[FIRST]], %[[MP]])
// CHECK-NEXT:      llvm.call @mgpuStreamDestroy(%[[MP]])
// CHECK-NEXT:      %[[LAST:.+]] = scf.for {{.*}} iter_args(%[[INNER:.+]] = %[[FIRST]]) -> (!llvm.ptr) {
// CHECK-NOT:         gpu.wait [
// CHECK-NOT:         Synchronize
// CHECK:             llvm.call @mgpuEventDestroy(%[[INNER]])
// CHECK:             scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      llvm.call @mgpuEventDestroy(%[[OUTER]])
// CHECK-NEXT:      %[[S:.+]] = gpu.wait async{{$}}
// CHECK-NEXT:      %[[SP:.+]] = builtin.unrealized_conversion_cast %[[S]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[SP]], %[[LAST]])
// CHECK-NEXT:      %[[K:.+]] = gpu.launch_func async [%[[S]]]
// CHECK-NEXT:      %[[KP:.+]] = builtin.unrealized_conversion_cast %[[K]]
// CHECK-NEXT:      %[[NEXT:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:      llvm.call @mgpuEventRecord(%[[NEXT]], %[[KP]])
// CHECK-NEXT:      llvm.call @mgpuEventDestroy(%[[LAST]])
// CHECK-NOT:       gpu.wait [
// CHECK-NOT:       Synchronize
// CHECK:           scf.yield %[[NEXT]] : !llvm.ptr
// CHECK-NEXT:    }
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
func.func @nested(%h: memref<16xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    vyre.wait %t
    scf.for %j = %c0 to %m step %c1 {
      vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %b : memref<16xf32>
  return
}

// -----

// Tests an outer body that ends with an inner chained loop: every stream of
// the body is before the inner loop's first event, so the inner loop's last
// event is the outer iteration's next one, yielded as it is (no join, no
// new event).
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @nested_last
// CHECK:         scf.for {{.*}} iter_args(%[[OUTER:.+]] = %{{.+}}) -> (!llvm.ptr) {
// CHECK:           %[[LAST:.+]] = scf.for
// CHECK:             scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      llvm.call @mgpuEventDestroy(%[[OUTER]])
// CHECK-NOT:       gpu.wait
// CHECK-NOT:       mgpuEvent
// CHECK:           scf.yield %[[LAST]] : !llvm.ptr
// CHECK-NEXT:    }
func.func @nested_last(%h: memref<16xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    vyre.wait %t
    scf.for %j = %c0 to %m step %c1 {
      vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
  }
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that a copy in flight before a nested chained loop, on a side
// stream the loop does not enqueue on, keeps running beside the loop: with
// nothing else in flight, the loop starts after the outer iteration's event
// itself, and takes it over. The op that waits for the copy after the loop
// waits for the loop too.
// CHECK-LABEL: func.func @unrelated_copy
// CHECK:         scf.for {{.*}} iter_args(%[[OUTER:.+]] = %{{.+}}) -> (!llvm.ptr) {
// CHECK:           %[[COPY:.+]] = gpu.memcpy async
// CHECK-NEXT:      builtin.unrealized_conversion_cast %[[COPY]]
// CHECK-NEXT:      %[[LAST:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[OUTER]]) -> (!llvm.ptr) {
// CHECK:           }
// CHECK-NEXT:      %[[J:.+]] = gpu.wait async [%[[COPY]], %[[COPY]]]
// CHECK-NEXT:      %[[JP:.+]] = builtin.unrealized_conversion_cast %[[J]]
// CHECK-NEXT:      llvm.call @mgpuStreamWaitEvent(%[[JP]], %[[LAST]])
// CHECK-NEXT:      gpu.launch_func async [%[[J]]]
// CHECK-NOT:       llvm.call @mgpuEventDestroy(%[[OUTER]])
// CHECK:           llvm.call @mgpuEventDestroy(%[[LAST]])
// CHECK-NOT:       llvm.call @mgpuEventDestroy(%[[OUTER]])
// CHECK:           scf.yield
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
func.func @unrelated_copy(%h: memref<16xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %b on stream 2 after [%r] : memref<16xf32> to memref<16xf32>
    scf.for %j = %c0 to %m step %c1 {
      vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    }
    vyre.wait %t
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  }
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %b : memref<16xf32>
  return
}

// -----

// Tests a chained loop that enqueues on a side stream made before an
// earlier chained loop: its first event is recorded on a join of that
// stream, which waits for the earlier loop's last event. The host does not
// wait for the side stream before the loop, and the host's wait on the
// second loop's event covers the copy made before both.
// CHECK-LABEL: func.func @side_stream_before_loops
// CHECK:         %[[COPY:.+]] = gpu.memcpy async
// CHECK:         %[[LAST1:.+]] = scf.for
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[FIRST:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:    %[[J:.+]] = gpu.wait async [%[[COPY]], %[[COPY]]]
// CHECK-NEXT:    %[[JP:.+]] = builtin.unrealized_conversion_cast %[[J]]
// CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[JP]], %[[LAST1]])
// CHECK-NOT:     gpu.wait [
// CHECK:         llvm.call @mgpuEventRecord(%[[FIRST]],
// CHECK:         %[[LAST2:.+]] = scf.for
// CHECK:         llvm.call @mgpuEventSynchronize(%[[LAST2]])
// CHECK-NEXT:    gpu.wait async
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
func.func @side_stream_before_loops(%h: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %d = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %d on stream 1 : memref<16xf32> to memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %u = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    vyre.wait %u
  }
  %r2 = vyre.record
  vyre.sync %r2
  vyre.sync %t
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %d : memref<16xf32>
  return
}
