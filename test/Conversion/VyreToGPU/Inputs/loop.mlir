// A loop that streams a buffer in each iteration and runs a kernel on it,
// with a kernel beside it that the copy overlaps.
module {
  gpu.module @kernels {
    gpu.func @inc(%x: memref<1024xf32>) kernel {
      %i = gpu.global_id x
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%i] : memref<1024xf32>
      %w = arith.addf %v, %one : f32
      memref.store %w, %x[%i] : memref<1024xf32>
      gpu.return
    }
  }
  func.func @loop(%host: memref<1024xf32> {vyre.pinned, llvm.noalias},
                  %out: memref<1024xf32> {vyre.pinned, llvm.noalias},
                  %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %a = vyre.alloc : memref<1024xf32>
    %b = vyre.alloc : memref<1024xf32>
    scf.for %i = %c0 to %n step %c1 {
      vyre.dispatch @kernels::@inc blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
          args(%b : memref<1024xf32>)
      vyre.copy_h2d %host to %a : memref<1024xf32> to memref<1024xf32>
      vyre.dispatch @kernels::@inc blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
          args(%a : memref<1024xf32>)
    }
    vyre.copy_d2h %a to %out : memref<1024xf32> to memref<1024xf32>
    vyre.dealloc %a : memref<1024xf32>
    vyre.dealloc %b : memref<1024xf32>
    return
  }
}
