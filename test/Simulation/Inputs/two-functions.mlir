// Two functions, each with a copy and a kernel: one trace holds both.
module {
  gpu.module @k {
    func.func private @first_kernel(%x: memref<1024xf32>) attributes {gpu.kernel}
    func.func private @second_kernel(%x: memref<1024xf32>) attributes {gpu.kernel}
  }
  func.func @first(%h: memref<1024xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<1024xf32>
    vyre.copy_h2d %h to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@first_kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) access [read]
    return
  }
  func.func @second(%h: memref<1024xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<1024xf32>
    vyre.copy_h2d %h to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@second_kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) access [read]
    return
  }
}
