// Many small copies: 16 parameters of 64 KiB (~3 us each, latency-bound)
// feed 16 kernels of 20 us; each kernel reads the parameter copied just
// before it.
module {
  gpu.module @k {
    func.func private @step(%p: memref<16384xf32>, %state: memref<65536xf32>) attributes {gpu.kernel}
  }
  func.func @small(%p0: memref<16384xf32> {vyre.pinned, llvm.noalias}, %p1: memref<16384xf32> {vyre.pinned, llvm.noalias},
                   %p2: memref<16384xf32> {vyre.pinned, llvm.noalias}, %p3: memref<16384xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %state = vyre.alloc : memref<65536xf32>
    %d0 = vyre.alloc : memref<16384xf32>
    %d1 = vyre.alloc : memref<16384xf32>
    %d2 = vyre.alloc : memref<16384xf32>
    %d3 = vyre.alloc : memref<16384xf32>
    vyre.copy_h2d %p0 to %d0 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d0, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p1 to %d1 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d1, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p2 to %d2 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d2, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p3 to %d3 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d3, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p0 to %d0 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d0, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p1 to %d1 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d1, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p2 to %d2 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d2, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p3 to %d3 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d3, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p0 to %d0 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d0, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p1 to %d1 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d1, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p2 to %d2 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d2, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p3 to %d3 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d3, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p0 to %d0 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d0, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p1 to %d1 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d1, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p2 to %d2 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d2, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    vyre.copy_h2d %p3 to %d3 : memref<16384xf32> to memref<16384xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d3, %state : memref<16384xf32>, memref<65536xf32>) access [read, readwrite] {vyre.cost_us = 20.0}
    return
  }
}
