// Runs %nb batches (rows of a host array) through %nl layers (rows of a
// weights array) and copies each result back into its row: an outer loop
// over batches around an inner loop over layers, both with trip counts that
// are arguments.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @layer(%w: memref<64xf32>, %x: memref<64xf32>) kernel {
      %i = gpu.global_id x
      %a = memref.load %w[%i] : memref<64xf32>
      %b = memref.load %x[%i] : memref<64xf32>
      %c = arith.addf %a, %b : f32
      memref.store %c, %x[%i] : memref<64xf32>
      gpu.return
    }
  }
  func.func @layered_batches(%inputs: memref<8x64xf32> {vyre.pinned, llvm.noalias},
                             %weights: memref<8x64xf32> {vyre.pinned, llvm.noalias},
                             %outputs: memref<8x64xf32> {vyre.pinned, llvm.noalias},
                             %nb: index, %nl: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %x = vyre.alloc : memref<64xf32>
    %w = vyre.alloc : memref<64xf32>
    scf.for %b = %c0 to %nb step %c1 {
      %in = memref.subview %inputs[%b, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      %out = memref.subview %outputs[%b, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
      scf.for %l = %c0 to %nl step %c1 {
        %row = memref.subview %weights[%l, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %w : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
        vyre.dispatch @kernels::@layer blocks(%c1, %c1, %c1) threads(%c64, %c1, %c1)
            args(%w, %x : memref<64xf32>, memref<64xf32>) access [read, readwrite]
      }
      vyre.copy_d2h %x to %out : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %w : memref<64xf32>
    return
  }
}
