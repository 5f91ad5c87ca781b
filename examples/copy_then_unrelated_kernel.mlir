// The vyre runtime policy's own example: a 100 µs copy followed by a 200 µs
// kernel that does not touch the copied buffer. On one stream they take
// 300 µs; with the copy on a side stream, 200 µs.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // out[i] = in[i] * 2, one thread per element.
    gpu.func @double(%in: memref<1024xf32>, %out: memref<1024xf32>) kernel {
      %i = gpu.global_id x
      %two = arith.constant 2.0 : f32
      %v = memref.load %in[%i] : memref<1024xf32>
      %d = arith.mulf %v, %two : f32
      memref.store %d, %out[%i] : memref<1024xf32>
      gpu.return
    }
  }

  func.func @copy_then_unrelated_kernel(%host_a: memref<1024xf32> {vyre.pinned, llvm.noalias},
                                        %host_b: memref<1024xf32> {vyre.pinned, llvm.noalias},
                                        %host_out: memref<1024xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %a = vyre.alloc : memref<1024xf32>
    %b = vyre.alloc : memref<1024xf32>
    %out = vyre.alloc : memref<1024xf32>
    vyre.copy_h2d %host_b to %b : memref<1024xf32> to memref<1024xf32>

    // The copy of %a is not read by this kernel: it may overlap.
    vyre.copy_h2d %host_a to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @kernels::@double blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
        args(%b, %out : memref<1024xf32>, memref<1024xf32>) {vyre.cost_us = 200.0}

    // This kernel reads %a: it must wait for the copy.
    vyre.dispatch @kernels::@double blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
        args(%a, %out : memref<1024xf32>, memref<1024xf32>) {vyre.cost_us = 200.0}
    vyre.copy_d2h %out to %host_out : memref<1024xf32> to memref<1024xf32>
    vyre.dealloc %a : memref<1024xf32>
    vyre.dealloc %b : memref<1024xf32>
    vyre.dealloc %out : memref<1024xf32>
    return
  }
}
