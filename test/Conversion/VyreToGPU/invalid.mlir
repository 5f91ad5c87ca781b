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

// Tests that a copy of a view that is neither contiguous nor the rows of a
// 2-D tile cannot be lowered: here the inner two of three dimensions are not
// one contiguous run. Contiguous views (contiguous-views.mlir) and tiles
// (tile-copies.mlir) can.
func.func @not_a_tile(%h: memref<2x4x32xf32>) {
  %d = vyre.alloc : memref<2x4x64xf32>
  %view = memref.subview %d[0, 0, 0] [2, 4, 32] [1, 1, 1] : memref<2x4x64xf32> to memref<2x4x32xf32, strided<[256, 64, 1]>>
  // expected-error @+1 {{'vyre.copy_h2d' op cannot be lowered: 'target' is a view of type 'memref<2x4x32xf32, strided<[256, 64, 1]>>', which is neither contiguous nor the rows of a 2-D tile (or has a dynamic shape, or dynamic strides inside a row); a copy moves one contiguous range (gpu.memcpy) or one 2-D tile (vyreMemcpy2DAsync)}}
  vyre.copy_h2d %h to %view : memref<2x4x32xf32> to memref<2x4x32xf32, strided<[256, 64, 1]>>
  return
}

// -----

// Tests that a view whose elements inside a row are a dynamic stride apart
// cannot be copied back into.
func.func @dynamic_inner_stride(%h: memref<16x64xf32>, %step: index) {
  %d = vyre.alloc : memref<4x8xf32>
  %view = memref.subview %h[0, 0] [4, 8] [1, %step] : memref<16x64xf32> to memref<4x8xf32, strided<[64, ?]>>
  // expected-error @+1 {{'vyre.copy_d2h' op cannot be lowered: 'target' is a view of type 'memref<4x8xf32, strided<[64, ?]>>', which is neither contiguous nor the rows of a 2-D tile}}
  vyre.copy_d2h %d to %view : memref<4x8xf32> to memref<4x8xf32, strided<[64, ?]>>
  return
}

// -----

// Tests that a tile whose rows overlap (a row stride smaller than a row)
// cannot be copied into: the copy would write some elements twice.
func.func @overlapping_rows(%h: memref<4x32xf32>) {
  %d = vyre.alloc : memref<128xf32>
  %view = memref.reinterpret_cast %d to offset: [0], sizes: [4, 32], strides: [16, 1] : memref<128xf32> to memref<4x32xf32, strided<[16, 1]>>
  // expected-error @+1 {{'vyre.copy_h2d' op cannot be lowered: 'target' is a view of type 'memref<4x32xf32, strided<[16, 1]>>', whose rows overlap (a stride smaller than a row)}}
  vyre.copy_h2d %h to %view : memref<4x32xf32> to memref<4x32xf32, strided<[16, 1]>>
  return
}

// -----

// Tests that a buffer of dynamic shape cannot be copied to a tile: a tile
// copy needs static sizes.
func.func @dynamic_side(%h: memref<8x64xf32>, %n: index) {
  %d = vyre.alloc(%n) : memref<?x32xf32>
  %tile = memref.subview %h[0, 0] [%n, 32] [1, 1] : memref<8x64xf32> to memref<?x32xf32, strided<[64, 1]>>
  // expected-error @+1 {{'vyre.copy_h2d' op cannot be lowered: 'target' has the dynamic shape of 'memref<?x32xf32>', and the other side is a strided view, which is copied as a 2-D tile (vyreMemcpy2DAsync): that needs static sizes}}
  vyre.copy_h2d %tile to %d : memref<?x32xf32, strided<[64, 1]>> to memref<?x32xf32>
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
