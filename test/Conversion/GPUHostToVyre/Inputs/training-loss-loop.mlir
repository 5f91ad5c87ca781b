// A training loop as a data loader drives it: each step copies a batch in
// from a registered host array, runs the forward and backward kernels, and
// copies the loss back, which the host reads to accumulate (PyTorch's pinned
// non_blocking loaders).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @forward(%x: memref<262144xf32>, %w: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %bx = gpu.block_id x
      %tx = gpu.thread_id x
      %c256 = arith.constant 256 : index
      %base = arith.muli %bx, %c256 : index
      %i = arith.addi %base, %tx : index
      %a = memref.load %x[%i] : memref<262144xf32>
      %b = memref.load %w[%i] : memref<262144xf32>
      %p = arith.mulf %a, %b : f32
      memref.store %p, %y[%i] : memref<262144xf32>
      gpu.return
    }
    gpu.func @backward(%y: memref<262144xf32>, %w: memref<262144xf32>, %loss: memref<1xf32>) kernel {
      %bx = gpu.block_id x
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %base = arith.muli %bx, %c256 : index
      %i = arith.addi %base, %tx : index
      %a = memref.load %y[%i] : memref<262144xf32>
      %b = memref.load %w[%i] : memref<262144xf32>
      %d = arith.subf %b, %a : f32
      memref.store %d, %w[%i] : memref<262144xf32>
      %old = memref.atomic_rmw addf %d, %loss[%c0] : (f32, memref<1xf32>) -> f32
      gpu.return
    }
  }
  func.func @train(%batches: memref<8x262144xf32>, %weights: memref<262144xf32>, %losses: memref<8xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c1024 = arith.constant 1024 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %x = gpu.alloc () : memref<262144xf32>
    %w = gpu.alloc () : memref<262144xf32>
    %y = gpu.alloc () : memref<262144xf32>
    %loss = gpu.alloc () : memref<1xf32>
    %hloss = memref.alloc () : memref<1xf32>
    gpu.memcpy %w, %weights : memref<262144xf32>, memref<262144xf32>
    %total = scf.for %b = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %batch = memref.subview %batches[%b, 0] [1, 262144] [1, 1] : memref<8x262144xf32> to memref<262144xf32, strided<[1], offset: ?>>
      gpu.memcpy %x, %batch : memref<262144xf32>, memref<262144xf32, strided<[1], offset: ?>>
      gpu.launch_func @kernels::@forward blocks in (%c1024, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<262144xf32>, %w : memref<262144xf32>, %y : memref<262144xf32>)
      gpu.launch_func @kernels::@backward blocks in (%c1024, %c1, %c1) threads in (%c256, %c1, %c1) args(%y : memref<262144xf32>, %w : memref<262144xf32>, %loss : memref<1xf32>)
      gpu.memcpy %hloss, %loss : memref<1xf32>, memref<1xf32>
      %l = memref.load %hloss[%c0] : memref<1xf32>
      memref.store %l, %losses[%b] : memref<8xf32>
      %next = arith.addf %acc, %l : f32
      scf.yield %next : f32
    }
    gpu.memcpy %weights, %w : memref<262144xf32>, memref<262144xf32>
    gpu.dealloc %x : memref<262144xf32>
    gpu.dealloc %w : memref<262144xf32>
    gpu.dealloc %y : memref<262144xf32>
    gpu.dealloc %loss : memref<1xf32>
    return %total : f32
  }
}
