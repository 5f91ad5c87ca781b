// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-plan-work -o /dev/null 2>&1 | FileCheck %s
// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-plan-work=cost-model=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-COST
// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-plan-work=side-streams=2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=STREAMS

// --test-vyre-plan-work counts the steps of planning, and says how many
// copies the cost model weighed. A function is planned once; where the cost
// model leaves copies in place, the plan is revised once (the copies that
// must follow them move below them, and the waits are planned again). A
// function without copies is planned once, and the cost model weighs
// nothing.

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k_ro(%a: memref<256xf32>, %b: memref<256xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<256xf32>
      memref.store %v, %b[%i] : memref<256xf32>
      gpu.return
    }
  }

  // The first copy is read at once and stays in place; the second, beside
  // the kernel, is moved. Two sweeps over the first plan: the second weighs
  // the copy still moved again, knowing that the first stays; it leaves
  // nothing more in place. Then the plan is revised with the first copy in
  // place.
  // CHECK: remark: 8 ops: planned 1 times, revised 1 times, in {{[0-9]+}} steps; weighed 3 copies in {{[0-9]+}} steps over 2 sweeps
  func.func @two_copies(%h0: memref<256xf32> {vyre.pinned, llvm.noalias}, %h1: memref<256xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<256xf32>
    %b = vyre.alloc : memref<256xf32>
    vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
    vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %a : memref<256xf32>, memref<256xf32>)
    vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
    return
  }

  // Three copies and no kernel: each sweep leaves copies in place that the
  // one before it moved (the last copy first: it waits for the second, and
  // nothing runs beside it). However many sweeps leave copies in place, the
  // function is planned once and revised once: the sweeps weigh the first
  // plan.
  // CHECK: remark: 7 ops: planned 1 times, revised 1 times, in {{[0-9]+}} steps; weighed 6 copies in {{[0-9]+}} steps over 3 sweeps
  func.func @each_sweep_declines(%h: memref<256xf32>, %g: memref<256xf32>) {
    %a = vyre.alloc : memref<256xf32>
    %b = vyre.alloc : memref<256xf32>
    vyre.copy_h2d %h to %a : memref<256xf32> to memref<256xf32>
    vyre.copy_h2d %h to %b : memref<256xf32> to memref<256xf32>
    vyre.copy_h2d %h to %g : memref<256xf32> to memref<256xf32>
    return
  }

  // With async copies written by hand on a side stream, whose tokens take
  // part in its stream order, the plan is not revised: it is made again,
  // once, with the copy the cost model leaves in place.
  // CHECK: remark: 11 ops: planned 2 times, revised 0 times, in {{[0-9]+}} steps; weighed 3 copies in {{[0-9]+}} steps over 2 sweeps
  func.func @hand_written(%h0: memref<256xf32> {vyre.pinned, llvm.noalias}, %h1: memref<256xf32> {vyre.pinned, llvm.noalias}, %h2: memref<256xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<256xf32>
    %b = vyre.alloc : memref<256xf32>
    %c = vyre.alloc : memref<256xf32>
    %t = vyre.copy_h2d_async %h2 to %c on stream 1 : memref<256xf32> to memref<256xf32>
    vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
    vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %a : memref<256xf32>, memref<256xf32>)
    vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
    vyre.wait %t
    return
  }

  // CHECK: remark: 2 ops: planned 1 times, revised 0 times, in {{[0-9]+}} steps; weighed 0 copies in 0 steps over 0 sweeps
  func.func @no_copies() {
    return
  }
}

// NO-COST: 8 ops: planned 1 times, revised 0 times, in {{[0-9]+}} steps; weighed 0 copies in 0 steps over 0 sweeps

// With several side streams into the device, a plan with copies left in
// place is made again rather than revised, so that the streams are dealt out
// anew.
// STREAMS: 8 ops: planned 2 times, revised 0 times, in {{[0-9]+}} steps; weighed 3 copies in {{[0-9]+}} steps over 2 sweeps
