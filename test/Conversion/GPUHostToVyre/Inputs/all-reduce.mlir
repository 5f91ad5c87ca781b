// A row-sum reduction after upstream's CUDA all-reduce integration tests:
// an inline gpu.launch whose body reduces each row with gpu.all_reduce (a
// region op in device code), reading a registered host array and writing a
// registered host result that the host then reads; here the data also
// goes through device buffers, copied in and out around the kernel.
module attributes {gpu.container_module} {
  func.func @row_sums(%rows: memref<4x256xf32>, %sums: memref<4xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %data = gpu.alloc () : memref<4x256xf32>
    %out = gpu.alloc () : memref<4xf32>
    gpu.memcpy %data, %rows : memref<4x256xf32>, memref<4x256xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %v = memref.load %data[%bx, %tx] : memref<4x256xf32>
      %sum = gpu.all_reduce add %v uniform {} : (f32) -> (f32)
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        memref.store %sum, %out[%bx] : memref<4xf32>
      }
      gpu.terminator
    }
    gpu.memcpy %sums, %out : memref<4xf32>, memref<4xf32>
    gpu.dealloc %data : memref<4x256xf32>
    gpu.dealloc %out : memref<4xf32>
    %s = memref.load %sums[%c0] : memref<4xf32>
    return %s : f32
  }
  func.func @run() -> f32 {
    %rows = memref.alloc() : memref<4x256xf32>
    %sums = memref.alloc() : memref<4xf32>
    %s = call @row_sums(%rows, %sums) : (memref<4x256xf32>, memref<4xf32>) -> f32
    memref.dealloc %rows : memref<4x256xf32>
    memref.dealloc %sums : memref<4xf32>
    return %s : f32
  }
}
