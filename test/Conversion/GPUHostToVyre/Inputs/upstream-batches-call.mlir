// A host program as an MLIR GPU compiler emits it: `@run` allocates and
// registers the host buffers, then calls a function that streams batches
// through the device: each iteration copies one row of the input in, runs a
// kernel, and copies one row of the output back. Nothing says the two
// arguments of @compute are distinct buffers (no llvm.noalias): only the
// call does.
func.func @compute(%in: memref<8x262144xf32>, %out: memref<8x262144xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  %c256 = arith.constant 256 : index
  %x = gpu.alloc () : memref<262144xf32>
  %y = gpu.alloc () : memref<262144xf32>
  scf.for %b = %c0 to %c8 step %c1 {
    %row = memref.subview %in[%b, 0] [1, 262144] [1, 1] : memref<8x262144xf32> to memref<262144xf32, strided<[1], offset: ?>>
    gpu.memcpy %x, %row : memref<262144xf32>, memref<262144xf32, strided<[1], offset: ?>>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1024, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %c256 : index
      %i = arith.addi %base, %tx : index
      %v = memref.load %x[%i] : memref<262144xf32>
      %s = arith.mulf %v, %v : f32
      memref.store %s, %y[%i] : memref<262144xf32>
      gpu.terminator
    }
    %orow = memref.subview %out[%b, 0] [1, 262144] [1, 1] : memref<8x262144xf32> to memref<262144xf32, strided<[1], offset: ?>>
    gpu.memcpy %orow, %y : memref<262144xf32, strided<[1], offset: ?>>, memref<262144xf32>
  }
  gpu.dealloc %x : memref<262144xf32>
  gpu.dealloc %y : memref<262144xf32>
  return
}

func.func @run() {
  %in = memref.alloc() : memref<8x262144xf32>
  %out = memref.alloc() : memref<8x262144xf32>
  %uin = memref.cast %in : memref<8x262144xf32> to memref<*xf32>
  %uout = memref.cast %out : memref<8x262144xf32> to memref<*xf32>
  gpu.host_register %uin : memref<*xf32>
  gpu.host_register %uout : memref<*xf32>
  call @compute(%in, %out) : (memref<8x262144xf32>, memref<8x262144xf32>) -> ()
  return
}
