// Host code after the pattern of upstream's sm_90 GEMM integration tests:
// the operands are allocated and copied in on a token chain written by
// hand, the kernel is launched synchronously with dynamic shared memory
// (which vyre.dispatch does not take), and the result is copied back on
// the chain.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @gemm(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) kernel {
      %i = gpu.thread_id x
      %j = gpu.thread_id y
      %x = memref.load %a[%i, %j] : memref<64x64xf16>
      %y = memref.load %b[%j, %i] : memref<64x64xf16>
      %p = arith.mulf %x, %y : f16
      %q = arith.extf %p : f16 to f32
      memref.store %q, %c[%i, %j] : memref<64x64xf32>
      gpu.return
    }
  }
  func.func @gemm_host(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %smem = arith.constant 16384 : i32
    %t0 = gpu.wait async
    %da, %t1 = gpu.alloc async [%t0] () : memref<64x64xf16>
    %db, %t2 = gpu.alloc async [%t1] () : memref<64x64xf16>
    %dc, %t3 = gpu.alloc async [%t2] () : memref<64x64xf32>
    %t4 = gpu.memcpy async [%t3] %da, %a : memref<64x64xf16>, memref<64x64xf16>
    %t5 = gpu.memcpy async [%t4] %db, %b : memref<64x64xf16>, memref<64x64xf16>
    gpu.launch_func @k::@gemm blocks in (%c1, %c1, %c1) threads in (%c64, %c64, %c1) dynamic_shared_memory_size %smem args(%da : memref<64x64xf16>, %db : memref<64x64xf16>, %dc : memref<64x64xf32>)
    %t6 = gpu.memcpy async [%t5] %c, %dc : memref<64x64xf32>, memref<64x64xf32>
    gpu.wait [%t6]
    return
  }
}
