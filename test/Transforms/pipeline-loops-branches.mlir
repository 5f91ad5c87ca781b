// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=max-pipeline-depth=2 | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=max-pipeline-depth=2 --remarks-filter=pipeline-loops 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops="pipeline-depth=3" --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input0
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true max-traces=16384" | vyre-opt --split-input-file --test-vyre-value-digest="index=0 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered0
// RUN: cat %t.input0 %t.lowered0 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input5
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="pipeline-depth=3" | vyre-opt --split-input-file --test-vyre-value-digest="index=5 interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered5
// RUN: cat %t.input5 %t.lowered5 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=7 condition=false" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input7
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true max-traces=16384" | vyre-opt --split-input-file --test-vyre-value-digest="index=7 condition=false interleaving=random seed=3" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered7
// RUN: cat %t.input7 %t.lowered7 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null

// The gpu-level referee checks each combination of the branches the
// pipeline writes out (one per iteration it unrolls, conditions computed
// from the induction variable): at depth 2 that is within 16384 traces; at
// depth 3 the vyre-level referee and the values check the rewrite.

// Loops whose bodies branch (scf.if) are pipelined: a copy before the
// branch is a fill like any other, a copy in a branch is issued early under
// the same condition, and a buffer both branches fill is filled under the
// condition, by one branch or the other. Each iteration's body is written
// out once per slot, its branch with it: one path per iteration, as before.

// The digests of the five cases before the pipeline, then after it.
// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[C:0x[0-9a-f]+]]
// VALUES: remark: digest [[D:0x[0-9a-f]+]]
// VALUES: remark: digest [[E:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[C]]
// VALUES: remark: digest [[D]]
// VALUES: remark: digest [[E]]

// -----

// Tests that the frame copy before the branch (a detector that refines
// every fourth frame) is issued an iteration ahead, the branch written out
// with each iteration.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @detect(%x: memref<64xf32>, %s: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %s[%c0] : memref<64xf32>
      gpu.return
    }
    gpu.func @refine(%x: memref<64xf32>, %s: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %t = memref.load %s[%c0] : memref<64xf32>
      %w = arith.mulf %v, %t : f32
      memref.store %w, %y[%c0] : memref<64xf32>
      gpu.return
    }
    gpu.func @cheap(%s: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %t = memref.load %s[%c0] : memref<64xf32>
      %w = arith.subf %t, %t : f32
      memref.store %w, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // REMARK: remark: [Passed] LoopPipelined | Category:pipeline-loops | Function=detector | Remark="loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 2 overwritten buffer(s) rotated
  // CHECK-LABEL: func.func @detector
  // CHECK:      scf.for
  // CHECK:        vyre.dispatch @k::@detect {{.*}}args(%[[X1:[^,]+]], %[[S1:[^ ]+]] :
  // CHECK:        scf.if
  // CHECK-NEXT:     vyre.dispatch @k::@refine {{.*}}args(%[[X1]], %[[S1]], %[[Y1:[^ ]+]] :
  // CHECK-NEXT:   } else {
  // CHECK-NEXT:     vyre.dispatch @k::@cheap {{.*}}args(%[[S1]], %[[Y1]] :
  // CHECK-NEXT:   {{^ *[}]$}}
  // CHECK:        vyre.copy_h2d {{.*}} to %[[X0:[^ ]+]] :
  // CHECK:        vyre.copy_d2h %[[Y0:[^ ]+]] to
  // CHECK:        vyre.dispatch @k::@detect {{.*}}args(%[[X0]],
  // CHECK:        scf.if
  // CHECK-NEXT:     vyre.dispatch @k::@refine {{.*}}%[[Y0]] :
  // CHECK:        vyre.copy_h2d {{.*}} to %[[X1]] :
  // CHECK:        vyre.copy_d2h %[[Y1]] to
  func.func @detector(%frames: memref<16x64xf32> {vyre.pinned, llvm.noalias},
                      %boxes: memref<16x64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = vyre.alloc : memref<64xf32>
    %s = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      %frame = memref.subview %frames[%i, 0] [1, 64] [1, 1] : memref<16x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %frame to %x : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
      vyre.dispatch @k::@detect blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %s : memref<64xf32>, memref<64xf32>) access [read, overwrite] {vyre.cost_us = 80.0}
      %r = arith.remui %i, %c4 : index
      %key = arith.cmpi eq, %r, %c0 : index
      scf.if %key {
        vyre.dispatch @k::@refine blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %s, %y : memref<64xf32>, memref<64xf32>, memref<64xf32>) access [read, read, overwrite] {vyre.cost_us = 200.0}
      } else {
        vyre.dispatch @k::@cheap blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%s, %y : memref<64xf32>, memref<64xf32>) access [read, overwrite] {vyre.cost_us = 20.0}
      }
      %out = memref.subview %boxes[%i, 0] [1, 64] [1, 1] : memref<16x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %y to %out : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %s : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}

// -----

// Tests that a copy in one branch (the weights of the heavy path, a
// different row each iteration) is issued early under the same condition,
// recomputed for the iteration it fills; the branch's clone keeps its
// kernel and loses its copy.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @heavy(%x: memref<64xf32>, %w: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %t = memref.load %w[%c0] : memref<64xf32>
      %u = memref.load %y[%c0] : memref<64xf32>
      %p = arith.mulf %v, %t : f32
      %q = arith.addf %p, %u : f32
      memref.store %q, %y[%c0] : memref<64xf32>
      gpu.return
    }
    gpu.func @light(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %u = memref.load %y[%c0] : memref<64xf32>
      %q = arith.addf %v, %u : f32
      memref.store %q, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // REMARK: remark: [Passed] LoopPipelined | Category:pipeline-loops | Function=one_branch | Remark="loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead (1 of them in branches, issued under the same condition)
  // CHECK-LABEL: func.func @one_branch
  // The rotating buffer is allocated right after the one it rotates (and
  // freed right after it): the lowering makes them one allocation.
  // CHECK:      vyre.alloc
  // CHECK-NEXT: vyre.alloc
  // CHECK-NEXT: %[[W1:.+]] = vyre.alloc : memref<64xf32>
  // CHECK-NEXT: vyre.alloc
  // CHECK:      vyre.copy_h2d %arg2
  // The prologue's fill and slot 0's, of iterations 0 and 1: their
  // conditions fold, and the copies are issued directly.
  // CHECK:      scf.if
  // CHECK-NEXT:   memref.subview
  // CHECK-NEXT:   vyre.copy_h2d {{.*}} to %[[W0:[^ ]+]] :
  // CHECK-NEXT:   arith.cmpi ult
  // CHECK-NEXT:   scf.if
  // CHECK-NEXT:     vyre.dispatch @k::@heavy {{.*}}args(%{{[^,]+}}, %[[W0]],
  // CHECK-NEXT:   } else {
  // CHECK-NEXT:     vyre.dispatch @k::@light
  // CHECK-NEXT:   {{^ *[}]$}}
  // CHECK:        memref.subview
  // CHECK-NEXT:   vyre.copy_h2d {{.*}} to %[[W1]] :
  // In the loop, each fill under the condition computed for its iteration.
  // CHECK:        scf.for
  // CHECK:          scf.if
  // CHECK-NEXT:       vyre.dispatch @k::@heavy {{.*}}args(%{{[^,]+}}, %[[W1]],
  // CHECK:          arith.cmpi ult
  // CHECK-NEXT:     scf.if
  // CHECK-NEXT:       memref.subview
  // CHECK-NEXT:       vyre.copy_h2d {{.*}} to %[[W0]] :
  func.func @one_branch(%weights: memref<16x64xf32> {vyre.pinned, llvm.noalias},
                        %xs: memref<64xf32> {vyre.pinned, llvm.noalias},
                        %ys: memref<64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %x = vyre.alloc : memref<64xf32>
    %w = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %xs to %x : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %ys to %y : memref<64xf32> to memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      %heavy = arith.cmpi ult, %i, %c3 : index
      scf.if %heavy {
        %row = memref.subview %weights[%i, 0] [1, 64] [1, 1] : memref<16x64xf32> to memref<64xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %w : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
        vyre.dispatch @k::@heavy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %w, %y : memref<64xf32>, memref<64xf32>, memref<64xf32>) {vyre.cost_us = 150.0}
      } else {
        vyre.dispatch @k::@light blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %y : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 30.0}
      }
    }
    vyre.copy_d2h %y to %ys : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %w : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}

// -----

// Tests that a buffer both branches fill (from one source or another,
// chosen by an argument) and that a kernel after the branch reads is
// issued early under the condition, one branch's copy or the other's.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @acc(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %u = memref.load %y[%c0] : memref<64xf32>
      %q = arith.addf %v, %u : f32
      memref.store %q, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // REMARK: remark: [Passed] LoopPipelined | Category:pipeline-loops | Function=both_branches | Remark="loop pipelined at depth 2: 2 copies issued 1 iteration(s) ahead (2 of them in branches, issued under the same condition)
  // CHECK-LABEL: func.func @both_branches
  // CHECK:      scf.if %arg3 {
  // CHECK-NEXT:   memref.subview %arg0
  // CHECK-NEXT:   vyre.copy_h2d
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   memref.subview %arg1
  // CHECK-NEXT:   vyre.copy_h2d
  // CHECK-NEXT: {{^ *[}]$}}
  // CHECK-NEXT: vyre.dispatch @k::@acc
  // CHECK:      scf.if %arg3 {
  // CHECK-NEXT:   memref.subview %arg0
  // CHECK-NEXT:   vyre.copy_h2d
  // CHECK:      scf.for
  // CHECK-NOT:    vyre.copy_h2d
  // CHECK:        vyre.dispatch @k::@acc
  // CHECK:        arith.addi
  // CHECK-NEXT:   scf.if %arg3 {
  // CHECK-NEXT:     memref.subview %arg0
  // CHECK-NEXT:     vyre.copy_h2d
  func.func @both_branches(%a: memref<16x64xf32> {vyre.pinned, llvm.noalias},
                           %b: memref<16x64xf32> {vyre.pinned, llvm.noalias},
                           %ys: memref<64xf32> {vyre.pinned, llvm.noalias},
                           %fromA: i1, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %ys to %y : memref<64xf32> to memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      scf.if %fromA {
        %row = memref.subview %a[%i, 0] [1, 64] [1, 1] : memref<16x64xf32> to memref<64xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %x : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
      } else {
        %row = memref.subview %b[%i, 0] [1, 64] [1, 1] : memref<16x64xf32> to memref<64xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %x : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
      }
      vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %y : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 100.0}
    }
    vyre.copy_d2h %y to %ys : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}

// -----

// Tests the cases where a branch's copy must stay in place: the other
// branch reads the buffer without filling it (an iteration taking it sees
// what an earlier one left), and a kernel after the branch reads a buffer
// only one branch fills.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @acc(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %u = memref.load %y[%c0] : memref<64xf32>
      %q = arith.addf %v, %u : f32
      memref.store %q, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // REMARK: remark: [Missed] CopyNotPrefetched | Category:pipeline-loops | Function=stale_reads | Remark="copy into slot {{[0-9]+}} is not issued early: 'scf.if' touches slot {{[0-9]+}} where no copy or overwriting launch of the branch came first: an iteration would see what the one before left"
  // REMARK: remark: [Missed] CopyNotPrefetched | Category:pipeline-loops | Function=stale_reads | Remark="copy into slot {{[0-9]+}} is not issued early: 'vyre.dispatch' touches slot {{[0-9]+}} where no copy or overwriting launch of the branch came first: an iteration would see what the one before left"
  // REMARK: remark: [Missed] LoopNotPipelined | Category:pipeline-loops | Function=stale_reads | Remark="loop not pipelined: no copy can be issued early
  // CHECK-LABEL: func.func @stale_reads
  // CHECK:      scf.for
  // CHECK-NEXT:   scf.if
  // CHECK-NEXT:     memref.subview
  // CHECK-NEXT:     vyre.copy_h2d
  func.func @stale_reads(%a: memref<16x64xf32> {vyre.pinned, llvm.noalias},
                         %ys: memref<64xf32> {vyre.pinned, llvm.noalias},
                         %c: i1, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<64xf32>
    %z = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %ys to %y : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %ys to %x : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %ys to %z : memref<64xf32> to memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      scf.if %c {
        %row = memref.subview %a[%i, 0] [1, 64] [1, 1] : memref<16x64xf32> to memref<64xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %x : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
        vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %y : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 100.0}
        %row2 = memref.subview %a[%i, 0] [1, 64] [1, 1] : memref<16x64xf32> to memref<64xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row2 to %z : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
      } else {
        vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %y : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 100.0}
      }
      vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%z, %y : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 100.0}
    }
    vyre.copy_d2h %y to %ys : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %z : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}

// -----

// Tests that a condition read from memory (a flag the host loads each
// iteration) keeps the branch's copy in place: it cannot be computed an
// iteration early.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @acc(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %u = memref.load %y[%c0] : memref<64xf32>
      %q = arith.addf %v, %u : f32
      memref.store %q, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // REMARK: remark: [Missed] CopyNotPrefetched | Category:pipeline-loops | Function=loaded_condition | Remark="copy into slot {{[0-9]+}} is not issued early: the condition of its branch is computed inside the loop by an op with effects"
  // CHECK-LABEL: func.func @loaded_condition
  // CHECK:      scf.for
  // CHECK-NEXT:   memref.load
  // CHECK-NEXT:   scf.if
  // CHECK-NEXT:     memref.subview
  // CHECK-NEXT:     vyre.copy_h2d
  func.func @loaded_condition(%a: memref<16x64xf32> {vyre.pinned, llvm.noalias},
                              %flags: memref<16xi1> {llvm.noalias},
                              %ys: memref<64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %ys to %y : memref<64xf32> to memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      %f = memref.load %flags[%i] : memref<16xi1>
      scf.if %f {
        %row = memref.subview %a[%i, 0] [1, 64] [1, 1] : memref<16x64xf32> to memref<64xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %x : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
        vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
            args(%x, %y : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 100.0}
      }
    }
    vyre.copy_d2h %y to %ys : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}
