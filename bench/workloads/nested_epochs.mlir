// Nested epochs x batches, after the two loops of every training script:
// for each of 3 epochs, 8 batches (2 MiB each, rows of a pinned host array,
// ~40 us at 55 GB/s) run through forward (50 us), backward (90 us) and the
// optimizer step (20 us); after each epoch a validation pass runs over a
// held-out set (8 MiB, the same bytes every epoch) and its metrics (4 KiB)
// go back to the host, which reads them to decide whether to stop early,
// as a training loop's validation does.
//
// Bound: the kernels, 3 x (8 x 160 + 200) us = 4440 us, plus the first
// batch's copy before the first kernel (~40 us) and the last metrics' copy
// back after the last (~2 us). About 4482 us. The validation set is copied
// once, before the first epoch; each batch copies in beside the batch
// before it, and the first batch of an epoch beside the validation pass
// before it.
module {
  gpu.module @k {
    func.func private @forward(%x: memref<524288xf32>, %w: memref<262144xf32>, %a: memref<524288xf32>) attributes {gpu.kernel}
    func.func private @backward(%a: memref<524288xf32>, %w: memref<262144xf32>, %g: memref<262144xf32>) attributes {gpu.kernel}
    func.func private @optimizer(%w: memref<262144xf32>, %g: memref<262144xf32>) attributes {gpu.kernel}
    func.func private @validate(%v: memref<2097152xf32>, %w: memref<262144xf32>, %m: memref<1024xf32>) attributes {gpu.kernel}
  }
  func.func @train(%batches: memref<8x524288xf32> {vyre.pinned, llvm.noalias},
                   %validation: memref<2097152xf32> {vyre.pinned, llvm.noalias},
                   %metrics: memref<1024xf32> {vyre.pinned, llvm.noalias},
                   %history: memref<3xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %x = vyre.alloc : memref<524288xf32>
    %w = vyre.alloc : memref<262144xf32>
    %a = vyre.alloc : memref<524288xf32>
    %g = vyre.alloc : memref<262144xf32>
    %v = vyre.alloc : memref<2097152xf32>
    %m = vyre.alloc : memref<1024xf32>
    scf.for %e = %c0 to %c3 step %c1 {
      scf.for %i = %c0 to %c8 step %c1 {
        %b = memref.subview %batches[%i, 0] [1, 524288] [1, 1] : memref<8x524288xf32> to memref<524288xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %b to %x : memref<524288xf32, strided<[1], offset: ?>> to memref<524288xf32>
        vyre.dispatch @k::@forward blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %w, %a : memref<524288xf32>, memref<262144xf32>, memref<524288xf32>) access [read, read, write] {vyre.cost_us = 50.0}
        vyre.dispatch @k::@backward blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%a, %w, %g : memref<524288xf32>, memref<262144xf32>, memref<262144xf32>) access [read, read, write] {vyre.cost_us = 90.0}
        vyre.dispatch @k::@optimizer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%w, %g : memref<262144xf32>, memref<262144xf32>) access [readwrite, read] {vyre.cost_us = 20.0}
      }
      vyre.copy_h2d %validation to %v : memref<2097152xf32> to memref<2097152xf32>
      vyre.dispatch @k::@validate blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%v, %w, %m : memref<2097152xf32>, memref<262144xf32>, memref<1024xf32>) access [read, read, overwrite] {vyre.cost_us = 200.0}
      vyre.copy_d2h %m to %metrics : memref<1024xf32> to memref<1024xf32>
      %loss = memref.load %metrics[%c0] : memref<1024xf32>
      memref.store %loss, %history[%e] : memref<3xf32>
    }
    vyre.dealloc %x : memref<524288xf32>
    vyre.dealloc %w : memref<262144xf32>
    vyre.dealloc %a : memref<524288xf32>
    vyre.dealloc %g : memref<262144xf32>
    vyre.dealloc %v : memref<2097152xf32>
    vyre.dealloc %m : memref<1024xf32>
    return
  }
}
