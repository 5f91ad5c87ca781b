// Two independent kernels over registered host buffers, after upstream's
// CUDA integration tests: each input is copied in, each kernel squares its
// own buffer, both results are copied back, and the host reads them.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @square(%buf: memref<65536xf32>) kernel {
      %bx = gpu.block_id x
      %tx = gpu.thread_id x
      %c256 = arith.constant 256 : index
      %base = arith.muli %bx, %c256 : index
      %i = arith.addi %base, %tx : index
      %v = memref.load %buf[%i] : memref<65536xf32>
      %s = arith.mulf %v, %v : f32
      memref.store %s, %buf[%i] : memref<65536xf32>
      gpu.return
    }
  }
  func.func @run() -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %a = memref.alloc() : memref<65536xf32>
    %b = memref.alloc() : memref<65536xf32>
    %ua = memref.cast %a : memref<65536xf32> to memref<*xf32>
    %ub = memref.cast %b : memref<65536xf32> to memref<*xf32>
    gpu.host_register %ua : memref<*xf32>
    gpu.host_register %ub : memref<*xf32>
    %da = gpu.alloc () : memref<65536xf32>
    %db = gpu.alloc () : memref<65536xf32>
    gpu.memcpy %da, %a : memref<65536xf32>, memref<65536xf32>
    gpu.memcpy %db, %b : memref<65536xf32>, memref<65536xf32>
    gpu.launch_func @kernels::@square blocks in (%c256, %c1, %c1) threads in (%c256, %c1, %c1) args(%da : memref<65536xf32>)
    gpu.launch_func @kernels::@square blocks in (%c256, %c1, %c1) threads in (%c256, %c1, %c1) args(%db : memref<65536xf32>)
    gpu.memcpy %a, %da : memref<65536xf32>, memref<65536xf32>
    gpu.memcpy %b, %db : memref<65536xf32>, memref<65536xf32>
    gpu.dealloc %da : memref<65536xf32>
    gpu.dealloc %db : memref<65536xf32>
    %x = memref.load %a[%c0] : memref<65536xf32>
    %y = memref.load %b[%c0] : memref<65536xf32>
    %s = arith.addf %x, %y : f32
    return %s : f32
  }
}
