// Copies %inputs to %outputs through device memory one column tile at a
// time: each tile is 4 rows of 32 elements, 64 elements apart in the host
// arrays (a strided 2-D view), which the lowering copies with
// vyreMemcpy2DAsync. A kernel reads each tile on the device.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @use_tile(%x: memref<4x32xf32>) kernel {
      gpu.return
    }
  }
  func.func @copy_tiles(%inputs: memref<4x64xf32> {vyre.pinned, llvm.noalias},
                        %outputs: memref<4x64xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %x = vyre.alloc : memref<4x32xf32>
    scf.for %j = %c0 to %c2 step %c1 {
      %column = arith.muli %j, %c32 : index
      %in = memref.subview %inputs[0, %column] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: ?>>
      %out = memref.subview %outputs[0, %column] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<4x32xf32, strided<[64, 1], offset: ?>> to memref<4x32xf32>
      vyre.dispatch @k::@use_tile blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4x32xf32>) access [read]
      vyre.copy_d2h %x to %out : memref<4x32xf32> to memref<4x32xf32, strided<[64, 1], offset: ?>>
    }
    vyre.dealloc %x : memref<4x32xf32>
    return
  }
}
