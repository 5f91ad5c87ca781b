// Host code with explicit token chains, as the sparsifier's GPU code
// generation writes it: each buffer is allocated and filled on a stream of
// its own, a join waits for all of them before the kernel, the result is
// copied back on the kernel's stream, and the host waits for the frees.
module attributes {gpu.container_module} {
  gpu.module @sparse_kernels {
    gpu.func @scale(%val: memref<16384xf32>, %x: memref<1024xf32>, %y: memref<1024xf32>) kernel {
      %bx = gpu.block_id x
      %tx = gpu.thread_id x
      %c256 = arith.constant 256 : index
      %base = arith.muli %bx, %c256 : index
      %i = arith.addi %base, %tx : index
      %a = memref.load %val[%i] : memref<16384xf32>
      %b = memref.load %x[%i] : memref<1024xf32>
      %p = arith.mulf %a, %b : f32
      memref.store %p, %y[%i] : memref<1024xf32>
      gpu.return
    }
  }
  func.func @chains(%val: memref<16384xf32>, %x: memref<1024xf32>, %y: memref<1024xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %t0 = gpu.wait async
    %dval, %t1 = gpu.alloc async [%t0] () : memref<16384xf32>
    %t2 = gpu.memcpy async [%t1] %dval, %val : memref<16384xf32>, memref<16384xf32>
    %t3 = gpu.wait async
    %dx, %t4 = gpu.alloc async [%t3] () : memref<1024xf32>
    %t5 = gpu.memcpy async [%t4] %dx, %x : memref<1024xf32>, memref<1024xf32>
    %t6 = gpu.wait async
    %dy, %t7 = gpu.alloc async [%t6] () : memref<1024xf32>
    %t8 = gpu.wait async [%t2, %t5, %t7]
    %t9 = gpu.launch_func async [%t8] @sparse_kernels::@scale blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%dval : memref<16384xf32>, %dx : memref<1024xf32>, %dy : memref<1024xf32>)
    %t10 = gpu.memcpy async [%t9] %y, %dy : memref<1024xf32>, memref<1024xf32>
    %t11 = gpu.dealloc async [%t10] %dval : memref<16384xf32>
    %t12 = gpu.dealloc async [%t11] %dx : memref<1024xf32>
    %t13 = gpu.dealloc async [%t12] %dy : memref<1024xf32>
    gpu.wait [%t13]
    gpu.wait [%t2]
    gpu.wait [%t5]
    gpu.wait [%t7]
    return
  }
}
