// RUN: vyre-opt %s --vyre-function-effects --split-input-file | FileCheck %s

// --vyre-function-effects records on each host function with a body what a
// call to it may touch.

// Tests the three outcomes: only its own allocations ("none"), its
// arguments on the host or through vyre ops ("arguments"), and anything (a
// global: no attribute).
memref.global "private" @table : memref<16xf32> = dense<0.0>
gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @local_only
// CHECK-SAME: vyre.effects = "none"
func.func @local_only(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %m = memref.alloca() : memref<4xf32>
  memref.store %x, %m[%c0] : memref<4xf32>
  %y = memref.load %m[%c0] : memref<4xf32>
  return %y : f32
}
// CHECK-LABEL: func.func @writes_argument
// CHECK-SAME: vyre.effects = "arguments"
func.func @writes_argument(%h: memref<16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  memref.store %v, %h[%c0] : memref<16xf32>
  return
}
// CHECK-LABEL: func.func @device_work_on_argument
// CHECK-SAME: vyre.effects = "arguments"
func.func @device_work_on_argument(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dealloc %a : memref<16xf32>
  return
}
// CHECK-LABEL: func.func @touches_global
// CHECK-NOT: vyre.effects
// CHECK-SAME: {
func.func @touches_global(%v: f32) attributes {vyre.effects = "none"} {
  %c0 = arith.constant 0 : index
  %g = memref.get_global @table : memref<16xf32>
  memref.store %v, %g[%c0] : memref<16xf32>
  return
}

// -----

// Tests calls: a call takes its callee's effects, through a chain; a call to
// an external declaration keeps what the declaration promises; a call of
// unknown effect, or in a cycle, makes the caller unknown.
// CHECK: func.func private @declared_none() attributes {vyre.effects = "none"}
func.func private @declared_none() attributes {vyre.effects = "none"}
func.func private @declared_arguments(memref<16xf32>) attributes {vyre.effects = "arguments"}
func.func private @undeclared()
// CHECK-LABEL: func.func @calls_none
// CHECK-SAME: vyre.effects = "none"
func.func @calls_none() {
  func.call @declared_none() : () -> ()
  return
}
// CHECK-LABEL: func.func @passes_local_buffer
// CHECK-SAME: vyre.effects = "none"
func.func @passes_local_buffer() {
  %m = memref.alloc() : memref<16xf32>
  func.call @declared_arguments(%m) : (memref<16xf32>) -> ()
  memref.dealloc %m : memref<16xf32>
  return
}
// CHECK-LABEL: func.func @passes_argument
// CHECK-SAME: vyre.effects = "arguments"
func.func @passes_argument(%h: memref<16xf32>) {
  func.call @declared_arguments(%h) : (memref<16xf32>) -> ()
  return
}
// CHECK-LABEL: func.func @chain
// CHECK-SAME: vyre.effects = "arguments"
func.func @chain(%h: memref<16xf32>) {
  func.call @passes_argument(%h) : (memref<16xf32>) -> ()
  return
}
// CHECK-LABEL: func.func @calls_undeclared
// CHECK-NOT: vyre.effects
// CHECK-SAME: {
func.func @calls_undeclared() {
  func.call @undeclared() : () -> ()
  return
}
// CHECK-LABEL: func.func @recursive
// CHECK-NOT: vyre.effects
// CHECK-SAME: {
func.func @recursive(%n: index) {
  func.call @recursive(%n) : (index) -> ()
  return
}
