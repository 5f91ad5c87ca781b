// Out-of-core tiled GEMM, after cuBLAS-XT and out-of-core BLAS: C = A x B
// for matrices kept in pinned host memory, 8192 x 16384 times 16384 x 8192
// in fp32, in 4096 x 4096 tiles (64 MiB each, ~1222 us at 55 GB/s). The
// host arrays are plain row-major matrices, so a tile is 4096 rows of 16 KiB
// each, 16384 (or 8192) elements apart: a strided 2-D view, which the
// lowering copies with one 2-D copy (vyreMemcpy2DAsync, cuMemcpy2DAsync),
// timed as its bytes. For each of the 2 x 2 tiles of C: a kernel
// clears the tile on the device (50 us), then for each of the 4 tiles along
// k the A and B tiles come in and a GEMM (4096^3 multiply-adds, 2640 us at
// ~52 TFLOP/s) accumulates into it; the tile goes back after its last GEMM.
//
// Bound: the kernels, 4 x (50 + 4 x 2640) us = 42440 us, plus what cannot
// overlap them: the first A and B tiles' copies before the first GEMM
// (~2444 us, beside which only the first clear, 50 us, runs) and the last C
// tile's copy back after the last GEMM (~1222 us). About 46056 us. Two
// tiles in per GEMM (~2444 us) fit beside it once A and B rotate, and each
// C tile's copy back beside the next tile's GEMMs once C rotates. (The
// simulator's bound, 43662 us, is the kernels and that drain: a clear needs
// no copy, so the least fill over the kernels is 0.)
module {
  gpu.module @k {
    func.func private @clear(%c: memref<4096x4096xf32>) attributes {gpu.kernel}
    func.func private @gemm(%a: memref<4096x4096xf32>, %b: memref<4096x4096xf32>, %c: memref<4096x4096xf32>) attributes {gpu.kernel}
  }
  func.func @tiled_gemm(%A: memref<8192x16384xf32> {vyre.pinned, llvm.noalias},
                        %B: memref<16384x8192xf32> {vyre.pinned, llvm.noalias},
                        %C: memref<8192x8192xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c4096 = arith.constant 4096 : index
    %a = vyre.alloc : memref<4096x4096xf32>
    %b = vyre.alloc : memref<4096x4096xf32>
    %c = vyre.alloc : memref<4096x4096xf32>
    scf.for %t = %c0 to %c4 step %c1 {
      %i = arith.divui %t, %c2 : index
      %j = arith.remui %t, %c2 : index
      %row = arith.muli %i, %c4096 : index
      %column = arith.muli %j, %c4096 : index
      vyre.dispatch @k::@clear blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%c : memref<4096x4096xf32>) access [overwrite] {vyre.cost_us = 50.0}
      scf.for %k = %c0 to %c4 step %c1 {
        %inner = arith.muli %k, %c4096 : index
        %at = memref.subview %A[%row, %inner] [4096, 4096] [1, 1] : memref<8192x16384xf32> to memref<4096x4096xf32, strided<[16384, 1], offset: ?>>
        %bt = memref.subview %B[%inner, %column] [4096, 4096] [1, 1] : memref<16384x8192xf32> to memref<4096x4096xf32, strided<[8192, 1], offset: ?>>
        vyre.copy_h2d %at to %a : memref<4096x4096xf32, strided<[16384, 1], offset: ?>> to memref<4096x4096xf32>
        vyre.copy_h2d %bt to %b : memref<4096x4096xf32, strided<[8192, 1], offset: ?>> to memref<4096x4096xf32>
        vyre.dispatch @k::@gemm blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%a, %b, %c : memref<4096x4096xf32>, memref<4096x4096xf32>, memref<4096x4096xf32>) access [read, read, readwrite] {vyre.cost_us = 2640.0}
      }
      %ct = memref.subview %C[%row, %column] [4096, 4096] [1, 1] : memref<8192x8192xf32> to memref<4096x4096xf32, strided<[8192, 1], offset: ?>>
      vyre.copy_d2h %c to %ct : memref<4096x4096xf32> to memref<4096x4096xf32, strided<[8192, 1], offset: ?>>
    }
    vyre.dealloc %a : memref<4096x4096xf32>
    vyre.dealloc %b : memref<4096x4096xf32>
    vyre.dealloc %c : memref<4096x4096xf32>
    return
  }
}
