// Batched input streaming: four batches of 16 MiB (~305 us each) go through
// one 250 us kernel each, and each result (4 MiB) is copied back. Two input
// buffers alternate, so a batch can stream in while the one before computes.
module {
  gpu.module @k {
    func.func private @infer(%x: memref<4194304xf32>, %y: memref<1048576xf32>) attributes {gpu.kernel}
  }
  func.func @batches(%b0: memref<4194304xf32> {vyre.pinned, llvm.noalias},
                     %b1: memref<4194304xf32> {vyre.pinned, llvm.noalias},
                     %b2: memref<4194304xf32> {vyre.pinned, llvm.noalias},
                     %b3: memref<4194304xf32> {vyre.pinned, llvm.noalias},
                     %r0: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                     %r1: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                     %r2: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                     %r3: memref<1048576xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %xa = vyre.alloc : memref<4194304xf32>
    %xb = vyre.alloc : memref<4194304xf32>
    %ya = vyre.alloc : memref<1048576xf32>
    %yb = vyre.alloc : memref<1048576xf32>
    vyre.copy_h2d %b0 to %xa : memref<4194304xf32> to memref<4194304xf32>
    vyre.dispatch @k::@infer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%xa, %ya : memref<4194304xf32>, memref<1048576xf32>) access [read, write] {vyre.cost_us = 250.0}
    vyre.copy_d2h %ya to %r0 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %b1 to %xb : memref<4194304xf32> to memref<4194304xf32>
    vyre.dispatch @k::@infer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%xb, %yb : memref<4194304xf32>, memref<1048576xf32>) access [read, write] {vyre.cost_us = 250.0}
    vyre.copy_d2h %yb to %r1 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %b2 to %xa : memref<4194304xf32> to memref<4194304xf32>
    vyre.dispatch @k::@infer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%xa, %ya : memref<4194304xf32>, memref<1048576xf32>) access [read, write] {vyre.cost_us = 250.0}
    vyre.copy_d2h %ya to %r2 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %b3 to %xb : memref<4194304xf32> to memref<4194304xf32>
    vyre.dispatch @k::@infer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%xb, %yb : memref<4194304xf32>, memref<1048576xf32>) access [read, write] {vyre.cost_us = 250.0}
    vyre.copy_d2h %yb to %r3 : memref<1048576xf32> to memref<1048576xf32>
    return
  }
}
