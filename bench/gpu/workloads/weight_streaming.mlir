// Layer-by-layer weight streaming: four layers, each with 64 MiB of weights
// copied in before the layer runs. Serial: every copy waits for the layer
// before it; overlapped: each layer's weights stream in while the previous
// layer computes.
module {
  gpu.module @kernels {
    // y[i] = w[i] * y[i], iterated 2048 times: compute-bound.
    gpu.func @layer(%w: memref<16777216xf32>, %y: memref<16777216xf32>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %steps = arith.constant 2048 : index
      %b = arith.constant 0.001 : f32
      %wi = memref.load %w[%i] : memref<16777216xf32>
      %y0 = memref.load %y[%i] : memref<16777216xf32>
      %scale = arith.mulf %wi, %b : f32
      %v = scf.for %k = %c0 to %steps step %c1 iter_args(%acc = %y0) -> (f32) {
        %m = math.fma %acc, %scale, %b : f32
        scf.yield %m : f32
      }
      memref.store %v, %y[%i] : memref<16777216xf32>
      gpu.return
    }
  }

  func.func @stream(%x: memref<16777216xf32> {vyre.pinned, llvm.noalias},
                    %w0: memref<16777216xf32> {vyre.pinned, llvm.noalias},
                    %w1: memref<16777216xf32> {vyre.pinned, llvm.noalias},
                    %w2: memref<16777216xf32> {vyre.pinned, llvm.noalias},
                    %w3: memref<16777216xf32> {vyre.pinned, llvm.noalias},
                    %out: memref<16777216xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %blocks = arith.constant 65536 : index
    %y = vyre.alloc : memref<16777216xf32>
    %d0 = vyre.alloc : memref<16777216xf32>
    %d1 = vyre.alloc : memref<16777216xf32>
    %d2 = vyre.alloc : memref<16777216xf32>
    %d3 = vyre.alloc : memref<16777216xf32>
    vyre.copy_h2d %x to %y : memref<16777216xf32> to memref<16777216xf32>
    vyre.copy_h2d %w0 to %d0 : memref<16777216xf32> to memref<16777216xf32>
    vyre.dispatch @kernels::@layer blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
        args(%d0, %y : memref<16777216xf32>, memref<16777216xf32>)
    vyre.copy_h2d %w1 to %d1 : memref<16777216xf32> to memref<16777216xf32>
    vyre.dispatch @kernels::@layer blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
        args(%d1, %y : memref<16777216xf32>, memref<16777216xf32>)
    vyre.copy_h2d %w2 to %d2 : memref<16777216xf32> to memref<16777216xf32>
    vyre.dispatch @kernels::@layer blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
        args(%d2, %y : memref<16777216xf32>, memref<16777216xf32>)
    vyre.copy_h2d %w3 to %d3 : memref<16777216xf32> to memref<16777216xf32>
    vyre.dispatch @kernels::@layer blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
        args(%d3, %y : memref<16777216xf32>, memref<16777216xf32>)
    vyre.copy_d2h %y to %out : memref<16777216xf32> to memref<16777216xf32>
    vyre.dealloc %y : memref<16777216xf32>
    vyre.dealloc %d0 : memref<16777216xf32>
    vyre.dealloc %d1 : memref<16777216xf32>
    vyre.dealloc %d2 : memref<16777216xf32>
    vyre.dealloc %d3 : memref<16777216xf32>
    return
  }
}
