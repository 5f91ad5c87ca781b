// A fork on one token: two kernels that both start after the copy and run
// beside each other, the first on the copy's stream, the second on a
// stream that joins it (a token two ops depended on directly would put
// both on one stream; the join names the token twice, or canonicalize,
// which upstream's NVVM pipeline runs too, folds it into the token); then
// a synchronous read-back and frees.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @sum(%x: memref<16xf32>, %out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<16xf32>
      memref.store %v, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
  func.func @fork(%h: memref<16xf32>, %r: memref<1xf32>, %r2: memref<1xf32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %t = gpu.wait async
    %d, %ta = gpu.alloc async [%t] () : memref<16xf32>
    %o, %tb = gpu.alloc async [%ta] () : memref<1xf32>
    %o2, %tb2 = gpu.alloc async [%tb] () : memref<1xf32>
    %tc = gpu.memcpy async [%tb2] %d, %h : memref<16xf32>, memref<16xf32>
    %k0 = gpu.launch_func async [%tc] @k::@sum blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>, %o : memref<1xf32>)
    %side = gpu.wait async [%tc, %tc]
    %k1 = gpu.launch_func async [%side] @k::@sum blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>, %o2 : memref<1xf32>)
    gpu.wait [%k0]
    gpu.wait [%k1]
    gpu.memcpy %r, %o : memref<1xf32>, memref<1xf32>
    gpu.memcpy %r2, %o2 : memref<1xf32>, memref<1xf32>
    gpu.dealloc %d : memref<16xf32>
    gpu.dealloc %o : memref<1xf32>
    gpu.dealloc %o2 : memref<1xf32>
    return
  }
}
