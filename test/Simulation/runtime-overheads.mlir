// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate --verify-diagnostics -o /dev/null
// RUN: sed -e 's/expected-/hidden-/' %s | vyre-opt --split-input-file --vyre-kernel-access --vyre-simulate="stream-create-us=10" 2>&1 >/dev/null | FileCheck %s --check-prefix=UNPOOLED

// Tests the runtime overheads, at their defaults (calibrated on an H200):
// the host spends 0.85 us issuing each launch or memcpy, 1.7 us per
// dependency of a join, 1.7 us per synchronization and 21.5 us per buffer
// allocated and freed; a device op starts only once it is issued.
// Here: the copy is issued at 0.85 us and runs 2.0 us (to 2.85 us), and the
// host waits for it (to 4.55 us); the kernel is issued at 5.4 us and runs
// 10 us (to 15.4 us); the free waits for it (17.1 us) and costs 21.5 us;
// the return waits for the main stream (+1.7 us): 40.3 us, 28.3 us of it in
// runtime calls. Without a join, the stream creation cost does not matter.
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 40.3 us, device time 12.0 us, bound 37.8 us (H2D copies 2.0 us, D2H copies 0.0 us, kernels 10.0 us, longest path 12.0 us, engine with fill and drain 12.0 us, device idle for the host 25.8 us; host 28.3 us in runtime calls, 3 host synchronizations}}
func.func @overheads(%h: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [read]
  vyre.dealloc %a : memref<16xf32>
  return
}
// UNPOOLED: makespan 40.3 us

// -----

// Tests that a join costs an event record and a stream wait per dependency
// (its own stream's too), and a stream creation unless the runtime pools
// streams. The async copy is issued at 0.85 us (to 2.85 us); the wait joins
// the main stream with it (2 x 1.7 us, host at 4.25 us); the kernel is
// issued at 5.1 us (to 15.1 us); the return waits for both streams
// (2 x 1.7 us): 18.5 us.
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 18.5 us, device time 12.0 us, bound 14.6 us (H2D copies 2.0 us, D2H copies 0.0 us, kernels 10.0 us, longest path 12.0 us, engine with fill and drain 12.0 us, device idle for the host 2.5 us; host 8.5 us in runtime calls, 2 host synchronizations}}
func.func @join(%h: memref<16xf32> {vyre.pinned, llvm.noalias}, %d: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %t = vyre.copy_h2d_async %h to %d on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.wait %t
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>) access [read]
  return
}
// With 10 us per stream a join creates, the kernel is issued 10 us later.
// UNPOOLED: makespan 28.5 us

// -----

// Tests nested device loops: the lowering chains both on the device, so the
// host does not wait in any iteration. It spends 2 x 1.7 us on the event
// joins before each loop and after each of its iterations (3 outer loop
// runs of 4 inner iterations: 17 x 3.4 us), 0.85 us per launch, and waits
// twice: for the copy into the host and at the return.
// expected-remark @+4 {{makespan 133.1 us, device time 122.0 us, bound 124.6 us (H2D copies 0.0 us, D2H copies 2.0 us, kernels 120.0 us, longest path 122.0 us, engine with fill and drain 122.0 us, device idle for the host 2.5 us; host 79.0 us in runtime calls, 2 host synchronizations}}
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @nested_loops(%out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 10.0}
    }
  }
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Tests a branch in a loop: the lowering chains both on the device too.
// Each run of the branch costs two joins before it and two after it
// (3 x 6.8 us more than the nested loops above), and no host wait.
// expected-remark @+4 {{makespan 136.5 us, device time 122.0 us, bound 124.6 us (H2D copies 0.0 us, D2H copies 2.0 us, kernels 120.0 us, longest path 122.0 us, engine with fill and drain 122.0 us, device idle for the host 2.5 us; host 99.5 us in runtime calls, 2 host synchronizations}}
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @loop_around_branch(%out: memref<16xf32> {vyre.pinned, llvm.noalias}, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.if %c {
      scf.for %j = %c0 to %c4 step %c1 {
        vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 10.0}
      }
    }
  }
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Tests that a loop holding a region op other than a loop or a branch with
// device work is not chained: the host waits before the loop, after each of
// its iterations and before each run of the region (7 times), then for the
// copy and at the return. The loop inside the region is chained still.
// expected-remark @+4 {{makespan 150.9 us, device time 122.0 us, bound 124.6 us (H2D copies 0.0 us, D2H copies 2.0 us, kernels 120.0 us, longest path 122.0 us, engine with fill and drain 122.0 us, device idle for the host 2.5 us; host 77.4 us in runtime calls, 9 host synchronizations}}
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @loop_around_region(%out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.execute_region {
      scf.for %j = %c0 to %c4 step %c1 {
        vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [readwrite] {vyre.cost_us = 10.0}
      }
      scf.yield
    }
  }
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Tests that a free waits for the whole device, not only its own stream
// (cuMemFree is not ordered on a stream): the free of %a, which the 102 us
// copy back of %b on stream 2 does not touch, still waits for it. The
// kernel ends at 10.85 us (its launch, then 10 us) and the copy back at
// 112.85 us; the free of %a then costs a synchronization and 21.5 us
// (136.05), the host's wait for the copy 1.7 us, the free of %b 23.2 us,
// the return a synchronization per stream used (3.4 us): 164.3 us. Were
// the free to wait for the main stream only, it would run beside the copy
// (141.2 us). (A host store between the frees keeps the two buffers apart:
// freed one after the other, they would be one allocation, freed once.)
gpu.module @k {
  func.func private @write(%x: memref<16xf32>, %y: memref<1375000xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 164.3 us, device time 112.0 us, bound 160.9 us (H2D copies 0.0 us, D2H copies 102.0 us, kernels 10.0 us, longest path 112.0 us, engine with fill and drain 112.0 us, device idle for the host 49.0 us; host 56.6 us in runtime calls, 5 host synchronizations}}
func.func @free_waits_for_device(%h: memref<1375000xf32> {vyre.pinned, llvm.noalias}, %o: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<1375000xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<1375000xf32>) access [write, write] {vyre.cost_us = 10.0}
  %r = vyre.record
  %t = vyre.copy_d2h_async %b to %h on stream 2 after [%r] : memref<1375000xf32> to memref<1375000xf32>
  vyre.dealloc %a : memref<16xf32>
  memref.store %v, %o[%c0] : memref<4xf32>
  vyre.sync %t
  vyre.dealloc %b : memref<1375000xf32>
  return
}
