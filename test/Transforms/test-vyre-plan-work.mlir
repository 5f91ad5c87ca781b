// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-plan-work -o /dev/null 2>&1 | FileCheck %s
// RUN: vyre-opt %s --vyre-kernel-access --test-vyre-plan-work=cost-model=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-COST

// --test-vyre-plan-work counts the steps of planning, and says how many
// copies the cost model weighed. A function without copies is planned once,
// and the cost model weighs nothing.

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
  // the kernel, is moved. Two plans: the one the cost model weighed, and the
  // one with the first copy in place, weighed again.
  // CHECK: remark: 8 ops: planned 2 times in {{[0-9]+}} steps; weighed 3 copies in {{[0-9]+}} steps
  func.func @two_copies(%h0: memref<256xf32> {vyre.pinned, llvm.noalias}, %h1: memref<256xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<256xf32>
    %b = vyre.alloc : memref<256xf32>
    vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
    vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %a : memref<256xf32>, memref<256xf32>)
    vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
    return
  }

  // CHECK: remark: 2 ops: planned 1 times in {{[0-9]+}} steps; weighed 0 copies in 0 steps
  func.func @no_copies() {
    return
  }
}

// NO-COST: 8 ops: planned 1 times in {{[0-9]+}} steps; weighed 0 copies in 0 steps
