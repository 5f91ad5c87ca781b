// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops="h2d-gbps=0.042 d2h-gbps=0.042" --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHOSEN
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops="h2d-gbps=0.042 d2h-gbps=0.042" | FileCheck %s
// Through the whole default pipeline with both referees, then upstream's
// NVVM lowering (cubin-format=isa: no ptxas needed).
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="h2d-gbps=0.042 d2h-gbps=0.042 verify=true" | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null
// The values the lowered program computes are those of the input, both ways
// the device may interleave queued work.
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="h2d-gbps=0.042 d2h-gbps=0.042 verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lazy
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="h2d-gbps=0.042 d2h-gbps=0.042 verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.eager
// RUN: cat %t.input %t.lazy %t.eager | FileCheck %s --check-prefix=VALUES

// Tests that --vyre-pipeline-loops chooses the depth of a loop in a nest
// with the loop around it pipelined: each trial of the inner loop's depth
// pipelines the outer loop too, at depth 2, as the pass will once it gets
// there. Batches around layers: each batch's input (4 KiB) is copied in,
// run through four layers whose weights (4 KiB each) are copied in before
// each layer, and copied back. Copies take about 100 us each way (0.042
// GB/s).
// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]

// Layers of 75 us. Tried alone, with the batch loop as written, the layer
// loop is fastest at depth 2 (what the pass chose before it tried the
// nest); with the batch loop pipelined, the weights of the next batch's
// first layers come in during this batch's last ones, and depth 3 is faster.
// The trial of the inner loop at the depth chosen is the program the outer
// loop's trial at depth 2 times: the same makespan.
// CHOSEN: Function=batches_around_layers | Remark="loop pipelined at depth 3: 1 copies issued 2 iteration(s) ahead, 8192 bytes of extra device memory; depth 3 is the fastest of depths 2 to 4 once scheduled and simulated, the loop around it pipelined at depth 2 ({{[0-9.]+}} us at depth 2, [[INNER3:[0-9.]+]] us at depth 3, {{[0-9.]+}} us at depth 4)"
// CHOSEN: Function=batches_around_layers | Remark="loop pipelined at depth 2: 3 copies issued 1 iteration(s) ahead, 12288 bytes of extra device memory; depth 2 is the fastest of depths 2 to 4 once scheduled and simulated ([[INNER3]] us at depth 2, {{[0-9.]+}} us at depth 3, {{[0-9.]+}} us at depth 4)"
// The input and weights buffers, two more weights buffers for the layer
// loop at depth 3, and one more of each buffer the batch loop fills (the
// input, and the two the layer loop's first fills write): seven.
// CHECK-LABEL: func.func @batches_around_layers
// CHECK-COUNT-7: vyre.alloc : memref<1024xf32>
// CHECK-NOT: vyre.alloc : memref<1024xf32>
// CHECK: return
module {
  gpu.module @k {
    gpu.func @layer(%w: memref<1024xf32>, %x: memref<1024xf32>) kernel {
      %c0 = arith.constant 0 : index
      %wi = memref.load %w[%c0] : memref<1024xf32>
      %xi = memref.load %x[%c0] : memref<1024xf32>
      %v = arith.addf %wi, %xi : f32
      memref.store %v, %x[%c0] : memref<1024xf32>
      gpu.return
    }
  }
  func.func @batches_around_layers(%inputs: memref<4x1024xf32> {vyre.pinned, llvm.noalias},
                                   %weights: memref<4x1024xf32> {vyre.pinned, llvm.noalias},
                                   %outputs: memref<4x1024xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = vyre.alloc : memref<1024xf32>
    %w = vyre.alloc : memref<1024xf32>
    scf.for %b = %c0 to %c4 step %c1 {
      %in = memref.subview %inputs[%b, 0] [1, 1024] [1, 1] : memref<4x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      %out = memref.subview %outputs[%b, 0] [1, 1024] [1, 1] : memref<4x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
      scf.for %l = %c0 to %c4 step %c1 {
        %row = memref.subview %weights[%l, 0] [1, 1024] [1, 1] : memref<4x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %w : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
        vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%w, %x : memref<1024xf32>, memref<1024xf32>) access [read, readwrite] {vyre.cost_us = 75.0}
      }
      vyre.copy_d2h %x to %out : memref<1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<1024xf32>
    vyre.dealloc %w : memref<1024xf32>
    return
  }
}

// -----

// Layers of 10 us: the copies bound the nest. A third weights buffer lets
// each layer's weights come in two layers ahead, 20 us sooner in all; a
// fourth gains nothing more (the buffers cost no free of their own: they
// are allocated with the weights buffer, as one): depth 3, with the loop
// around it pipelined at depth 2, rotating the batch and the three weights
// buffers.
// CHOSEN: Function=batches_around_layers | Remark="loop pipelined at depth 3: 1 copies issued 2 iteration(s) ahead, 8192 bytes of extra device memory; depth 3 is the fastest of depths 2 to 4 once scheduled and simulated, the loop around it pipelined at depth 2 (
// CHOSEN: Function=batches_around_layers | Remark="loop pipelined at depth 2: 4 copies issued 1 iteration(s) ahead, 16384 bytes of extra device memory; depth 2 is the fastest
// Eight buffers: the two of the program, two more weights buffers, and a
// second of each of the four for the loop around.
// CHECK-LABEL: func.func @batches_around_layers
// CHECK-COUNT-8: vyre.alloc : memref<1024xf32>
// CHECK-NOT: vyre.alloc : memref<1024xf32>
// CHECK: return
module {
  gpu.module @k {
    gpu.func @layer(%w: memref<1024xf32>, %x: memref<1024xf32>) kernel {
      %c0 = arith.constant 0 : index
      %wi = memref.load %w[%c0] : memref<1024xf32>
      %xi = memref.load %x[%c0] : memref<1024xf32>
      %v = arith.addf %wi, %xi : f32
      memref.store %v, %x[%c0] : memref<1024xf32>
      gpu.return
    }
  }
  func.func @batches_around_layers(%inputs: memref<4x1024xf32> {vyre.pinned, llvm.noalias},
                                   %weights: memref<4x1024xf32> {vyre.pinned, llvm.noalias},
                                   %outputs: memref<4x1024xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = vyre.alloc : memref<1024xf32>
    %w = vyre.alloc : memref<1024xf32>
    scf.for %b = %c0 to %c4 step %c1 {
      %in = memref.subview %inputs[%b, 0] [1, 1024] [1, 1] : memref<4x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      %out = memref.subview %outputs[%b, 0] [1, 1024] [1, 1] : memref<4x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %in to %x : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
      scf.for %l = %c0 to %c4 step %c1 {
        %row = memref.subview %weights[%l, 0] [1, 1024] [1, 1] : memref<4x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %w : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
        vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%w, %x : memref<1024xf32>, memref<1024xf32>) access [read, readwrite] {vyre.cost_us = 10.0}
      }
      vyre.copy_d2h %x to %out : memref<1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<1024xf32>
    vyre.dealloc %w : memref<1024xf32>
    return
  }
}
