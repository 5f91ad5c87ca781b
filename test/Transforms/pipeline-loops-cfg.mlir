// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --remarks-filter=pipeline-loops --verify-diagnostics -o /dev/null

// Tests that a loop built from branches between blocks counts as a loop
// around the scf.for it holds: the copy back of %x before the scf.for runs
// again after it when ^bb1 branches back, so %x does not rotate (the lowering
// takes no region of several blocks; the pass on its own must still be
// right).

gpu.module @k {
  gpu.func @k_ro(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
    gpu.return
  }
}

func.func @branch_loop(%in0: memref<6x4xf32> {llvm.noalias}, %out0: memref<6x4xf32> {llvm.noalias}, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = vyre.alloc : memref<4xf32>
  %y = vyre.alloc : memref<4xf32>
  cf.br ^bb1(%c0 : index)
^bb1(%b: index):
  %o = memref.subview %out0[%b, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
  vyre.copy_d2h %x to %o : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
  // expected-remark @below {{loop not pipelined: no copy can be issued early, and no buffer is overwritten by a launch}}
  scf.for %j = %c0 to %m step %c1 {
    %r = memref.subview %in0[%j, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    // expected-remark @below {{copy into slot 2 is not issued early: 'vyre.copy_d2h' before the loop uses slot 2 again after it, in the next run of an enclosing loop}}
    vyre.copy_h2d %r to %x : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
    vyre.dispatch @k::@k_ro blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>)
  }
  %nb = arith.addi %b, %c1 : index
  %more = arith.cmpi slt, %nb, %n : index
  cf.cond_br %more, ^bb1(%nb : index), ^bb2
^bb2:
  vyre.dealloc %x : memref<4xf32>
  vyre.dealloc %y : memref<4xf32>
  return
}
