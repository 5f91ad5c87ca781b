// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=h2d-gbps=0.042 --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHOSEN
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops="h2d-gbps=0.042 max-pipeline-depth=3" --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAX3
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops="h2d-gbps=0.042 buffer-budget=8192" --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops="h2d-gbps=0.042 cost-model=false" --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCOST
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops="h2d-gbps=0.042 pipeline-depth=3" --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=h2d-gbps=0.042 | FileCheck %s
// Through the whole default pipeline: both referees (the branches of the
// written-out bodies make more combinations than max-traces checks by
// default), then upstream's NVVM lowering (cubin-format=isa: no ptxas
// needed).
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="h2d-gbps=0.042 verify=true max-traces=16384" | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null
// The values the lowered program computes are those of the input, for trip
// counts 0, 1, 5 (a remainder of each depth) and 16, both ways the device may
// interleave queued work.
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input0
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="h2d-gbps=0.042 verify=true max-traces=16384" | vyre-opt --split-input-file --test-vyre-value-digest="index=0 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered0
// RUN: cat %t.input0 %t.lowered0 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=1" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input1
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="h2d-gbps=0.042 verify=true max-traces=16384" | vyre-opt --split-input-file --test-vyre-value-digest="index=1 interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered1
// RUN: cat %t.input1 %t.lowered1 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input5
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="h2d-gbps=0.042 verify=true max-traces=16384" | vyre-opt --split-input-file --test-vyre-value-digest="index=5 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered5
// RUN: cat %t.input5 %t.lowered5 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=16" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input16
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="h2d-gbps=0.042 verify=true max-traces=16384" | vyre-opt --split-input-file --test-vyre-value-digest="index=16 interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered16
// RUN: cat %t.input16 %t.lowered16 | FileCheck %s --check-prefix=VALUES

// Tests how --vyre-pipeline-loops chooses a loop's depth (pipeline-depth=0,
// the default): it pipelines the loop at each depth from 2 to
// max-pipeline-depth in a copy of the function, schedules that copy as
// --overlap-copies does, times it on the simulator, and keeps the fastest.
// Copies here are 4 KiB at 0.042 GB/s: about 100 us each.

// (The last function takes a memref of dynamic shape, which the digest does
// not run.)
// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[C:0x[0-9a-f]+]]
// VALUES: remark: no digest
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[C]]

// Iterations alternate between a 190 us kernel and a 10 us one, each after a
// 100 us copy: at depth 2 the copy after a short kernel cannot hide, a deeper
// pipeline lets the copies run ahead through the long kernels. The trip
// count is an argument: the trials take 16 iterations.
// CHOSEN: Function=alternating | Remark="loop pipelined at depth 4: 1 copies issued 3 iteration(s) ahead, 12288 bytes of extra device memory; depth 4 is the fastest of depths 2 to 4 once scheduled and simulated ([[D2:[0-9.]+]] us at depth 2, {{[0-9.]+}} us at depth 3, {{[0-9.]+}} us at depth 4)"
// MAX3: Function=alternating | Remark="loop pipelined at depth 3: 1 copies issued 2 iteration(s) ahead, 8192 bytes of extra device memory; depth 3 is the fastest of depths 2 to 3 once scheduled and simulated ({{[0-9.]+}} us at depth 2, {{[0-9.]+}} us at depth 3)"
// BUDGET: Function=alternating | Remark="loop pipelined at depth 3: 1 copies issued 2 iteration(s) ahead, 8192 bytes of extra device memory; depth 3 is the fastest of depths 2 to 3 (deeper ones exceed buffer-budget) once scheduled and simulated ({{[0-9.]+}} us at depth 2, {{[0-9.]+}} us at depth 3)"
// Without the cost model, depth 2; pipeline-depth=N fixes the depth.
// NOCOST: Function=alternating | Remark="loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 4096 bytes of extra device memory"
// FIXED: Function=alternating | Remark="loop pipelined at depth 3: 1 copies issued 2 iteration(s) ahead, 8192 bytes of extra device memory"
// Depth 4: four buffers, three of them new.
// CHECK-LABEL: func.func @alternating
// CHECK-COUNT-4: vyre.alloc : memref<1024xf32>
// CHECK-NOT: vyre.alloc : memref<1024xf32>
// CHECK: return
module {
  gpu.module @k {
    gpu.func @heavy(%x: memref<1024xf32>, %acc: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %a = memref.load %acc[%c0] : memref<64xf32>
      %t = arith.addf %v, %v : f32
      %s = arith.addf %a, %t : f32
      memref.store %s, %acc[%c0] : memref<64xf32>
      gpu.return
    }
    gpu.func @light(%x: memref<1024xf32>, %acc: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %a = memref.load %acc[%c0] : memref<64xf32>
      %s = arith.mulf %a, %v : f32
      memref.store %s, %acc[%c0] : memref<64xf32>
      gpu.return
    }
  }
  func.func @alternating(%frames: memref<16x1024xf32> {vyre.pinned, llvm.noalias},
                         %out: memref<64xf32> {vyre.pinned, llvm.noalias},
                         %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %x = vyre.alloc : memref<1024xf32>
    %acc = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %out to %acc : memref<64xf32> to memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      %row = memref.subview %frames[%i, 0] [1, 1024] [1, 1] : memref<16x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %x : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
      %r = arith.remui %i, %c2 : index
      %even = arith.cmpi eq, %r, %c0 : index
      scf.if %even {
        vyre.dispatch @k::@heavy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %acc : memref<1024xf32>, memref<64xf32>) access [read, readwrite] {vyre.cost_us = 190.0}
      } else {
        vyre.dispatch @k::@light blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %acc : memref<1024xf32>, memref<64xf32>) access [read, readwrite] {vyre.cost_us = 10.0}
      }
    }
    vyre.copy_d2h %acc to %out : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<1024xf32>
    vyre.dealloc %acc : memref<64xf32>
    return
  }
}

// -----

// Every iteration alike: a 100 us copy and a 95 us kernel. Depth 2 already
// runs each copy beside the kernel before it; a deeper pipeline adds a
// buffer and a longer drain, and is not taken (where the buffers do not fit,
// it would not be either: the choice is then among what fits).
// CHOSEN: Function=uniform | Remark="loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 4096 bytes of extra device memory; depth 2 is the fastest of depths 2 to 4 once scheduled and simulated ({{[0-9.]+}} us at depth 2, {{[0-9.]+}} us at depth 3, {{[0-9.]+}} us at depth 4)"
// CHECK-LABEL: func.func @uniform
// CHECK-COUNT-2: vyre.alloc : memref<1024xf32>
// CHECK-NOT: vyre.alloc : memref<1024xf32>
// CHECK: return
module {
  gpu.module @k {
    gpu.func @step(%x: memref<1024xf32>, %acc: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %a = memref.load %acc[%c0] : memref<64xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%c0] : memref<64xf32>
      gpu.return
    }
  }
  func.func @uniform(%frames: memref<16x1024xf32> {vyre.pinned, llvm.noalias},
                     %out: memref<64xf32> {vyre.pinned, llvm.noalias},
                     %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<1024xf32>
    %acc = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %out to %acc : memref<64xf32> to memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      %row = memref.subview %frames[%i, 0] [1, 1024] [1, 1] : memref<16x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %x : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
      vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %acc : memref<1024xf32>, memref<64xf32>) access [read, readwrite] {vyre.cost_us = 95.0}
    }
    vyre.copy_d2h %acc to %out : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<1024xf32>
    vyre.dealloc %acc : memref<64xf32>
    return
  }
}

// -----

// Where the simulator cannot time the trials, depth 2, and the remark says
// why: a loop from a lower bound not known at compile time (its trip count
// cannot be set for the trial).
// CHOSEN: Function=from_offset | Remark="loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 4096 bytes of extra device memory; depth 2: the simulator cannot time depth 2 (its trip count is not known, nor its lower bound and step)"
module {
  gpu.module @k {
    gpu.func @step(%x: memref<1024xf32>, %acc: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %a = memref.load %acc[%c0] : memref<64xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%c0] : memref<64xf32>
      gpu.return
    }
  }
  func.func @from_offset(%frames: memref<16x1024xf32> {vyre.pinned, llvm.noalias},
                         %out: memref<64xf32> {vyre.pinned, llvm.noalias},
                         %lo: index, %hi: index) {
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<1024xf32>
    %acc = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %out to %acc : memref<64xf32> to memref<64xf32>
    scf.for %i = %lo to %hi step %c1 {
      %row = memref.subview %frames[%i, 0] [1, 1024] [1, 1] : memref<16x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %x : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
      vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %acc : memref<1024xf32>, memref<64xf32>) access [read, readwrite] {vyre.cost_us = 95.0}
    }
    vyre.copy_d2h %acc to %out : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<1024xf32>
    vyre.dealloc %acc : memref<64xf32>
    return
  }
}

// -----

// A buffer of dynamic size elsewhere in the function: the simulator cannot
// time its copy, and the depth is 2.
// CHOSEN: Function=dynamic_elsewhere | Remark="loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 4096 bytes of extra device memory; depth 2: the simulator cannot time depth 2 ({{.*}})"
module {
  gpu.module @k {
    gpu.func @step(%x: memref<1024xf32>, %acc: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %a = memref.load %acc[%c0] : memref<64xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%c0] : memref<64xf32>
      gpu.return
    }
    gpu.func @scale(%d: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %d[%c0] : memref<?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %d[%c0] : memref<?xf32>
      gpu.return
    }
  }
  func.func @dynamic_elsewhere(%frames: memref<16x1024xf32> {vyre.pinned, llvm.noalias},
                               %out: memref<64xf32> {vyre.pinned, llvm.noalias},
                               %dyn: memref<?xf32> {vyre.pinned, llvm.noalias},
                               %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = vyre.alloc(%n) : memref<?xf32>
    vyre.copy_h2d %dyn to %d : memref<?xf32> to memref<?xf32>
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%d : memref<?xf32>) access [readwrite] {vyre.cost_us = 5.0}
    vyre.copy_d2h %d to %dyn : memref<?xf32> to memref<?xf32>
    %x = vyre.alloc : memref<1024xf32>
    %acc = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %out to %acc : memref<64xf32> to memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      %row = memref.subview %frames[%i, 0] [1, 1024] [1, 1] : memref<16x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %x : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
      vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %acc : memref<1024xf32>, memref<64xf32>) access [read, readwrite] {vyre.cost_us = 95.0}
    }
    vyre.copy_d2h %acc to %out : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<1024xf32>
    vyre.dealloc %acc : memref<64xf32>
    vyre.dealloc %d : memref<?xf32>
    return
  }
}
