// Batched inference on the GPU: 8 batches, each a row of 1M floats (4 MiB)
// of a pinned host array, copied in, run through a compute-bound kernel, and
// copied back into the same row of an output array. The rows are contiguous
// views with an offset (`memref.subview` on the induction variable); the
// launch declares that it overwrites its output, so --vyre-pipeline-loops
// rotates both buffers: a batch copies in while the one before computes, and
// its result copies back while the next computes.
module {
  gpu.module @kernels {
    // y[i] = f(x[i]), f iterated 128 times.
    gpu.func @model(%x: memref<1048576xf32>, %y: memref<1048576xf32>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %steps = arith.constant 128 : index
      %b = arith.constant 0.001 : f32
      %xi = memref.load %x[%i] : memref<1048576xf32>
      %scale = arith.mulf %xi, %b : f32
      %v = scf.for %k = %c0 to %steps step %c1 iter_args(%s = %xi) -> (f32) {
        %m = math.fma %s, %scale, %b : f32
        scf.yield %m : f32
      }
      memref.store %v, %y[%i] : memref<1048576xf32>
      gpu.return
    }
  }

  func.func @batched(%inputs: memref<8x1048576xf32> {vyre.pinned, llvm.noalias},
                     %outputs: memref<8x1048576xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %blocks = arith.constant 4096 : index
    %x = vyre.alloc : memref<1048576xf32>
    %y = vyre.alloc : memref<1048576xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %in = memref.subview %inputs[%i, 0] [1, 1048576] [1, 1] : memref<8x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      %out = memref.subview %outputs[%i, 0] [1, 1048576] [1, 1] : memref<8x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<1048576xf32, strided<[1], offset: ?>> to memref<1048576xf32>
      vyre.dispatch @kernels::@model blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
          args(%x, %y : memref<1048576xf32>, memref<1048576xf32>) access [read, overwrite]
      vyre.copy_d2h %y to %out : memref<1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<1048576xf32>
    vyre.dealloc %y : memref<1048576xf32>
    return
  }
}
