// One transformer block with its weights streamed in: the QKV projection,
// attention, the output projection, and a two-matrix MLP. Weights are fp16:
// QKV 3 x 4096 x 4096 (96 MiB, ~1.8 ms), output 4096 x 4096 (32 MiB),
// MLP up and down 4096 x 16384 each (128 MiB each). Kernel times from a
// roofline of the same shapes at batch 2048.
module {
  gpu.module @k {
    func.func private @matmul(%w: memref<?xf16>, %x: memref<8388608xf16>, %y: memref<8388608xf16>) attributes {gpu.kernel}
    func.func private @attention(%q: memref<8388608xf16>, %y: memref<8388608xf16>) attributes {gpu.kernel}
  }
  func.func @block(%x_host: memref<8388608xf16> {vyre.pinned, llvm.noalias},
                   %qkv_host: memref<50331648xf16> {vyre.pinned, llvm.noalias},
                   %out_host: memref<16777216xf16> {vyre.pinned, llvm.noalias},
                   %up_host: memref<67108864xf16> {vyre.pinned, llvm.noalias},
                   %down_host: memref<67108864xf16> {vyre.pinned, llvm.noalias},
                   %y_host: memref<8388608xf16> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<8388608xf16>
    %h = vyre.alloc : memref<8388608xf16>
    %qkv = vyre.alloc : memref<50331648xf16>
    %out = vyre.alloc : memref<16777216xf16>
    %up = vyre.alloc : memref<67108864xf16>
    %down = vyre.alloc : memref<67108864xf16>
    %qkv_dyn = memref.cast %qkv : memref<50331648xf16> to memref<?xf16>
    %out_dyn = memref.cast %out : memref<16777216xf16> to memref<?xf16>
    %up_dyn = memref.cast %up : memref<67108864xf16> to memref<?xf16>
    %down_dyn = memref.cast %down : memref<67108864xf16> to memref<?xf16>
    vyre.copy_h2d %x_host to %x : memref<8388608xf16> to memref<8388608xf16>
    vyre.copy_h2d %qkv_host to %qkv : memref<50331648xf16> to memref<50331648xf16>
    vyre.dispatch @k::@matmul blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%qkv_dyn, %x, %h : memref<?xf16>, memref<8388608xf16>, memref<8388608xf16>)
        access [read, read, write] {vyre.cost_us = 420.0}
    vyre.dispatch @k::@attention blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%h, %x : memref<8388608xf16>, memref<8388608xf16>)
        access [read, write] {vyre.cost_us = 900.0}
    vyre.copy_h2d %out_host to %out : memref<16777216xf16> to memref<16777216xf16>
    vyre.dispatch @k::@matmul blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%out_dyn, %x, %h : memref<?xf16>, memref<8388608xf16>, memref<8388608xf16>)
        access [read, read, write] {vyre.cost_us = 140.0}
    vyre.copy_h2d %up_host to %up : memref<67108864xf16> to memref<67108864xf16>
    vyre.dispatch @k::@matmul blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%up_dyn, %h, %x : memref<?xf16>, memref<8388608xf16>, memref<8388608xf16>)
        access [read, read, write] {vyre.cost_us = 560.0}
    vyre.copy_h2d %down_host to %down : memref<67108864xf16> to memref<67108864xf16>
    vyre.dispatch @k::@matmul blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%down_dyn, %x, %h : memref<?xf16>, memref<8388608xf16>, memref<8388608xf16>)
        access [read, read, write] {vyre.cost_us = 560.0}
    vyre.copy_d2h %h to %y_host : memref<8388608xf16> to memref<8388608xf16>
    return
  }
}
