// A buffer that is only allocated, copied into and freed: canonicalize erases
// the copy, and with it all the work of the copy's side stream.
module {
  gpu.module @kernels {
    gpu.func @inc(%x: memref<1024xf32>) kernel {
      %i = gpu.global_id x
      %v = memref.load %x[%i] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i] : memref<1024xf32>
      gpu.return
    }
  }
  func.func @dead_copy(%host: memref<1024xf32> {vyre.pinned, llvm.noalias},
                       %live: memref<1024xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %dead = vyre.alloc : memref<1024xf32>
    vyre.dispatch @kernels::@inc blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
        args(%live : memref<1024xf32>)
    vyre.copy_h2d %host to %dead : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @kernels::@inc blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
        args(%live : memref<1024xf32>)
    vyre.dealloc %dead : memref<1024xf32>
    return
  }
}
