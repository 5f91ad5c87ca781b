// LLM layer offloading with prefetch, after the weight offloading of
// DeepSpeed ZeRO-Inference, Hugging Face Accelerate's `device_map` offload
// and FlexGen: a model whose weights do not fit on the device keeps them in
// pinned host memory and brings each decoder layer's weights in while the
// layer before computes. Here one prefill of 16 layers (fp16): per layer,
// the attention weights (32 MiB, ~612 us at 55 GB/s) and the MLP weights
// (64 MiB, ~1222 us) are rows of two pinned host arrays, copied into two
// device buffers that the attention kernel (700 us) and the MLP kernel
// (1300 us) read; the hidden states (2 MiB) come in once and go back once.
//
// Bound: the kernels, 16 x 2000 us = 32000 us, plus what cannot overlap
// them: before the first kernel, the hidden states' copy and the first
// attention weights' copy (~40 + ~612 us); after the last, the hidden
// states' copy back (~40 us). About 32692 us. The copies (16 x ~1834 us)
// fit beside the kernels once each layer's buffers rotate.
module {
  gpu.module @k {
    func.func private @attention(%w: memref<16777216xf16>, %h: memref<1048576xf16>) attributes {gpu.kernel}
    func.func private @mlp(%w: memref<33554432xf16>, %h: memref<1048576xf16>) attributes {gpu.kernel}
  }
  func.func @offloaded_prefill(%attention_weights: memref<16x16777216xf16> {vyre.pinned, llvm.noalias},
                               %mlp_weights: memref<16x33554432xf16> {vyre.pinned, llvm.noalias},
                               %hidden_in: memref<1048576xf16> {vyre.pinned, llvm.noalias},
                               %hidden_out: memref<1048576xf16> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %h = vyre.alloc : memref<1048576xf16>
    %wa = vyre.alloc : memref<16777216xf16>
    %wm = vyre.alloc : memref<33554432xf16>
    vyre.copy_h2d %hidden_in to %h : memref<1048576xf16> to memref<1048576xf16>
    scf.for %l = %c0 to %c16 step %c1 {
      %a = memref.subview %attention_weights[%l, 0] [1, 16777216] [1, 1] : memref<16x16777216xf16> to memref<16777216xf16, strided<[1], offset: ?>>
      vyre.copy_h2d %a to %wa : memref<16777216xf16, strided<[1], offset: ?>> to memref<16777216xf16>
      vyre.dispatch @k::@attention blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%wa, %h : memref<16777216xf16>, memref<1048576xf16>) access [read, readwrite] {vyre.cost_us = 700.0}
      %m = memref.subview %mlp_weights[%l, 0] [1, 33554432] [1, 1] : memref<16x33554432xf16> to memref<33554432xf16, strided<[1], offset: ?>>
      vyre.copy_h2d %m to %wm : memref<33554432xf16, strided<[1], offset: ?>> to memref<33554432xf16>
      vyre.dispatch @k::@mlp blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%wm, %h : memref<33554432xf16>, memref<1048576xf16>) access [read, readwrite] {vyre.cost_us = 1300.0}
    }
    vyre.copy_d2h %h to %hidden_out : memref<1048576xf16> to memref<1048576xf16>
    vyre.dealloc %h : memref<1048576xf16>
    vyre.dealloc %wa : memref<16777216xf16>
    vyre.dealloc %wm : memref<33554432xf16>
    return
  }
}
