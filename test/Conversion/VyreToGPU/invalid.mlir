// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --verify-diagnostics

// Tests that a dispatch of a kernel without a body cannot be lowered.
gpu.module @k {
  func.func private @opaque(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @bodiless_kernel(%x: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op cannot be lowered: kernel @k::@opaque has no body (a bodiless declaration cannot be launched with gpu.launch_func)}}
  vyre.dispatch @k::@opaque blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>) access [read]
  return
}

// -----

// Tests that a copy of a non-contiguous view cannot be lowered (gpu.memcpy
// copies one contiguous range); contiguous views with an offset can
// (contiguous-views.mlir).
func.func @strided_view(%h: memref<16xf32>) {
  %d = vyre.alloc : memref<32xf32>
  %view = memref.subview %d[0] [16] [2] : memref<32xf32> to memref<16xf32, strided<[2]>>
  // expected-error @+1 {{'vyre.copy_h2d' op cannot be lowered: 'target' is a view of type 'memref<16xf32, strided<[2]>>', which is not contiguous (or has a dynamic shape); gpu.memcpy copies one contiguous range}}
  vyre.copy_h2d %h to %view : memref<16xf32> to memref<16xf32, strided<[2]>>
  return
}

// -----

// Tests that a column of a host array cannot be copied back into.
func.func @column(%h: memref<16x16xf32>, %j: index) {
  %d = vyre.alloc : memref<16xf32>
  %column = memref.subview %h[0, %j] [16, 1] [1, 1] : memref<16x16xf32> to memref<16xf32, strided<[16], offset: ?>>
  // expected-error @+1 {{'vyre.copy_d2h' op cannot be lowered: 'target' is a view of type 'memref<16xf32, strided<[16], offset: ?>>', which is not contiguous (or has a dynamic shape); gpu.memcpy copies one contiguous range}}
  vyre.copy_d2h %d to %column : memref<16xf32> to memref<16xf32, strided<[16], offset: ?>>
  return
}

// -----

// Tests that vyre ops in a region of several blocks are refused.
func.func @unstructured(%h: memref<16xf32>, %c: i1) {
  %d = vyre.alloc : memref<16xf32>
  // expected-error @+1 {{'scf.execute_region' op has a region of 3 blocks with vyre ops: --convert-vyre-to-gpu lowers structured control flow (one block per region) only}}
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

// Tests that a vyre op outside a function is refused.
module {
  // expected-error @+1 {{'vyre.record' op was not lowered by --convert-vyre-to-gpu: vyre ops must be inside a function}}
  %t = vyre.record
}

// -----

// Tests that a token the lowering did not make (here a function argument)
// cannot be waited for: nothing says which stream it stands for.
func.func @foreign_token(%t: !vyre.token) {
  // expected-error @+1 {{'vyre.wait' op cannot be lowered: token #0 is not made by a vyre op of this function earlier in program order (a block argument or a region result)}}
  vyre.wait %t
  return
}

// -----

// Tests that a token yielded out of a branch is refused, not lowered: the
// lowering erases the op that makes it.
func.func @yielded_token(%p: i1) {
  %t = scf.if %p -> !vyre.token {
    %r = vyre.record
    // expected-error @+1 {{'scf.yield' op cannot be lowered by --convert-vyre-to-gpu: operand #0 is a !vyre.token; a token can be used by vyre ops only (not yielded, carried through a loop, returned or passed to a call)}}
    scf.yield %r : !vyre.token
  } else {
    %r = vyre.record
    scf.yield %r : !vyre.token
  }
  return
}

// -----

// Tests the same for a token carried through a loop.
func.func @carried_token(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r0 = vyre.record
  %t = scf.for %i = %c0 to %n step %c1 iter_args(%x = %r0) -> !vyre.token {
    %r = vyre.record
    // expected-error @+1 {{'scf.yield' op cannot be lowered by --convert-vyre-to-gpu: operand #0 is a !vyre.token}}
    scf.yield %r : !vyre.token
  }
  return
}

// -----

// Tests that a vyre op in device code (the body of a gpu.launch) is refused
// instead of lowered to host stream calls inside the kernel.
func.func @vyre_op_in_launch_body(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    // expected-error @below {{'vyre.copy_d2h' op is in device code (the body of a 'gpu.launch'): vyre ops are host code that drives the device}}
    vyre.copy_d2h %a to %h : memref<16xf32> to memref<16xf32>
    gpu.terminator
  }
  vyre.dealloc %a : memref<16xf32>
  return
}
