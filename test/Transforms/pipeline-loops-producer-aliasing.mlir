// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --overlap-copies --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --test-vyre-value-digest="index=2" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input2
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --test-vyre-value-digest="index=2" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.pipelined2
// RUN: cat %t.input2 %t.pipelined2 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --test-vyre-value-digest="index=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input5
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops="pipeline-depth=3" --test-vyre-value-digest="index=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.pipelined5
// RUN: cat %t.input5 %t.pipelined5 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --vyre-to-gpu-pipeline="verify=true" --test-vyre-value-digest="index=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered5
// RUN: cat %t.input5 %t.lowered5 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input0
// RUN: vyre-opt %s --vyre-to-gpu-pipeline="verify=true" --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered0
// RUN: cat %t.input0 %t.lowered0 | FileCheck %s --check-prefix=VALUES

// A host call that fills a staging buffer chosen by an arith.select of two
// arguments, one of which the body copies in before the call: the buffer
// the call writes may be the one that copy reads, so the call must not be
// issued early (it would overwrite what this iteration's first copy reads).
// The select is taken as one of the two arguments, as the referees take it:
// neither the call nor its copy move, the remark names the copy that reads
// what the call may write, and the copy's destination rotates; the values
// before and after the rewrite are the same, and so are they after the
// whole default pipeline.

// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]

// REMARK-NOT: with the host op that writes its source
// REMARK: copy into slot {{[0-9]+}} is not issued early: 'func.call' in the body may write its source, and cannot be issued early with it: it comes after the copy, which reads what the iteration before wrote
// REMARK-NOT: with the host op that writes its source

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @infer(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%c0] : memref<64xf32>
      gpu.return
    }
    gpu.func @acc(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %u = memref.load %y[%c0] : memref<64xf32>
      %w = arith.addf %v, %u : f32
      memref.store %w, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  func.func @decode(%stage: memref<64xf32>, %i: index) attributes {vyre.effects = "arguments"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.index_cast %i : index to i32
    %v = arith.sitofp %f : i32 to f32
    %old = memref.load %stage[%c1] : memref<64xf32>
    %n = arith.addf %old, %v : f32
    memref.store %v, %stage[%c0] : memref<64xf32>
    memref.store %n, %stage[%c1] : memref<64xf32>
    return
  }
  func.func @f(%a: memref<64xf32> {vyre.pinned, llvm.noalias}, %b: memref<64xf32> {vyre.pinned, llvm.noalias},
               %out: memref<64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<64xf32>
    %z = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %out to %y : memref<64xf32> to memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      vyre.copy_h2d %b to %z : memref<64xf32> to memref<64xf32>
      vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%z, %y : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 1.0}
      %p = arith.andi %i, %c1 : index
      %odd = arith.cmpi eq, %p, %c1 : index
      %s = arith.select %odd, %a, %b : memref<64xf32>
      func.call @decode(%s, %i) : (memref<64xf32>, index) -> ()
      vyre.copy_h2d %s to %x : memref<64xf32> to memref<64xf32>
      vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 100.0}
    }
    vyre.copy_d2h %y to %out : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %z : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}
