// A double-buffered loop: each of 8 iterations streams two 8 MiB tiles
// (~155 us each) into two buffers and runs a 200 us kernel on each. Within an
// iteration the second tile's copy can hide under the first tile's kernel.
module {
  gpu.module @k {
    func.func private @tile(%x: memref<2097152xf32>, %acc: memref<1024xf32>) attributes {gpu.kernel}
  }
  func.func @double_buffered(%tiles: memref<2097152xf32> {vyre.pinned, llvm.noalias},
                             %more: memref<2097152xf32> {vyre.pinned, llvm.noalias},
                             %result: memref<1024xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %a = vyre.alloc : memref<2097152xf32>
    %b = vyre.alloc : memref<2097152xf32>
    %acc = vyre.alloc : memref<1024xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      vyre.copy_h2d %tiles to %a : memref<2097152xf32> to memref<2097152xf32>
      vyre.dispatch @k::@tile blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%a, %acc : memref<2097152xf32>, memref<1024xf32>) access [read, readwrite] {vyre.cost_us = 200.0}
      vyre.copy_h2d %more to %b : memref<2097152xf32> to memref<2097152xf32>
      vyre.dispatch @k::@tile blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%b, %acc : memref<2097152xf32>, memref<1024xf32>) access [read, readwrite] {vyre.cost_us = 200.0}
    }
    vyre.copy_d2h %acc to %result : memref<1024xf32> to memref<1024xf32>
    return
  }
}
