// A sparse matrix times a vector in CSR form, as the sparsifier's GPU code
// generation lays it out (synchronous form): the host holds the positions,
// coordinates and values of the matrix and the dense vector; each goes to
// its own device buffer, one kernel computes a row per thread, the result is
// copied back, every device buffer is freed, and the host reads the result.
// `@run` allocates the host arrays and calls it.
module attributes {gpu.container_module} {
  gpu.module @sparse_kernels {
    gpu.func @spmv(%pos: memref<1025xindex>, %crd: memref<16384xindex>,
                   %val: memref<16384xf32>, %x: memref<1024xf32>,
                   %y: memref<1024xf32>) kernel {
      %bx = gpu.block_id x
      %tx = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %base = arith.muli %bx, %c256 : index
      %row = arith.addi %base, %tx : index
      %next = arith.addi %row, %c1 : index
      %lo = memref.load %pos[%row] : memref<1025xindex>
      %hi = memref.load %pos[%next] : memref<1025xindex>
      %zero = arith.constant 0.0 : f32
      %sum = scf.for %j = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f32) {
        %col = memref.load %crd[%j] : memref<16384xindex>
        %a = memref.load %val[%j] : memref<16384xf32>
        %b = memref.load %x[%col] : memref<1024xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      memref.store %sum, %y[%row] : memref<1024xf32>
      gpu.return
    }
  }
  func.func @spmv(%pos: memref<1025xindex>, %crd: memref<16384xindex>,
                  %val: memref<16384xf32>, %x: memref<1024xf32>,
                  %y: memref<1024xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %dpos = gpu.alloc () : memref<1025xindex>
    gpu.memcpy %dpos, %pos : memref<1025xindex>, memref<1025xindex>
    %dcrd = gpu.alloc () : memref<16384xindex>
    gpu.memcpy %dcrd, %crd : memref<16384xindex>, memref<16384xindex>
    %dval = gpu.alloc () : memref<16384xf32>
    gpu.memcpy %dval, %val : memref<16384xf32>, memref<16384xf32>
    %dx = gpu.alloc () : memref<1024xf32>
    gpu.memcpy %dx, %x : memref<1024xf32>, memref<1024xf32>
    %dy = gpu.alloc () : memref<1024xf32>
    gpu.launch_func @sparse_kernels::@spmv blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%dpos : memref<1025xindex>, %dcrd : memref<16384xindex>, %dval : memref<16384xf32>, %dx : memref<1024xf32>, %dy : memref<1024xf32>)
    gpu.memcpy %y, %dy : memref<1024xf32>, memref<1024xf32>
    gpu.dealloc %dpos : memref<1025xindex>
    gpu.dealloc %dcrd : memref<16384xindex>
    gpu.dealloc %dval : memref<16384xf32>
    gpu.dealloc %dx : memref<1024xf32>
    gpu.dealloc %dy : memref<1024xf32>
    %r = memref.load %y[%c0] : memref<1024xf32>
    return %r : f32
  }
  func.func @run() -> f32 {
    %pos = memref.alloc() : memref<1025xindex>
    %crd = memref.alloc() : memref<16384xindex>
    %val = memref.alloc() : memref<16384xf32>
    %x = memref.alloc() : memref<1024xf32>
    %y = memref.alloc() : memref<1024xf32>
    %r = call @spmv(%pos, %crd, %val, %x, %y) : (memref<1025xindex>, memref<16384xindex>, memref<16384xf32>, memref<1024xf32>, memref<1024xf32>) -> f32
    memref.dealloc %pos : memref<1025xindex>
    memref.dealloc %crd : memref<16384xindex>
    memref.dealloc %val : memref<16384xf32>
    memref.dealloc %x : memref<1024xf32>
    memref.dealloc %y : memref<1024xf32>
    return %r : f32
  }
}
