// Copies each row of %inputs through device memory into the same row of
// %outputs: a loop over rows of host arrays, copied as contiguous views with
// an offset.
module attributes {gpu.container_module} {
  func.func @copy_rows(%inputs: memref<4x64xf32> {vyre.pinned, llvm.noalias},
                       %outputs: memref<4x64xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = vyre.alloc : memref<64xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %in = memref.subview %inputs[%i, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      %out = memref.subview %outputs[%i, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
      vyre.copy_d2h %x to %out : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<64xf32>
    return
  }
}
