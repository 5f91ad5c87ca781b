// Layer-by-layer weight streaming through a four-layer MLP: each layer's
// 8 MiB of weights (about 155 us at 55 GB/s) is copied in just before the
// layer (150 us) runs. Ideal: each copy hides under the layer before it.
module {
  gpu.module @k {
    func.func private @dense(%w: memref<2097152xf32>, %x: memref<4096xf32>, %y: memref<4096xf32>) attributes {gpu.kernel}
  }
  func.func @mlp(%input: memref<4096xf32> {vyre.pinned, llvm.noalias},
                 %w0: memref<2097152xf32> {vyre.pinned, llvm.noalias},
                 %w1: memref<2097152xf32> {vyre.pinned, llvm.noalias},
                 %w2: memref<2097152xf32> {vyre.pinned, llvm.noalias},
                 %w3: memref<2097152xf32> {vyre.pinned, llvm.noalias},
                 %output: memref<4096xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<4096xf32>
    %y = vyre.alloc : memref<4096xf32>
    %d0 = vyre.alloc : memref<2097152xf32>
    %d1 = vyre.alloc : memref<2097152xf32>
    %d2 = vyre.alloc : memref<2097152xf32>
    %d3 = vyre.alloc : memref<2097152xf32>
    vyre.copy_h2d %input to %x : memref<4096xf32> to memref<4096xf32>
    vyre.copy_h2d %w0 to %d0 : memref<2097152xf32> to memref<2097152xf32>
    vyre.dispatch @k::@dense blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d0, %x, %y : memref<2097152xf32>, memref<4096xf32>, memref<4096xf32>)
        access [read, read, write] {vyre.cost_us = 150.0}
    vyre.copy_h2d %w1 to %d1 : memref<2097152xf32> to memref<2097152xf32>
    vyre.dispatch @k::@dense blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d1, %y, %x : memref<2097152xf32>, memref<4096xf32>, memref<4096xf32>)
        access [read, read, write] {vyre.cost_us = 150.0}
    vyre.copy_h2d %w2 to %d2 : memref<2097152xf32> to memref<2097152xf32>
    vyre.dispatch @k::@dense blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d2, %x, %y : memref<2097152xf32>, memref<4096xf32>, memref<4096xf32>)
        access [read, read, write] {vyre.cost_us = 150.0}
    vyre.copy_h2d %w3 to %d3 : memref<2097152xf32> to memref<2097152xf32>
    vyre.dispatch @k::@dense blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d3, %y, %x : memref<2097152xf32>, memref<4096xf32>, memref<4096xf32>)
        access [read, read, write] {vyre.cost_us = 150.0}
    vyre.copy_d2h %x to %output : memref<4096xf32> to memref<4096xf32>
    return
  }
}
