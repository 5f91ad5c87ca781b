// RUN: vyre-opt %s --vyre-kernel-access --vyre-function-effects --overlap-copies="cost-model=false async-d2h=false" | FileCheck %s
// Both referees accept the result, the gpu-level one told what calls touch
// by vyre.effects, which the pipeline then drops.
// RUN: vyre-opt %s --vyre-to-gpu-pipeline="cost-model=false verify=true" | FileCheck %s --check-prefix=LOWERED
// RUN: vyre-opt %s --vyre-kernel-access --vyre-function-effects --overlap-copies=cost-model=false --remarks-filter=overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A call is judged by its callee's vyre.effects: computed from the body for
// a function defined here (--vyre-function-effects), declared on an external
// one. Without it, the call may touch anything.

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Touches only its own memory.
func.func @checksum(%x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  return %y : f32
}
// Writes its argument on the host.
func.func @fill(%h: memref<16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  memref.store %v, %h[%c0] : memref<16xf32>
  return
}
func.func private @log_row(memref<16xf32>) attributes {vyre.effects = "arguments"}
func.func private @opaque()

// Tests that a copy stays in flight across a call that touches nothing and
// one that touches another buffer, and is waited for before a call that
// writes its source and before one of unknown effect.
// CHECK-LABEL: func.func @calls_around_a_copy
// CHECK-SAME: (%[[H:[^:]+]]: memref<16xf32> {{.*}}, %[[OTHER:[^:]+]]: memref<16xf32>
// CHECK: %[[T:.+]] = vyre.copy_h2d_async %[[H]] to
// CHECK: call @checksum
// CHECK-NEXT: call @log_row(%[[OTHER]])
// CHECK-NEXT: %[[U:.+]] = vyre.copy_h2d_async %[[OTHER]]
// CHECK-NEXT: vyre.dispatch @k::@read
// CHECK-NEXT: vyre.sync %[[T]]
// CHECK-NEXT: call @fill(%[[H]]
// CHECK-NEXT: vyre.sync %[[U]]
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: vyre.sync %[[R]]
// CHECK-NEXT: call @opaque
// LOWERED-NOT: vyre.effects
// LOWERED-LABEL: func.func @calls_around_a_copy
// LOWERED-NOT: vyre.{{copy|dispatch|sync|record|wait}}
// LOWERED: gpu.memcpy async
// LOWERED: call @checksum
// LOWERED-NEXT: call @log_row
// REMARK: remark: [Missed] UnknownCall | {{.*}} Function=calls_around_a_copy | Remark="call to @opaque may touch any buffer
// REMARK-NOT: UnknownCall
func.func @calls_around_a_copy(%h: memref<16xf32> {vyre.pinned, llvm.noalias},
                               %other: memref<16xf32> {llvm.noalias}, %x: f32) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  %s = func.call @checksum(%x) : (f32) -> f32
  func.call @log_row(%other) : (memref<16xf32>) -> ()
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  func.call @fill(%h, %s) : (memref<16xf32>, f32) -> ()
  vyre.copy_h2d %other to %c : memref<16xf32> to memref<16xf32>
  func.call @opaque() : () -> ()
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}
