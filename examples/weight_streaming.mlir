// Layer-by-layer weight streaming through a two-layer MLP.
//
// Each layer's weights are copied in just before the layer runs. In program
// order nothing overlaps: copy W1, run layer 1, copy W2, run layer 2. The copy
// of W2 touches no slot that layer 1 uses, so --overlap-copies moves it up and
// runs it on a side stream while layer 1 computes.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // y[i] = relu(sum_j w[i, j] * x[j]), one thread per output row.
    gpu.func @dense_relu(%w: memref<256x256xf32>, %x: memref<256xf32>,
                         %y: memref<256xf32>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant 256 : index
      %zero = arith.constant 0.0 : f32
      %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
        %wij = memref.load %w[%i, %j] : memref<256x256xf32>
        %xj = memref.load %x[%j] : memref<256xf32>
        %p = arith.mulf %wij, %xj : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      %relu = arith.maximumf %sum, %zero : f32
      memref.store %relu, %y[%i] : memref<256xf32>
      gpu.return
    }
  }

  func.func @mlp(%host_x: memref<256xf32> {vyre.pinned, llvm.noalias},
                 %host_w1: memref<256x256xf32> {vyre.pinned, llvm.noalias},
                 %host_w2: memref<256x256xf32> {vyre.pinned, llvm.noalias},
                 %host_y: memref<256xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %x = vyre.alloc : memref<256xf32>
    %w1 = vyre.alloc : memref<256x256xf32>
    %w2 = vyre.alloc : memref<256x256xf32>
    %h = vyre.alloc : memref<256xf32>
    %y = vyre.alloc : memref<256xf32>

    vyre.copy_h2d %host_x to %x : memref<256xf32> to memref<256xf32>
    vyre.copy_h2d %host_w1 to %w1 : memref<256x256xf32> to memref<256x256xf32>
    vyre.dispatch @kernels::@dense_relu blocks(%c2, %c1, %c1) threads(%c128, %c1, %c1)
        args(%w1, %x, %h : memref<256x256xf32>, memref<256xf32>, memref<256xf32>)
    vyre.copy_h2d %host_w2 to %w2 : memref<256x256xf32> to memref<256x256xf32>
    vyre.dispatch @kernels::@dense_relu blocks(%c2, %c1, %c1) threads(%c128, %c1, %c1)
        args(%w2, %h, %y : memref<256x256xf32>, memref<256xf32>, memref<256xf32>)
    vyre.copy_d2h %y to %host_y : memref<256xf32> to memref<256xf32>

    vyre.dealloc %x : memref<256xf32>
    vyre.dealloc %w1 : memref<256x256xf32>
    vyre.dealloc %w2 : memref<256x256xf32>
    vyre.dealloc %h : memref<256xf32>
    vyre.dealloc %y : memref<256xf32>
    return
  }
}
