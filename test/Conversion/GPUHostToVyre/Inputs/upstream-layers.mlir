// A host program as an MLIR GPU compiler emits it before upstream's
// --gpu-async-region: kernels written inline (gpu.launch), pinned host
// buffers (memref.alloc and gpu.host_register), device buffers from
// gpu.alloc, synchronous copies both ways, and an scf.for over layers. Each
// iteration copies two layers' weights in and runs a kernel per layer; the
// second copy can overlap the first kernel.
func.func @layers(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %hw0 = memref.alloc() : memref<256xf32>
  %hw1 = memref.alloc() : memref<256xf32>
  %hact = memref.alloc() : memref<256xf32>
  %u0 = memref.cast %hw0 : memref<256xf32> to memref<*xf32>
  %u1 = memref.cast %hw1 : memref<256xf32> to memref<*xf32>
  %ua = memref.cast %hact : memref<256xf32> to memref<*xf32>
  gpu.host_register %u0 : memref<*xf32>
  gpu.host_register %u1 : memref<*xf32>
  gpu.host_register %ua : memref<*xf32>
  %w0 = gpu.alloc () : memref<256xf32>
  %w1 = gpu.alloc () : memref<256xf32>
  %act = gpu.alloc () : memref<256xf32>
  gpu.memcpy %act, %hact : memref<256xf32>, memref<256xf32>
  scf.for %i = %c0 to %n step %c1 {
    gpu.memcpy %w0, %hw0 : memref<256xf32>, memref<256xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %w = memref.load %w0[%tx] : memref<256xf32>
      %a = memref.load %act[%tx] : memref<256xf32>
      %m = arith.mulf %w, %a : f32
      memref.store %m, %act[%tx] : memref<256xf32>
      gpu.terminator
    }
    gpu.memcpy %w1, %hw1 : memref<256xf32>, memref<256xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %w = memref.load %w1[%tx] : memref<256xf32>
      %a = memref.load %act[%tx] : memref<256xf32>
      %m = arith.addf %w, %a : f32
      memref.store %m, %act[%tx] : memref<256xf32>
      gpu.terminator
    }
  }
  gpu.memcpy %hact, %act : memref<256xf32>, memref<256xf32>
  gpu.dealloc %w0 : memref<256xf32>
  gpu.dealloc %w1 : memref<256xf32>
  gpu.dealloc %act : memref<256xf32>
  return
}
