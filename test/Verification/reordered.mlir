// RUN: not vyre-opt %s --vyre-kernel-access --vyre-verify-schedule 2>&1 | FileCheck %s --implicit-check-not="see current operation"
// The same schedule with no source positions is checked in program order,
// where it is correct.
// RUN: vyre-opt %s --mlir-print-debuginfo | sed -e 's/loc("input.mlir":[0-9]*:[0-9]*)/loc(unknown)/g' | vyre-opt --vyre-kernel-access --vyre-verify-schedule -o /dev/null

// Tests that the input order is the source order: a copy written before a
// kernel that reads its slot, but scheduled after it, is reported as reordered.
gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func @reordered(%h: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) loc("input.mlir":20:3)
  %r = vyre.record
  %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32> loc("input.mlir":10:3)
  vyre.sync %t
  return
}

// CHECK: input.mlir:20:3: error: race on slot 1: 'vyre.dispatch' and the earlier 'vyre.copy_h2d_async' run in the opposite order of the input
// CHECK: input.mlir:10:3: note: the earlier op
