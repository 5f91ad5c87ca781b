// A host-decoded staging loop, after video and data pipelines that decode
// each frame on the CPU into a pinned staging buffer, copy it in and run a
// model on it: 8 frames, each decoded by a host call (free in the model),
// copied in (4 MiB, ~78 us), run through a 100 us kernel, and its result
// copied back (4 MiB, ~78 us) into a row of a pinned host array.
//
// Bound (the simulator's, 956.5 us): the kernels, 800 us, between the
// first copy in and the last copy back (below). A frame's copy in cannot
// start before its decode, but it can run beside the kernel of the frame before once the
// decode is issued a frame early with its copy and each frame has a device
// buffer of its own (the staging copy's destination rotates), and a frame's
// copy back beside the next frame's kernel. Any schedule also pays the
// first copy in before the first kernel and the last copy back after the
// last: 78.3 + 800 + 78.3 = 956.5 us. The model also charges 21.5 us of
// host time per buffer at its free.
module {
  gpu.module @k {
    func.func private @infer(%x: memref<1048576xf32>, %y: memref<1048576xf32>) attributes {gpu.kernel}
  }
  func.func private @decode(%stage: memref<1048576xf32>, %i: index) attributes {vyre.effects = "arguments"}
  func.func @video(%stage: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                   %outputs: memref<8x1048576xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = vyre.alloc : memref<1048576xf32>
    %y = vyre.alloc : memref<1048576xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      func.call @decode(%stage, %i) : (memref<1048576xf32>, index) -> ()
      vyre.copy_h2d %stage to %x : memref<1048576xf32> to memref<1048576xf32>
      vyre.dispatch @k::@infer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %y : memref<1048576xf32>, memref<1048576xf32>) access [read, overwrite] {vyre.cost_us = 100.0}
      %out = memref.subview %outputs[%i, 0] [1, 1048576] [1, 1] : memref<8x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %y to %out : memref<1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<1048576xf32>
    vyre.dealloc %y : memref<1048576xf32>
    return
  }
}
