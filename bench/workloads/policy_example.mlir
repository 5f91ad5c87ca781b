// The vyre runtime policy's own example: a 100 us copy (5.5 MB at 55 GB/s),
// then a 200 us kernel that does not touch the copied buffer, then a kernel
// that reads it. Serial: 100 + 200 + 200; the copy can hide under the first
// kernel.
module {
  gpu.module @k {
    func.func private @kernel(%x: memref<1375000xf32>) attributes {gpu.kernel}
  }
  func.func @policy_example(%host: memref<1375000xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<1375000xf32>
    %b = vyre.alloc : memref<1375000xf32>
    vyre.copy_h2d %host to %a : memref<1375000xf32> to memref<1375000xf32>
    vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<1375000xf32>) access [readwrite] {vyre.cost_us = 200.0}
    vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a : memref<1375000xf32>) access [readwrite] {vyre.cost_us = 200.0}
    return
  }
}
