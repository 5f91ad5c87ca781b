// RUN: vyre-opt %s --vyre-kernel-access --vyre-function-effects --overlap-copies=cost-model=false | FileCheck %s

// Tests that in a function of several blocks the host waits for the main
// stream right after a device-only loop: a branch to another block (here
// back to the loop's own block, whose store writes what the loop's copies
// read) leaves the block without the wait the return makes. (The referees
// take no function of several blocks; the pass on its own must still be
// right.)

gpu.module @k {
  gpu.func @inc(%x: memref<16xf32>, %y: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    %w = memref.load %y[%i] : memref<16xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %y[%i] : memref<16xf32>
    gpu.return
  }
}

// CHECK-LABEL: func.func @loop_in_a_block
// CHECK:         memref.store
// CHECK-NEXT:    scf.for
// CHECK:         }
// CHECK-NEXT:    %[[P:.+]] = vyre.record
// CHECK-NEXT:    vyre.sync %[[P]]
// CHECK:         cf.cond_br
func.func @loop_in_a_block(%n: index, %m: index, %o: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = memref.alloc() : memref<16xf32>
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  cf.br ^bb1(%c0 : index)
^bb1(%k: index):
  %kf = arith.index_cast %k : index to i32
  %kv = arith.sitofp %kf : i32 to f32
  memref.store %kv, %h[%c0] : memref<16xf32>
  scf.for %i = %c0 to %m step %c1 {
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@inc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>)
  }
  %nk = arith.addi %k, %c1 : index
  %more = arith.cmpi slt, %nk, %n : index
  cf.cond_br %more, ^bb1(%nk : index), ^bb2
^bb2:
  vyre.copy_d2h %b to %o : memref<16xf32> to memref<16xf32>
  return
}
