// Batched inference over an scf.for of 8 batches: 4 MiB in (~78 us), a 60 us
// model, 4 MiB out, each batch a row of pinned host arrays. The launch
// declares that it overwrites the output buffer (`overwrite`: a kernel's own
// summary says only that it writes it), so --vyre-pipeline-loops rotates both
// buffers: a batch's input copies in while the one before computes, and its
// output copies back while the next one computes.
module {
  gpu.module @k {
    func.func private @model(%x: memref<1048576xf32>, %y: memref<1048576xf32>) attributes {gpu.kernel}
  }
  func.func @batched(%inputs: memref<8x1048576xf32> {vyre.pinned, llvm.noalias},
                     %outputs: memref<8x1048576xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = vyre.alloc : memref<1048576xf32>
    %y = vyre.alloc : memref<1048576xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %in = memref.subview %inputs[%i, 0] [1, 1048576] [1, 1] : memref<8x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      %out = memref.subview %outputs[%i, 0] [1, 1048576] [1, 1] : memref<8x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<1048576xf32, strided<[1], offset: ?>> to memref<1048576xf32>
      vyre.dispatch @k::@model blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %y : memref<1048576xf32>, memref<1048576xf32>) access [read, overwrite] {vyre.cost_us = 60.0}
      vyre.copy_d2h %y to %out : memref<1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<1048576xf32>
    vyre.dealloc %y : memref<1048576xf32>
    return
  }
}
