// Batches around layers on the GPU: 4 batches, each a row of 1M floats
// (4 MiB) of a pinned host array, run through 4 layers whose weights (4 MiB
// each, rows of another pinned array) stream in before each layer, then
// copied back into the same row of an output array. The weights buffer of
// the inner loop rotates (--vyre-pipeline-loops): a layer's weights copy in
// while the layer before computes. Both loops are chained on the device.
module {
  gpu.module @kernels {
    // x[i] = f(w[i], x[i]), iterated 128 times: compute-bound.
    gpu.func @layer(%w: memref<1048576xf32>, %x: memref<1048576xf32>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %steps = arith.constant 128 : index
      %b = arith.constant 0.001 : f32
      %wi = memref.load %w[%i] : memref<1048576xf32>
      %xi = memref.load %x[%i] : memref<1048576xf32>
      %scale = arith.mulf %wi, %b : f32
      %v = scf.for %k = %c0 to %steps step %c1 iter_args(%s = %xi) -> (f32) {
        %m = math.fma %s, %scale, %b : f32
        scf.yield %m : f32
      }
      memref.store %v, %x[%i] : memref<1048576xf32>
      gpu.return
    }
  }

  func.func @layered_batches(%inputs: memref<4x1048576xf32> {vyre.pinned, llvm.noalias},
                             %weights: memref<4x1048576xf32> {vyre.pinned, llvm.noalias},
                             %outputs: memref<4x1048576xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %blocks = arith.constant 4096 : index
    %x = vyre.alloc : memref<1048576xf32>
    %w = vyre.alloc : memref<1048576xf32>
    scf.for %b = %c0 to %c4 step %c1 {
      %in = memref.subview %inputs[%b, 0] [1, 1048576] [1, 1] : memref<4x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      %out = memref.subview %outputs[%b, 0] [1, 1048576] [1, 1] : memref<4x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<1048576xf32, strided<[1], offset: ?>> to memref<1048576xf32>
      scf.for %l = %c0 to %c4 step %c1 {
        %row = memref.subview %weights[%l, 0] [1, 1048576] [1, 1] : memref<4x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %w : memref<1048576xf32, strided<[1], offset: ?>> to memref<1048576xf32>
        vyre.dispatch @kernels::@layer blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
            args(%w, %x : memref<1048576xf32>, memref<1048576xf32>) access [read, readwrite]
      }
      vyre.copy_d2h %x to %out : memref<1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<1048576xf32>
    vyre.dealloc %w : memref<1048576xf32>
    return
  }
}
