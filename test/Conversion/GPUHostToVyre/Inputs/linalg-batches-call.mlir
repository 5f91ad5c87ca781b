// A batch loop whose kernel is a linalg.generic, for upstream's own lowering
// (--convert-linalg-to-parallel-loops, --scf-parallel-loop-tiling,
// --gpu-map-parallel-loops, --convert-parallel-loops-to-gpu) to turn into a
// gpu.launch; the copies are gpu.memcpy, as the CUDA integration tests write
// them. `@run` allocates and registers the host arrays and calls @compute,
// whose arguments carry no llvm.noalias.
#map = affine_map<(d0) -> (d0)>
func.func @compute(%in: memref<8x262144xf32>, %out: memref<8x262144xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %x = gpu.alloc () : memref<262144xf32>
  %y = gpu.alloc () : memref<262144xf32>
  scf.for %b = %c0 to %c8 step %c1 {
    %row = memref.subview %in[%b, 0] [1, 262144] [1, 1] : memref<8x262144xf32> to memref<262144xf32, strided<[1], offset: ?>>
    gpu.memcpy %x, %row : memref<262144xf32>, memref<262144xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : memref<262144xf32>) outs(%y : memref<262144xf32>) {
    ^bb0(%v: f32, %o: f32):
      %s = arith.mulf %v, %v : f32
      linalg.yield %s : f32
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
