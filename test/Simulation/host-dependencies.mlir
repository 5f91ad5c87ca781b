// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-simulate="launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0" --verify-diagnostics -o /dev/null

// Tests that the bound's longest path follows dependencies through the host:
// each step's host call reads the residual the step before copied back and
// writes the iterate the step copies in, so nothing overlaps. Per step: copy
// in (2 us), kernel (10 us), copy back (2 us): 4 x 14 = 56 us, the serial
// device time. Through device buffers alone the chain would miss each copy
// back (50 us), and the bound would promise an overlap no schedule has.
gpu.module @k {
  func.func private @residual(%x: memref<16xf32>, %r: memref<16xf32>) attributes {gpu.kernel}
}
func.func private @update(%x: memref<16xf32>, %r: memref<16xf32>) attributes {vyre.effects = "arguments"}
// expected-remark @+1 {{device time 56.0 us, bound 56.0 us (H2D copies 8.0 us, D2H copies 8.0 us, kernels 40.0 us, longest path 56.0 us}}
func.func @through_the_host(%xh: memref<16xf32> {vyre.pinned, llvm.noalias},
                            %rh: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = vyre.alloc : memref<16xf32>
  %r = vyre.alloc : memref<16xf32>
  scf.for %s = %c0 to %c4 step %c1 {
    func.call @update(%xh, %rh) : (memref<16xf32>, memref<16xf32>) -> ()
    vyre.copy_h2d %xh to %x : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@residual blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %r : memref<16xf32>, memref<16xf32>) access [read, overwrite] {vyre.cost_us = 10.0}
    vyre.copy_d2h %r to %rh : memref<16xf32> to memref<16xf32>
  }
  return
}

// -----

// The same with a host memref.copy between the copies (the ops' declared
// effects): the chain goes through it too.
gpu.module @k {
  func.func private @residual(%x: memref<16xf32>, %r: memref<16xf32>) attributes {gpu.kernel}
}
// expected-remark @+1 {{longest path 56.0 us}}
func.func @through_a_host_copy(%xh: memref<16xf32> {vyre.pinned, llvm.noalias},
                                    %rh: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = vyre.alloc : memref<16xf32>
  %r = vyre.alloc : memref<16xf32>
  scf.for %s = %c0 to %c4 step %c1 {
    memref.copy %rh, %xh : memref<16xf32> to memref<16xf32>
    vyre.copy_h2d %xh to %x : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@residual blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %r : memref<16xf32>, memref<16xf32>) access [read, overwrite] {vyre.cost_us = 10.0}
    vyre.copy_d2h %r to %rh : memref<16xf32> to memref<16xf32>
  }
  return
}

// -----

// Where the host call writes a row of a host array (a view, other bytes each
// iteration) the chain does not follow it: the path is the device's, 50 us.
// A view of the same row in two iterations would chain steps that need not
// wait, and the bound must never exceed what a schedule can reach.
gpu.module @k {
  func.func private @residual(%x: memref<16xf32>, %r: memref<16xf32>) attributes {gpu.kernel}
}
func.func private @update(%x: memref<16xf32, strided<[1], offset: ?>>, %r: memref<16xf32>) attributes {vyre.effects = "arguments"}
// expected-remark @+1 {{longest path 50.0 us}}
func.func @rows_of_an_array(%xh: memref<4x16xf32> {vyre.pinned, llvm.noalias},
                            %rh: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = vyre.alloc : memref<16xf32>
  %r = vyre.alloc : memref<16xf32>
  scf.for %s = %c0 to %c4 step %c1 {
    %row = memref.subview %xh[%s, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    func.call @update(%row, %rh) : (memref<16xf32, strided<[1], offset: ?>>, memref<16xf32>) -> ()
    vyre.copy_h2d %row to %x : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@residual blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %r : memref<16xf32>, memref<16xf32>) access [read, overwrite] {vyre.cost_us = 10.0}
    vyre.copy_d2h %r to %rh : memref<16xf32> to memref<16xf32>
  }
  return
}
