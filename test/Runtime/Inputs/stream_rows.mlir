// Streams %n rows of a host array through a kernel and back: a loop whose
// trip count is an argument.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @double(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %i = gpu.global_id x
      %v = memref.load %x[%i] : memref<64xf32>
      %d = arith.addf %v, %v : f32
      memref.store %d, %y[%i] : memref<64xf32>
      gpu.return
    }
  }
  func.func @stream_rows(%inputs: memref<8x64xf32> {vyre.pinned, llvm.noalias},
                         %outputs: memref<8x64xf32> {vyre.pinned, llvm.noalias},
                         %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %x = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      %in = memref.subview %inputs[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      %out = memref.subview %outputs[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
      vyre.dispatch @kernels::@double blocks(%c1, %c1, %c1) threads(%c64, %c1, %c1)
          args(%x, %y : memref<64xf32>, memref<64xf32>) access [read, overwrite]
      vyre.copy_d2h %y to %out : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}
