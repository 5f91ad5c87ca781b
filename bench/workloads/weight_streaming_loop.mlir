// Weight streaming over an scf.for of 12 layers: each layer's 16 MiB of
// weights (~307 us to copy) is a row of one pinned host array, copied into
// one device buffer the layer's 300 us kernel reads. Written this way, each
// copy waits for the kernel before it (the buffer is reused);
// --vyre-pipeline-loops gives the loop a second buffer and copies layer
// i + 1 while layer i computes.
module {
  gpu.module @k {
    func.func private @layer(%w: memref<4194304xf32>, %act: memref<65536xf32>) attributes {gpu.kernel}
  }
  func.func @weight_streaming_loop(%weights: memref<12x4194304xf32> {vyre.pinned, llvm.noalias},
                                   %input: memref<65536xf32> {vyre.pinned, llvm.noalias},
                                   %output: memref<65536xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c12 = arith.constant 12 : index
    %w = vyre.alloc : memref<4194304xf32>
    %act = vyre.alloc : memref<65536xf32>
    vyre.copy_h2d %input to %act : memref<65536xf32> to memref<65536xf32>
    scf.for %l = %c0 to %c12 step %c1 {
      %row = memref.subview %weights[%l, 0] [1, 4194304] [1, 1] : memref<12x4194304xf32> to memref<4194304xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %w : memref<4194304xf32, strided<[1], offset: ?>> to memref<4194304xf32>
      vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%w, %act : memref<4194304xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 300.0}
    }
    vyre.copy_d2h %act to %output : memref<65536xf32> to memref<65536xf32>
    vyre.dealloc %w : memref<4194304xf32>
    vyre.dealloc %act : memref<65536xf32>
    return
  }
}
