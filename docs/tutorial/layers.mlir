// The tutorial's program (docs/Tutorial.md): a 4-layer network whose weights
// do not all fit on the device, streamed in layer by layer. Each iteration
// copies one layer's weights (1 MiB) from pinned host memory and runs the
// layer on the activations, in place.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // x[i] = relu(sum_j w[i, j] * x[j]), one thread per row (a toy layer).
    gpu.func @layer(%w: memref<512x512xf32>, %x: memref<512xf32>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant 512 : index
      %zero = arith.constant 0.0 : f32
      %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
        %wij = memref.load %w[%i, %j] : memref<512x512xf32>
        %xj = memref.load %x[%j] : memref<512xf32>
        %p = arith.mulf %wij, %xj : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      %relu = arith.maximumf %sum, %zero : f32
      memref.store %relu, %x[%i] : memref<512xf32>
      gpu.return
    }
  }

  func.func @forward(%weights: memref<4x512x512xf32> {vyre.pinned, llvm.noalias},
                     %input: memref<512xf32> {vyre.pinned, llvm.noalias},
                     %output: memref<512xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %x = vyre.alloc : memref<512xf32>
    %w = vyre.alloc : memref<512x512xf32>
    vyre.copy_h2d %input to %x : memref<512xf32> to memref<512xf32>
    scf.for %l = %c0 to %c4 step %c1 {
      %layer = memref.subview %weights[%l, 0, 0] [1, 512, 512] [1, 1, 1]
          : memref<4x512x512xf32> to memref<512x512xf32, strided<[512, 1], offset: ?>>
      vyre.copy_h2d %layer to %w
          : memref<512x512xf32, strided<[512, 1], offset: ?>> to memref<512x512xf32>
      vyre.dispatch @kernels::@layer blocks(%c1, %c1, %c1) threads(%c256, %c1, %c1)
          args(%w, %x : memref<512x512xf32>, memref<512xf32>)
          {vyre.cost_us = 40.0}
    }
    vyre.copy_d2h %x to %output : memref<512xf32> to memref<512xf32>
    vyre.dealloc %w : memref<512x512xf32>
    vyre.dealloc %x : memref<512xf32>
    return
  }
}
