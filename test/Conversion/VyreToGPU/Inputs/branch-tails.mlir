// Both branches of an scf.if start a copy, run a loop, then wait for the
// copy: once upstream lowers the branches to blocks, their last blocks differ
// only in the token they wait on, and its rewrite driver merges them.
module {
  gpu.module @kernels {
    gpu.func @inc(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @branch_tails(%h: memref<16xf32> {llvm.noalias},
                          %a: memref<16xf32> {llvm.noalias},
                          %b: memref<16xf32> {llvm.noalias},
                          %x: memref<16xf32> {llvm.noalias},
                          %n: index, %p: i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.if %p {
      %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
      scf.for %i = %c0 to %n step %c1 {
        vyre.dispatch @kernels::@inc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
      }
      vyre.sync %t
    } else {
      %t = vyre.copy_h2d_async %h to %b on stream 1 : memref<16xf32> to memref<16xf32>
      scf.for %i = %c0 to %n step %c1 {
        vyre.dispatch @kernels::@inc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
      }
      vyre.sync %t
    }
    return
  }
}
