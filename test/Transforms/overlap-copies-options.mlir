// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false side-streams=2 order-copies=false order-kernels=false" | FileCheck %s --check-prefix=STREAMS
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false hoist=false" | FileCheck %s --check-prefix=NOHOIST
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false | FileCheck %s --check-prefix=DEFAULT
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false side-streams=2" --vyre-verify-schedule -o /dev/null
// Running the pass twice gives the same IR as once.
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false > %t.once.mlir
// RUN: vyre-opt %t.once.mlir --vyre-kernel-access --overlap-copies=cost-model=false > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// The options of --overlap-copies: side-streams and hoist.

gpu.module @k {
  // Reads its argument.
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
  // Writes its argument.
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that side-streams=2 spreads independent copies over both side
// streams, keeps a copy that depends on another on that copy's stream (behind
// the copies before it there), and that by default every copy uses stream 1.
// (order-copies=false and order-kernels=false keep the copies in the input's
// order, which this case is about; overlap-copies-order.mlir and
// overlap-copies-order-kernels.mlir test the orders.)
// STREAMS-LABEL: func.func @spread
// DEFAULT-LABEL: func.func @spread
func.func @spread(%h: memref<16xf32> {llvm.noalias}, %g: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  // STREAMS: %[[TA:.+]] = vyre.copy_h2d_async %{{.+}} to %[[A:[^ ]+]] on stream 1 :
  // STREAMS: vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 2 :
  // STREAMS: vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1 :
  // STREAMS-NEXT: vyre.copy_h2d_async %{{.+}} to %[[A]] on stream 1 after [%[[TA]]]
  // DEFAULT-COUNT-4: on stream 1
  // DEFAULT-NOT: on stream 2
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %c : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %g to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests that hoist=false converts copies in place, still waiting only where
// an op conflicts, while the default moves the copy above the unrelated
// kernel.
// NOHOIST-LABEL: func.func @in_place
// DEFAULT-LABEL: func.func @in_place
func.func @in_place(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // NOHOIST: vyre.dispatch @k::@write
  // NOHOIST-NEXT: %[[T:.+]] = vyre.copy_h2d_async
  // NOHOIST-NEXT: vyre.dispatch @k::@read
  // NOHOIST-NEXT: vyre.wait %[[T]]
  // NOHOIST-NEXT: vyre.dispatch @k::@read
  // DEFAULT: vyre.copy_h2d_async
  // DEFAULT-NEXT: vyre.dispatch @k::@write
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// Tests that with two side streams a copy into an argument that may alias the
// source of copies on both streams waits for the last of them on each.
// STREAMS-LABEL: func.func @aliasing_on_two_streams
// DEFAULT-LABEL: func.func @aliasing_on_two_streams
func.func @aliasing_on_two_streams(%h: memref<16xf32>, %g: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // STREAMS: %[[TA:.+]] = vyre.copy_h2d_async %[[H:[^ ]+]] to %{{.+}} on stream 1 :
  // STREAMS: %[[TB:.+]] = vyre.copy_h2d_async %[[H]] to %{{.+}} on stream 2 :
  // STREAMS: vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1 after [{{.*}}%[[TA]]{{.*}}%[[TB]]{{.*}}]
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %h to %g : memref<16xf32> to memref<16xf32>
  return
}
