// KV-cache offload, after FlexGen and vLLM's CPU swap space: a decode step
// of a 32-layer model whose attention cache lives in pinned host memory.
// For each layer, the cache of the sequence so far (4096 tokens, 4 KiB of
// fp16 keys and values per token: 16 MiB, ~307 us at 55 GB/s) comes in, the
// layer's kernel (attention over the cache and the MLP, weights resident:
// 60 us) reads it and writes the new token's keys and values (4 KiB), which
// go back into the cache at token 4096. One host array holds every layer's
// cache with 8 spare tokens per layer: the copy in reads tokens 0..4095 of
// layer l, the copy back writes token 4096 of layer l, so the two never
// touch the same bytes, in one iteration or across iterations.
//
// Bound: the copies in, 32 x ~307 us = ~9824 us (decode with an offloaded
// cache is bound by the link), plus the last layer's kernel and copy back
// (60 + ~2 us) after the last copy in. About 9886 us.
module {
  gpu.module @k {
    func.func private @decode_layer(%cache: memref<8388608xf16>, %h: memref<4096xf16>, %kv: memref<2048xf16>) attributes {gpu.kernel}
  }
  func.func @decode_step(%cache: memref<32x8404992xf16> {vyre.pinned, llvm.noalias},
                         %hidden_in: memref<4096xf16> {vyre.pinned, llvm.noalias},
                         %hidden_out: memref<4096xf16> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %past = vyre.alloc : memref<8388608xf16>
    %h = vyre.alloc : memref<4096xf16>
    %kv = vyre.alloc : memref<2048xf16>
    vyre.copy_h2d %hidden_in to %h : memref<4096xf16> to memref<4096xf16>
    scf.for %l = %c0 to %c32 step %c1 {
      %rows = memref.subview %cache[%l, 0] [1, 8388608] [1, 1] : memref<32x8404992xf16> to memref<8388608xf16, strided<[1], offset: ?>>
      vyre.copy_h2d %rows to %past : memref<8388608xf16, strided<[1], offset: ?>> to memref<8388608xf16>
      vyre.dispatch @k::@decode_layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%past, %h, %kv : memref<8388608xf16>, memref<4096xf16>, memref<2048xf16>) access [read, readwrite, overwrite] {vyre.cost_us = 60.0}
      %new = memref.subview %cache[%l, 8388608] [1, 2048] [1, 1] : memref<32x8404992xf16> to memref<2048xf16, strided<[1], offset: ?>>
      vyre.copy_d2h %kv to %new : memref<2048xf16> to memref<2048xf16, strided<[1], offset: ?>>
    }
    vyre.copy_d2h %h to %hidden_out : memref<4096xf16> to memref<4096xf16>
    vyre.dealloc %past : memref<8388608xf16>
    vyre.dealloc %h : memref<4096xf16>
    vyre.dealloc %kv : memref<2048xf16>
    return
  }
}
