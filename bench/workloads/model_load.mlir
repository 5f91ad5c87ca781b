// Model load, after inference servers that copy a model's weights to the
// device and then run the first request: 16 layers' weights (4 MiB each,
// ~78 us at 55 GB/s), copied one after another as the model file lists
// them, then the request's input (16 MiB, ~307 us); each layer (80 us)
// reads the activations and its own weights.
//
// Bound (the simulator's, 1639 us): the copy engine's work, 16 x 78 + 307 =
// 1559 us, and the layer (80 us) that must follow whichever copy ends last.
// The longest dependency path is the input (307 us), then the 16 layers
// (1280 us): 1587 us. Every weight but the first layer's can copy in
// beside a layer once the copies are issued in the order the layers need them. In the input's
// order the first layer waits for every weight and the input (1559 us),
// then the 16 layers run one after another. The model also charges 21.5 us
// of host time per buffer at its free, after the device is done (17
// buffers: 366 us), which the bound does not count.
module {
  gpu.module @k {
    func.func private @layer(%x: memref<4194304xf32>, %w: memref<1048576xf32>) attributes {gpu.kernel}
  }
  func.func @load(%input: memref<4194304xf32> {vyre.pinned, llvm.noalias},
                  %hw0: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw1: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw2: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw3: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw4: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw5: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw6: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw7: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw8: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw9: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw10: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw11: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw12: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw13: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw14: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                  %hw15: memref<1048576xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<4194304xf32>
    %w0 = vyre.alloc : memref<1048576xf32>
    %w1 = vyre.alloc : memref<1048576xf32>
    %w2 = vyre.alloc : memref<1048576xf32>
    %w3 = vyre.alloc : memref<1048576xf32>
    %w4 = vyre.alloc : memref<1048576xf32>
    %w5 = vyre.alloc : memref<1048576xf32>
    %w6 = vyre.alloc : memref<1048576xf32>
    %w7 = vyre.alloc : memref<1048576xf32>
    %w8 = vyre.alloc : memref<1048576xf32>
    %w9 = vyre.alloc : memref<1048576xf32>
    %w10 = vyre.alloc : memref<1048576xf32>
    %w11 = vyre.alloc : memref<1048576xf32>
    %w12 = vyre.alloc : memref<1048576xf32>
    %w13 = vyre.alloc : memref<1048576xf32>
    %w14 = vyre.alloc : memref<1048576xf32>
    %w15 = vyre.alloc : memref<1048576xf32>
    vyre.copy_h2d %hw0 to %w0 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw1 to %w1 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw2 to %w2 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw3 to %w3 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw4 to %w4 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw5 to %w5 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw6 to %w6 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw7 to %w7 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw8 to %w8 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw9 to %w9 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw10 to %w10 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw11 to %w11 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw12 to %w12 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw13 to %w13 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw14 to %w14 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %hw15 to %w15 : memref<1048576xf32> to memref<1048576xf32>
    vyre.copy_h2d %input to %x : memref<4194304xf32> to memref<4194304xf32>
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w0 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w1 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w2 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w3 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w4 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w5 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w6 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w7 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w8 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w9 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w10 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w11 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w12 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w13 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w14 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w15 : memref<4194304xf32>, memref<1048576xf32>) access [readwrite, read] {vyre.cost_us = 80.0}
    vyre.dealloc %x : memref<4194304xf32>
    vyre.dealloc %w0 : memref<1048576xf32>
    vyre.dealloc %w1 : memref<1048576xf32>
    vyre.dealloc %w2 : memref<1048576xf32>
    vyre.dealloc %w3 : memref<1048576xf32>
    vyre.dealloc %w4 : memref<1048576xf32>
    vyre.dealloc %w5 : memref<1048576xf32>
    vyre.dealloc %w6 : memref<1048576xf32>
    vyre.dealloc %w7 : memref<1048576xf32>
    vyre.dealloc %w8 : memref<1048576xf32>
    vyre.dealloc %w9 : memref<1048576xf32>
    vyre.dealloc %w10 : memref<1048576xf32>
    vyre.dealloc %w11 : memref<1048576xf32>
    vyre.dealloc %w12 : memref<1048576xf32>
    vyre.dealloc %w13 : memref<1048576xf32>
    vyre.dealloc %w14 : memref<1048576xf32>
    vyre.dealloc %w15 : memref<1048576xf32>
    return
  }
}
