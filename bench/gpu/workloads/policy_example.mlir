// The vyre runtime policy's example at GPU scale: a 64 MiB copy, then a
// kernel on another buffer that costs about as much, then a kernel that reads
// the copied buffer. Serial: copy + kernel + kernel; overlapped: the first
// kernel runs beside the copy.
module {
  gpu.module @kernels {
    // x[i] = x[i] iterated 4096 times through an FMA: compute-bound.
    gpu.func @busy(%x: memref<16777216xf32>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %steps = arith.constant 4096 : index
      %a = arith.constant 0.999 : f32
      %b = arith.constant 0.001 : f32
      %v0 = memref.load %x[%i] : memref<16777216xf32>
      %v = scf.for %k = %c0 to %steps step %c1 iter_args(%acc = %v0) -> (f32) {
        %m = math.fma %acc, %a, %b : f32
        scf.yield %m : f32
      }
      memref.store %v, %x[%i] : memref<16777216xf32>
      gpu.return
    }
  }

  func.func @policy(%host_a: memref<16777216xf32> {vyre.pinned, llvm.noalias},
                    %host_b: memref<16777216xf32> {vyre.pinned, llvm.noalias},
                    %host_out: memref<16777216xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %blocks = arith.constant 65536 : index
    %a = vyre.alloc : memref<16777216xf32>
    %b = vyre.alloc : memref<16777216xf32>
    vyre.copy_h2d %host_b to %b : memref<16777216xf32> to memref<16777216xf32>
    vyre.dispatch @kernels::@busy blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
        args(%b : memref<16777216xf32>)
    vyre.copy_h2d %host_a to %a : memref<16777216xf32> to memref<16777216xf32>
    vyre.dispatch @kernels::@busy blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
        args(%b : memref<16777216xf32>)
    vyre.dispatch @kernels::@busy blocks(%blocks, %c1, %c1) threads(%c256, %c1, %c1)
        args(%a : memref<16777216xf32>)
    vyre.copy_d2h %a to %host_out : memref<16777216xf32> to memref<16777216xf32>
    vyre.dealloc %a : memref<16777216xf32>
    vyre.dealloc %b : memref<16777216xf32>
    return
  }
}
