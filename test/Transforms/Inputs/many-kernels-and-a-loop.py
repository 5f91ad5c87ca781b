"""Writes a vyre function of N/2 kernel launches (N = argv[1]), then a loop
whose copy --vyre-pipeline-loops issues early: about N/2 ops. For the limit
on the ops the depth trials schedule per function."""

import sys

n = int(sys.argv[1])
print("""module {
  gpu.module @k {
    func.func private @touch(%b: memref<64xf32>) attributes {gpu.kernel}
    func.func private @use(%x: memref<1024xf32>) attributes {gpu.kernel}
  }
  func.func @large(%frames: memref<16x1024xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %b = vyre.alloc : memref<64xf32>
    %x = vyre.alloc : memref<1024xf32>""")
for _ in range(n // 2):
    print("    vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, "
          "%c1) args(%b : memref<64xf32>) access [readwrite]")
print("""    scf.for %i = %c0 to %c16 step %c1 {
      %row = memref.subview %frames[%i, 0] [1, 1024] [1, 1] : memref<16x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %x : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<1024xf32>) access [read] {vyre.cost_us = 20.0}
    }
    vyre.dealloc %x : memref<1024xf32>
    vyre.dealloc %b : memref<64xf32>
    return
  }
}""")
