// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=max-pipeline-depth=2 --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=max-pipeline-depth=2 --overlap-copies | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --overlap-copies --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops="pipeline-depth=3" --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input0
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=0 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered0
// RUN: cat %t.input0 %t.lowered0 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input5
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=5 interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered5
// RUN: cat %t.input5 %t.lowered5 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=7" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input7
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="pipeline-depth=3 verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=7 interleaving=random seed=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered7
// RUN: cat %t.input7 %t.lowered7 | FileCheck %s --check-prefix=VALUES

// A loop that reads columns 0..7 of row i of a host array and writes its
// result back into columns 8..11 of the same row (a KV cache: the tokens so
// far in, the new token's keys and values back into the spare slots). The
// two views of the array share no element in any iteration, or across
// iterations: in the second dimension both select static ranges, and those
// do not meet. So the copy in is issued an iteration early, and it runs
// beside the kernel before it, not after the copy back.

// The digests of the three cases before the pipeline, then after it.
// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[C:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[C]]

// REMARK: LoopPipelined {{.*}}Function=kv_cache {{.*}}loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 1 overwritten buffer(s) rotated

// In the loop, each copy in depends on main-stream progress and the copy
// before on its stream, never on a copy back's token.
// CHECK-LABEL: func.func @kv_cache
// CHECK: scf.for
// CHECK: %[[BACK:.*]] = vyre.copy_d2h_async
// CHECK-NOT: scf.yield
// CHECK: vyre.copy_h2d_async {{.*}} after [
// CHECK-NOT: %[[BACK]]
// CHECK-SAME: ]
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @attend(%past: memref<8xf32>, %kv: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %j = %c0 to %c4 step %c1 {
      %k = arith.addi %j, %c4 : index
      %a = memref.load %past[%j] : memref<8xf32>
      %b = memref.load %past[%k] : memref<8xf32>
      %s = arith.mulf %a, %b : f32
      memref.store %s, %kv[%j] : memref<4xf32>
    }
    gpu.return
  }
}
func.func @kv_cache(%cache: memref<8x12xf32> {vyre.pinned, llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %past = vyre.alloc : memref<8xf32>
  %kv = vyre.alloc : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    %rows = memref.subview %cache[%i, 0] [1, 8] [1, 1] : memref<8x12xf32> to memref<8xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %rows to %past : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vyre.dispatch @k::@attend blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%past, %kv : memref<8xf32>, memref<4xf32>) access [read, overwrite] {vyre.cost_us = 100.0}
    %new = memref.subview %cache[%i, 8] [1, 4] [1, 1] : memref<8x12xf32> to memref<4xf32, strided<[1], offset: ?>>
    vyre.copy_d2h %kv to %new : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
  }
  vyre.dealloc %past : memref<8xf32>
  vyre.dealloc %kv : memref<4xf32>
  return
}
}

// -----

// Where the copy back writes columns the next iteration's copy reads (4..7
// of the same rows), the copy must wait for it: not issued early.
// REMARK: CopyNotPrefetched {{.*}}Function=overlapping_columns {{.*}}'vyre.copy_d2h' in the body may write its source
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @attend(%past: memref<8xf32>, %kv: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %j = %c0 to %c4 step %c1 {
      %k = arith.addi %j, %c4 : index
      %a = memref.load %past[%j] : memref<8xf32>
      %b = memref.load %past[%k] : memref<8xf32>
      %s = arith.mulf %a, %b : f32
      memref.store %s, %kv[%j] : memref<4xf32>
    }
    gpu.return
  }
}
func.func @overlapping_columns(%cache: memref<8x12xf32> {vyre.pinned, llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %past = vyre.alloc : memref<8xf32>
  %kv = vyre.alloc : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    %rows = memref.subview %cache[%i, 0] [1, 8] [1, 1] : memref<8x12xf32> to memref<8xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %rows to %past : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vyre.dispatch @k::@attend blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%past, %kv : memref<8xf32>, memref<4xf32>) access [read, overwrite] {vyre.cost_us = 100.0}
    %new = memref.subview %cache[%i, 4] [1, 4] [1, 1] : memref<8x12xf32> to memref<4xf32, strided<[1], offset: ?>>
    vyre.copy_d2h %kv to %new : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
  }
  vyre.dealloc %past : memref<8xf32>
  vyre.dealloc %kv : memref<4xf32>
  return
}
}

// -----

// Where the copy back writes the next row's columns 0..3 (a row the next
// iteration reads), the views are disjoint in no dimension with static
// ranges: the copy waits.
// REMARK: CopyNotPrefetched {{.*}}Function=next_row {{.*}}'vyre.copy_d2h' in the body may write its source
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @attend(%past: memref<8xf32>, %kv: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %j = %c0 to %c4 step %c1 {
      %k = arith.addi %j, %c4 : index
      %a = memref.load %past[%j] : memref<8xf32>
      %b = memref.load %past[%k] : memref<8xf32>
      %s = arith.mulf %a, %b : f32
      memref.store %s, %kv[%j] : memref<4xf32>
    }
    gpu.return
  }
}
func.func @next_row(%cache: memref<9x12xf32> {vyre.pinned, llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %past = vyre.alloc : memref<8xf32>
  %kv = vyre.alloc : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    %rows = memref.subview %cache[%i, 0] [1, 8] [1, 1] : memref<9x12xf32> to memref<8xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %rows to %past : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    vyre.dispatch @k::@attend blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%past, %kv : memref<8xf32>, memref<4xf32>) access [read, overwrite] {vyre.cost_us = 100.0}
    %next = arith.addi %i, %c1 : index
    %new = memref.subview %cache[%next, 0] [1, 4] [1, 1] : memref<9x12xf32> to memref<4xf32, strided<[1], offset: ?>>
    vyre.copy_d2h %kv to %new : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
  }
  vyre.dealloc %past : memref<8xf32>
  vyre.dealloc %kv : memref<4xf32>
  return
}
}
