// A training data loader, after PyTorch's pinned-memory loaders
// (`pin_memory=True`, `non_blocking=True` copies): each of 8 steps brings a
// batch in (4 MiB, a row of a pinned host array: ~76 us at 55 GB/s), runs
// forward (60 us, also writing the loss), backward (120 us) and the
// optimizer step (20 us), then copies the loss back (4 bytes) and the host
// reads it to log it, as a training loop prints its loss.
//
// Bound: the kernels, 8 x 200 us, after the first batch's copy (~78 us):
// every later batch copies in beside the step before it, and the host's
// read of the loss needs the loss alone, not backward and the optimizer,
// which the host lets run while it logs. About 1678 us.
module {
  gpu.module @k {
    func.func private @forward(%x: memref<1048576xf32>, %w: memref<262144xf32>, %a: memref<1048576xf32>, %l: memref<1xf32>) attributes {gpu.kernel}
    func.func private @backward(%a: memref<1048576xf32>, %w: memref<262144xf32>, %g: memref<262144xf32>) attributes {gpu.kernel}
    func.func private @optimizer(%w: memref<262144xf32>, %g: memref<262144xf32>) attributes {gpu.kernel}
  }
  func.func @train(%batches: memref<8x1048576xf32> {vyre.pinned, llvm.noalias},
                   %loss: memref<1xf32> {vyre.pinned, llvm.noalias},
                   %log: memref<8xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = vyre.alloc : memref<1048576xf32>
    %w = vyre.alloc : memref<262144xf32>
    %a = vyre.alloc : memref<1048576xf32>
    %g = vyre.alloc : memref<262144xf32>
    %l = vyre.alloc : memref<1xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %b = memref.subview %batches[%i, 0] [1, 1048576] [1, 1] : memref<8x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %b to %x : memref<1048576xf32, strided<[1], offset: ?>> to memref<1048576xf32>
      vyre.dispatch @k::@forward blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %w, %a, %l : memref<1048576xf32>, memref<262144xf32>, memref<1048576xf32>, memref<1xf32>) access [read, read, write, write] {vyre.cost_us = 60.0}
      vyre.dispatch @k::@backward blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%a, %w, %g : memref<1048576xf32>, memref<262144xf32>, memref<262144xf32>) access [read, read, write] {vyre.cost_us = 120.0}
      vyre.dispatch @k::@optimizer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%w, %g : memref<262144xf32>, memref<262144xf32>) access [readwrite, read] {vyre.cost_us = 20.0}
      vyre.copy_d2h %l to %loss : memref<1xf32> to memref<1xf32>
      %v = memref.load %loss[%c0] : memref<1xf32>
      memref.store %v, %log[%i] : memref<8xf32>
    }
    vyre.dealloc %x : memref<1048576xf32>
    vyre.dealloc %w : memref<262144xf32>
    vyre.dealloc %a : memref<1048576xf32>
    vyre.dealloc %g : memref<262144xf32>
    vyre.dealloc %l : memref<1xf32>
    return
  }
}
