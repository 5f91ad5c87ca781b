// The tutorial's program (docs/Tutorial.md) as a compiler that emits the
// upstream gpu dialect writes it: synchronous gpu.memcpy and
// gpu.launch_func, device buffers from gpu.alloc, host buffers the caller
// passes.
module attributes {gpu.container_module} {
  gpu.module @kernels {
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

  func.func @forward(%weights: memref<4x512x512xf32>, %input: memref<512xf32>,
                     %output: memref<512xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %x = gpu.alloc () : memref<512xf32>
    %w = gpu.alloc () : memref<512x512xf32>
    gpu.memcpy %x, %input : memref<512xf32>, memref<512xf32>
    scf.for %l = %c0 to %c4 step %c1 {
      %layer = memref.subview %weights[%l, 0, 0] [1, 512, 512] [1, 1, 1]
          : memref<4x512x512xf32> to memref<512x512xf32, strided<[512, 1], offset: ?>>
      gpu.memcpy %w, %layer
          : memref<512x512xf32>, memref<512x512xf32, strided<[512, 1], offset: ?>>
      gpu.launch_func @kernels::@layer blocks in (%c1, %c1, %c1)
          threads in (%c256, %c1, %c1) args(%w : memref<512x512xf32>, %x : memref<512xf32>)
    }
    gpu.memcpy %output, %x : memref<512xf32>, memref<512xf32>
    gpu.dealloc %w : memref<512x512xf32>
    gpu.dealloc %x : memref<512xf32>
    return
  }
}
