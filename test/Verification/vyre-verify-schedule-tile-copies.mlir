// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-verify-schedule --verify-diagnostics

// Tests the vyre-level referee on tile copies (strided 2-D views, lowered
// as vyreMemcpy2DAsync): copies back on two side streams into disjoint
// column tiles of one host array do not race.
func.func @disjoint_tiles(%h: memref<4x64xf32> {vyre.pinned, llvm.noalias}) {
  %a = vyre.alloc : memref<4x32xf32>
  %b = vyre.alloc : memref<4x32xf32>
  %left = memref.subview %h[0, 0] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1]>>
  %right = memref.subview %h[0, 32] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: 32>>
  %t1 = vyre.copy_d2h_async %a to %left on stream 1 : memref<4x32xf32> to memref<4x32xf32, strided<[64, 1]>>
  %t2 = vyre.copy_d2h_async %b to %right on stream 2 : memref<4x32xf32> to memref<4x32xf32, strided<[64, 1], offset: 32>>
  vyre.sync %t1, %t2
  vyre.dealloc %a : memref<4x32xf32>
  vyre.dealloc %b : memref<4x32xf32>
  return
}

// -----

// Tests that tiles sharing columns (0..31 and 16..47) race.
func.func @overlapping_tiles(%h: memref<4x64xf32> {vyre.pinned, llvm.noalias}) {
  %a = vyre.alloc : memref<4x32xf32>
  %b = vyre.alloc : memref<4x32xf32>
  %left = memref.subview %h[0, 0] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1]>>
  %middle = memref.subview %h[0, 16] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: 16>>
  // expected-note @+1 {{the earlier op}}
  %t1 = vyre.copy_d2h_async %a to %left on stream 1 : memref<4x32xf32> to memref<4x32xf32, strided<[64, 1]>>
  // expected-error @+1 {{race on slot 0: 'vyre.copy_d2h_async' and the earlier 'vyre.copy_d2h_async' are not ordered}}
  %t2 = vyre.copy_d2h_async %b to %middle on stream 2 : memref<4x32xf32> to memref<4x32xf32, strided<[64, 1], offset: 16>>
  vyre.sync %t1, %t2
  vyre.dealloc %a : memref<4x32xf32>
  vyre.dealloc %b : memref<4x32xf32>
  return
}
