// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" --verify-diagnostics -o /dev/null
// The other runs hide the annotations, which the driver would check.
// RUN: sed -e 's/expected-/hidden-/' %s | not vyre-opt --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" 2>&1 >/dev/null | FileCheck %s --check-prefix=OVERLAP
// RUN: sed -e 's/expected-/hidden-/' %s | not vyre-opt --split-input-file --vyre-kernel-access --vyre-simulate="h2d-gbps=110 copy-latency-us=0 default-kernel-us=50 launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" 2>&1 >/dev/null | FileCheck %s --check-prefix=OPTIONS
// RUN: vyre-opt %vyre_src/examples/copy_then_unrelated_kernel.mlir --vyre-kernel-access --overlap-copies=cost-model=false --vyre-simulate="trace=%t.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=TRACE
// RUN: vyre-opt %S/Inputs/two-functions.mlir --vyre-kernel-access --vyre-simulate="trace=%t.two.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t.two.json --check-prefix=TWO

// Tests the runtime policy's example: a 100 us copy (5.5 MB at 55 GB/s, plus
// 2 us of latency) and a 200 us kernel beside it take 302 us in order; with
// the copy on a side stream, 200 us; then the kernel that reads it, at the
// default cost of 10 us.
gpu.module @k {
  func.func private @kernel(%x: memref<1375000xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 312.0 us, device time 312.0 us, bound 210.0 us (H2D copies 102.0 us, D2H copies 0.0 us, kernels 210.0 us, longest path 200.0 us, engine with fill and drain 210.0 us, device idle for the host 0.0 us; host 0.0 us in runtime calls}}
func.func @policy_example(%host: memref<1375000xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<1375000xf32>
  %b = vyre.alloc : memref<1375000xf32>
  vyre.copy_h2d %host to %a : memref<1375000xf32> to memref<1375000xf32>
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<1375000xf32>) access [readwrite] {vyre.cost_us = 200.0}
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1375000xf32>) access [readwrite]
  return
}
// OVERLAP: makespan 210.0 us, device time 312.0 us, bound 210.0 us
// With the default kernel cost at 50 us, and the copy at 110 GB/s without
// latency (50 us):
// OPTIONS: makespan 300.0 us, device time 300.0 us, bound 250.0 us (H2D copies 50.0 us, D2H copies 0.0 us, kernels 250.0 us
// TRACE-DAG: "name": "side stream 1"
// TRACE-DAG: "name": "main stream"
// TRACE-DAG: "name": "H2D copy engine 0"
// TRACE-DAG: "name": "vyre.copy_h2d_async"
// TRACE-DAG: "ph": "X"
// Tests that a trace keeps the events of every function, and that each event
// names its kernel, slots, bytes and source location.
// TWO-DAG: "name": "@first streams"
// TWO-DAG: "name": "@first engines"
// TWO-DAG: "name": "@second streams"
// TWO-DAG: "name": "@second engines"
// TWO-DAG: "kernel": "@k::@first_kernel"
// TWO-DAG: "kernel": "@k::@second_kernel"
// TWO-DAG: "bytes": 4096
// TWO-DAG: "buffer": "slot 1"
// TWO-DAG: "location": "{{.*}}two-functions.mlir:10:5"

// -----

// Tests that a loop with a constant trip count runs that many times, and
// that a D2H copy holds the host.
gpu.module @k {
  func.func private @kernel(%x: memref<1024xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 402.1 us, device time 402.1 us, bound 402.1 us (H2D copies 0.0 us, D2H copies 2.1 us, kernels 400.0 us, longest path 402.1 us, engine with fill and drain 402.1 us, device idle for the host 0.0 us; host 0.0 us in runtime calls}}
func.func @loop(%out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = vyre.alloc : memref<1024xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) access [readwrite] {vyre.cost_us = 100.0}
  }
  vyre.copy_d2h %a to %out : memref<1024xf32> to memref<1024xf32>
  return
}

// -----

// Tests that a copy of a dynamically sized buffer cannot be timed.
func.func @dynamic_copy(%h: memref<?xf32>, %n: index) {
  %d = vyre.alloc(%n) : memref<?xf32>
  // expected-error @+1 {{'vyre.copy_h2d' op copies a buffer of dynamic size ('memref<?xf32>'), which --vyre-simulate cannot time}}
  vyre.copy_h2d %h to %d : memref<?xf32> to memref<?xf32>
  return
}

// -----

// Tests that vyre ops in a region op the simulator cannot run are refused.
func.func @while_loop(%h: memref<16xf32>, %c: i1) {
  %a = vyre.alloc : memref<16xf32>
  // expected-error @+1 {{'scf.while' op holds vyre ops in a region --vyre-simulate cannot run (only scf.for, scf.if and scf.execute_region)}}
  scf.while : () -> () {
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    scf.condition(%c)
  } do {
    scf.yield
  }
  return
}

// -----

// Tests that a token the simulator cannot resolve (here a function argument)
// is refused.
func.func @argument_token(%t: !vyre.token) {
  // expected-error @+1 {{'vyre.wait' op uses a token --vyre-simulate cannot resolve}}
  vyre.wait %t
  return
}

// -----

// Tests that a region of several blocks is refused.
func.func @unstructured(%h: memref<16xf32>, %c: i1) {
  %d = vyre.alloc : memref<16xf32>
  // expected-error @+1 {{'scf.execute_region' op has a region of several blocks, which --vyre-simulate cannot run}}
  scf.execute_region {
    cf.cond_br %c, ^a, ^b
  ^a:
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
    scf.yield
  ^b:
    scf.yield
  }
  return
}

// -----

// Tests that copies of elements without a bit width of their own are timed by
// their size in memory: 4 indices (32 bytes) and 4 vectors of 4 floats (64
// bytes), each about 2.0 us with the default copy latency. The bound is the
// copy engine's 4 us and the kernel that must follow the last copy.
gpu.module @k {
  func.func private @kernel(%x: memref<4xindex>, %y: memref<4xvector<4xf32>>) attributes {gpu.kernel}
}
// expected-remark @+1 {{makespan 14.0 us, device time 14.0 us, bound 14.0 us (H2D copies 4.0 us, D2H copies 0.0 us, kernels 10.0 us, longest path 12.0 us, engine with fill and drain 14.0 us, device idle for the host 0.0 us; host 0.0 us in runtime calls}}
func.func @element_sizes(%h: memref<4xindex> {vyre.pinned, llvm.noalias},
                         %v: memref<4xvector<4xf32>> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<4xindex>
  %b = vyre.alloc : memref<4xvector<4xf32>>
  vyre.copy_h2d %h to %a : memref<4xindex> to memref<4xindex>
  vyre.copy_h2d %v to %b : memref<4xvector<4xf32>> to memref<4xvector<4xf32>>
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<4xindex>, memref<4xvector<4xf32>>) access [read, read]
  return
}

// -----

// Tests that a copy of elements whose size is unknown (here memrefs) is an
// error naming the type, not a crash.
func.func @unknown_element_size(%h: memref<4xmemref<2xf32>> {vyre.pinned, llvm.noalias}) {
  %a = vyre.alloc : memref<4xmemref<2xf32>>
  // expected-error @+1 {{'vyre.copy_h2d' op copies elements of type 'memref<2xf32>', whose size --vyre-simulate does not know}}
  vyre.copy_h2d %h to %a : memref<4xmemref<2xf32>> to memref<4xmemref<2xf32>>
  return
}

