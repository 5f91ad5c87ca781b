// A double-buffered loop on the GPU: each of 8 iterations streams two 8 MiB
// tiles into two buffers and runs a compute-bound kernel on each, adding
// into an accumulator that is copied back at the end. Within an iteration
// the second tile's copy can hide under the first tile's kernel; across
// iterations the host waits for the body's streams (docs/Lowering.md).
module {
  gpu.module @kernels {
    // acc[i] += f(x[i]), iterated 256 times.
    gpu.func @tile(%x: memref<2097152xf32>, %acc: memref<2097152xf32>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %steps = arith.constant 256 : index
      %b = arith.constant 0.001 : f32
      %xi = memref.load %x[%i] : memref<2097152xf32>
      %a0 = memref.load %acc[%i] : memref<2097152xf32>
      %scale = arith.mulf %xi, %b : f32
      %v = scf.for %k = %c0 to %steps step %c1 iter_args(%s = %a0) -> (f32) {
        %m = math.fma %s, %scale, %b : f32
        scf.yield %m : f32
      }
      memref.store %v, %acc[%i] : memref<2097152xf32>
      gpu.return
    }
  }

  func.func @double_buffered(%tiles: memref<2097152xf32> {vyre.pinned, llvm.noalias},
                             %more: memref<2097152xf32> {vyre.pinned, llvm.noalias},
                             %result: memref<2097152xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %blocks = arith.constant 8192 : index
    %a = vyre.alloc : memref<2097152xf32>
    %b = vyre.alloc : memref<2097152xf32>
    %acc = vyre.alloc : memref<2097152xf32>
    vyre.copy_h2d %result to %acc : memref<2097152xf32> to memref<2097152xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      vyre.copy_h2d %tiles to %a : memref<2097152xf32> to memref<2097152xf32>
      vyre.dispatch @kernels::@tile blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
          args(%a, %acc : memref<2097152xf32>, memref<2097152xf32>)
      vyre.copy_h2d %more to %b : memref<2097152xf32> to memref<2097152xf32>
      vyre.dispatch @kernels::@tile blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
          args(%b, %acc : memref<2097152xf32>, memref<2097152xf32>)
    }
    vyre.copy_d2h %acc to %result : memref<2097152xf32> to memref<2097152xf32>
    vyre.dealloc %a : memref<2097152xf32>
    vyre.dealloc %b : memref<2097152xf32>
    vyre.dealloc %acc : memref<2097152xf32>
    return
  }
}
