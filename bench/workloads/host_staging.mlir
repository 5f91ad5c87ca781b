// Host staging: kernel A (100 us) runs; meanwhile the host fills a pinned
// staging buffer and copies it in (1 MiB, ~21 us); kernel B (100 us) reads
// it. The copy needs only the host's write, which program order gives, so it
// runs beside A: the bound is the two kernels, 200 us.
module {
  gpu.module @k {
    func.func private @a(%x: memref<262144xf32>) attributes {gpu.kernel}
    func.func private @b(%x: memref<262144xf32>) attributes {gpu.kernel}
  }
  func.func @staging(%stage: memref<262144xf32> {vyre.pinned, llvm.noalias},
                     %v: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<262144xf32>
    %y = vyre.alloc : memref<262144xf32>
    vyre.dispatch @k::@a blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x : memref<262144xf32>) access [readwrite] {vyre.cost_us = 100.0}
    memref.store %v, %stage[%c0] : memref<262144xf32>
    vyre.copy_h2d %stage to %y : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@b blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%y : memref<262144xf32>) access [read] {vyre.cost_us = 100.0}
    vyre.dealloc %x : memref<262144xf32>
    vyre.dealloc %y : memref<262144xf32>
    return
  }
}
