// Column tiles of a row-major host matrix on the GPU: a 2048 x 8192 fp32
// matrix (64 MiB, pinned) is processed in 4 tiles of 2048 x 2048 (16 MiB
// each): 2048 rows of 8 KiB, 32 KiB apart in the host matrix. Each tile
// comes in with one 2-D copy (vyreMemcpy2DAsync: cuMemcpy2DAsync), a
// compute-bound kernel rewrites it, and it goes back into the same columns of
// the result. Pipelined, tile t+1's copy in and tile t-1's copy back run
// beside tile t's kernel. The serial build's copy time against the tiles'
// bytes measures what a 2-D copy of 8 KiB rows costs on this GPU.
//
// Copy-bound: each tile moves in ~305 us at 55 GB/s (and back as long, on
// the other copy engine), against ~32 us for its kernel as
// --vyre-estimate-kernel-costs estimates it. Reference, simulated without
// runtime overheads: the four copies in back to back, then the last tile's
// kernel and copy back, about 4 x 307 + 32 + 307 = 1567 us: the simulator's
// bound, its H2D engine's work with the fill and drain around it.
module {
  gpu.module @kernels {
    // x[r][c] = f(x[r][c]), iterated 256 times.
    gpu.func @tile(%x: memref<2048x2048xf32>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %width = arith.constant 2048 : index
      %steps = arith.constant 256 : index
      %b = arith.constant 0.001 : f32
      %r = arith.divui %i, %width : index
      %c = arith.remui %i, %width : index
      %x0 = memref.load %x[%r, %c] : memref<2048x2048xf32>
      %v = scf.for %k = %c0 to %steps step %c1 iter_args(%s = %x0) -> (f32) {
        %m = math.fma %s, %b, %b : f32
        scf.yield %m : f32
      }
      memref.store %v, %x[%r, %c] : memref<2048x2048xf32>
      gpu.return
    }
  }

  func.func @tiled_columns(%matrix: memref<2048x8192xf32> {vyre.pinned, llvm.noalias},
                           %result: memref<2048x8192xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c2048 = arith.constant 2048 : index
    %blocks = arith.constant 16384 : index
    %x = vyre.alloc : memref<2048x2048xf32>
    scf.for %t = %c0 to %c4 step %c1 {
      %column = arith.muli %t, %c2048 : index
      %in = memref.subview %matrix[0, %column] [2048, 2048] [1, 1] : memref<2048x8192xf32> to memref<2048x2048xf32, strided<[8192, 1], offset: ?>>
      %out = memref.subview %result[0, %column] [2048, 2048] [1, 1] : memref<2048x8192xf32> to memref<2048x2048xf32, strided<[8192, 1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<2048x2048xf32, strided<[8192, 1], offset: ?>> to memref<2048x2048xf32>
      vyre.dispatch @kernels::@tile blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
          args(%x : memref<2048x2048xf32>)
      vyre.copy_d2h %x to %out : memref<2048x2048xf32> to memref<2048x2048xf32, strided<[8192, 1], offset: ?>>
    }
    vyre.dealloc %x : memref<2048x2048xf32>
    return
  }
}
