// A tiled loop over 15 tiles: each tile brings two 2 MiB operands (~40 us
// each) from rows of pinned host arrays and runs a 90 us kernel that
// accumulates into one device buffer. --vyre-pipeline-loops double-buffers
// both operands; the odd last tile runs as written.
module {
  gpu.module @k {
    func.func private @tile(%a: memref<524288xf32>, %b: memref<524288xf32>, %acc: memref<4096xf32>) attributes {gpu.kernel}
  }
  func.func @tiled(%as: memref<15x524288xf32> {vyre.pinned, llvm.noalias},
                   %bs: memref<15x524288xf32> {vyre.pinned, llvm.noalias},
                   %result: memref<4096xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tiles = arith.constant 15 : index
    %a = vyre.alloc : memref<524288xf32>
    %b = vyre.alloc : memref<524288xf32>
    %acc = vyre.alloc : memref<4096xf32>
    scf.for %t = %c0 to %tiles step %c1 {
      %arow = memref.subview %as[%t, 0] [1, 524288] [1, 1] : memref<15x524288xf32> to memref<524288xf32, strided<[1], offset: ?>>
      %brow = memref.subview %bs[%t, 0] [1, 524288] [1, 1] : memref<15x524288xf32> to memref<524288xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %arow to %a : memref<524288xf32, strided<[1], offset: ?>> to memref<524288xf32>
      vyre.copy_h2d %brow to %b : memref<524288xf32, strided<[1], offset: ?>> to memref<524288xf32>
      vyre.dispatch @k::@tile blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%a, %b, %acc : memref<524288xf32>, memref<524288xf32>, memref<4096xf32>) access [read, read, readwrite] {vyre.cost_us = 90.0}
    }
    vyre.copy_d2h %acc to %result : memref<4096xf32> to memref<4096xf32>
    return
  }
}
