// A branchy detector loop, after video analytics pipelines that run a cheap
// detector on every frame and a heavy refinement on keyframes only (the
// rest track the last detections): 16 frames, each copied in (4 MiB,
// ~78 us), run through a 100 us detector; every fourth frame (a keyframe)
// then copies in its refinement weights (2 MiB, ~40 us) and runs a 250 us
// refinement, the others a 40 us tracker; the boxes are copied back (256
// KiB, ~7 us) into a row of a pinned host array.
//
// Bound (the simulator's, 3165 us): the kernels, 16 * 100 + 4 * 250 + 12 *
// 40 = 3080 us, once every copy runs beside a kernel of another frame (the
// frame and the weights, under the keyframe condition, copied an iteration
// ahead into rotating buffers, the boxes copied back an iteration late),
// after the first frame's copy (~80 us) before the first detector and
// before the last boxes' copy (~7 us) after the last kernel. Beyond it, the
// model charges 21.5 us of host time per buffer freed (8 once pipelined).
module {
  gpu.module @k {
    func.func private @detect(%x: memref<1048576xf32>, %s: memref<65536xf32>) attributes {gpu.kernel}
    func.func private @refine(%x: memref<1048576xf32>, %w: memref<524288xf32>, %s: memref<65536xf32>, %y: memref<65536xf32>) attributes {gpu.kernel}
    func.func private @track(%s: memref<65536xf32>, %y: memref<65536xf32>) attributes {gpu.kernel}
  }
  func.func @detector(%frames: memref<16x1048576xf32> {vyre.pinned, llvm.noalias},
                      %weights: memref<4x524288xf32> {vyre.pinned, llvm.noalias},
                      %boxes: memref<16x65536xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %x = vyre.alloc : memref<1048576xf32>
    %w = vyre.alloc : memref<524288xf32>
    %s = vyre.alloc : memref<65536xf32>
    %y = vyre.alloc : memref<65536xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      %frame = memref.subview %frames[%i, 0] [1, 1048576] [1, 1] : memref<16x1048576xf32> to memref<1048576xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %frame to %x : memref<1048576xf32, strided<[1], offset: ?>> to memref<1048576xf32>
      vyre.dispatch @k::@detect blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %s : memref<1048576xf32>, memref<65536xf32>) access [read, overwrite] {vyre.cost_us = 100.0}
      %phase = arith.remui %i, %c4 : index
      %keyframe = arith.cmpi eq, %phase, %c0 : index
      scf.if %keyframe {
        %k = arith.divui %i, %c4 : index
        %row = memref.subview %weights[%k, 0] [1, 524288] [1, 1] : memref<4x524288xf32> to memref<524288xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %w : memref<524288xf32, strided<[1], offset: ?>> to memref<524288xf32>
        vyre.dispatch @k::@refine blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %w, %s, %y : memref<1048576xf32>, memref<524288xf32>, memref<65536xf32>, memref<65536xf32>) access [read, read, read, overwrite] {vyre.cost_us = 250.0}
      } else {
        vyre.dispatch @k::@track blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%s, %y : memref<65536xf32>, memref<65536xf32>) access [read, overwrite] {vyre.cost_us = 40.0}
      }
      %out = memref.subview %boxes[%i, 0] [1, 65536] [1, 1] : memref<16x65536xf32> to memref<65536xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %y to %out : memref<65536xf32> to memref<65536xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<1048576xf32>
    vyre.dealloc %w : memref<524288xf32>
    vyre.dealloc %s : memref<65536xf32>
    vyre.dealloc %y : memref<65536xf32>
    return
  }
}
