// A function that mixes explicit token chains with synchronous gpu ops: the
// weights come in and are scaled on a stream the author made; the input is
// copied and scaled with synchronous ops, then the weights are scaled again
// and read back.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<1024xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i] : memref<1024xf32>
      gpu.return
    }
  }
  func.func @mixed(%in: memref<1024xf32>, %weights: memref<1024xf32>, %out: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %c1024 = arith.constant 1024 : index
    // Explicit: a stream of its own brings weights in and scales them.
    %s0 = gpu.wait async
    %dw, %t0 = gpu.alloc async [%s0] () : memref<1024xf32>
    %t1 = gpu.memcpy async [%t0] %dw, %weights : memref<1024xf32>, memref<1024xf32>
    %t2 = gpu.launch_func async [%t1] @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1024, %c1, %c1) args(%dw : memref<1024xf32>)
    // Synchronous: the input, unrelated to the explicit work.
    %dx = gpu.alloc () : memref<1024xf32>
    gpu.memcpy %dx, %in : memref<1024xf32>, memref<1024xf32>
    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1024, %c1, %c1) args(%dx : memref<1024xf32>)
    // Synchronous, on the explicit buffer: must come after the explicit work.
    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1024, %c1, %c1) args(%dw : memref<1024xf32>)
    gpu.memcpy %out, %dw : memref<1024xf32>, memref<1024xf32>
    gpu.memcpy %in, %dx : memref<1024xf32>, memref<1024xf32>
    gpu.dealloc %dx : memref<1024xf32>
    %t3 = gpu.dealloc async [%t2] %dw : memref<1024xf32>
    gpu.wait [%t3]
    return
  }
}
