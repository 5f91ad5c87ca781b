// Batches around layers: 4 batches, each a row of a pinned host array (4 MiB
// in, ~78 us), run through 4 layers whose weights (4 MiB each) stream in
// before each layer, then copied back (4 MiB out) into its row. A loop over
// batches around a loop over layers, as a compiler emits a model whose
// weights do not all fit on the device. --vyre-pipeline-loops rotates the
// weights buffer of the inner loop (allocated once, around the outer loop);
// both loops are chained on the device, so the host does not wait in either.
module {
  gpu.module @k {
    func.func private @layer(%w: memref<1048576xf32>, %x: memref<1048576xf32>) attributes {gpu.kernel}
  }
  func.func @layered_batches(%inputs: memref<4x1048576xf32> {vyre.pinned, llvm.noalias},
                             %weights: memref<4x1048576xf32> {vyre.pinned, llvm.noalias},
                             %outputs: memref<4x1048576xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = vyre.alloc : memref<1048576xf32>
    %w = vyre.alloc : memref<1048576xf32>
    scf.for %b = %c0 to %c4 step %c1 {
      %in = memref.subview %inputs[%b, 0] [1, 1048576] [1, 1] : memref<4x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      %out = memref.subview %outputs[%b, 0] [1, 1048576] [1, 1] : memref<4x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<1048576xf32, strided<[1], offset: ?>> to memref<1048576xf32>
      scf.for %l = %c0 to %c4 step %c1 {
        %row = memref.subview %weights[%l, 0] [1, 1048576] [1, 1] : memref<4x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %w : memref<1048576xf32, strided<[1], offset: ?>> to memref<1048576xf32>
        vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%w, %x : memref<1048576xf32>, memref<1048576xf32>) access [read, readwrite] {vyre.cost_us = 60.0}
      }
      vyre.copy_d2h %x to %out : memref<1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<1048576xf32>
    vyre.dealloc %w : memref<1048576xf32>
    return
  }
}
