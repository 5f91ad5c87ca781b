// A loop that allocates a buffer per iteration and frees the previous one
// through an iter_arg (test/Regression/referee-realloc-in-loop*).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @rw(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      memref.store %v, %b[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @f(%h: memref<16xf32> {llvm.noalias}, %o: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %a0 = vyre.alloc : memref<16xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a0) -> (memref<16xf32>) {
      %b = vyre.alloc : memref<16xf32>
      vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
      vyre.dispatch @k::@rw blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%x, %b : memref<16xf32>, memref<16xf32>)
      vyre.dealloc %x : memref<16xf32>
      scf.yield %b : memref<16xf32>
    }
    vyre.copy_d2h %r to %o : memref<16xf32> to memref<16xf32>
    vyre.dealloc %r : memref<16xf32>
    return
  }
}
