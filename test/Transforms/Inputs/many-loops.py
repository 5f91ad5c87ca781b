"""Writes one vyre function of N loops (N = argv[1]) that
--vyre-pipeline-loops rewrites one after another, in turn: a loop on a buffer
of its own; a loop nested in a loop of 2 trips (its new buffers are allocated
around the outer loop); a loop whose invariant copy leaves it before it is
pipelined; and a loop on a buffer that a kernel after it reads again, which
does not rotate. Every kernel adds what it reads into one accumulator, copied
back at the end: the values say whether each loop still computes what it
did. The loops run %n times (an argument)."""

import sys

n = int(sys.argv[1])
ROW = "memref<1024xf32, strided<[1], offset: ?>>"
print("""module {
  gpu.module @k {
    gpu.func @add(%x: memref<1024xf32>, %acc: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %a = memref.load %acc[%c0] : memref<64xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%c0] : memref<64xf32>
      gpu.return
    }
  }
  func.func @many(%frames: memref<16x1024xf32> {vyre.pinned, llvm.noalias},
                  %table: memref<1024xf32> {vyre.pinned, llvm.noalias},
                  %out: memref<64xf32> {vyre.pinned, llvm.noalias},
                  %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %acc = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %out to %acc : memref<64xf32> to memref<64xf32>""")


def add(buffer, indent):
    print(f"{indent}vyre.dispatch @k::@add blocks(%c1, %c1, %c1) threads(%c1, "
          f"%c1, %c1) args(%{buffer}, %acc : memref<1024xf32>, "
          f"memref<64xf32>) access [read, readwrite] {{vyre.cost_us = 20.0}}")


def loop(j, buffer, indent, invariant=False):
    print(f"{indent}scf.for %i{j} = %c0 to %n step %c1 {{")
    inner = indent + "  "
    if invariant:
        print(f"{inner}vyre.copy_h2d %table to %t{j} : memref<1024xf32> to "
              "memref<1024xf32>")
    print(f"{inner}%row{j} = memref.subview %frames[%i{j}, 0] [1, 1024] "
          f"[1, 1] : memref<16x1024xf32> to {ROW}")
    print(f"{inner}vyre.copy_h2d %row{j} to %{buffer} : {ROW} to "
          "memref<1024xf32>")
    add(buffer, inner)
    if invariant:
        add(f"t{j}", inner)
    print(f"{indent}}}")


for j in range(n):
    kind = j % 4
    print(f"    %x{j} = vyre.alloc : memref<1024xf32>")
    if kind == 0:
        loop(j, f"x{j}", "    ")
    elif kind == 1:
        print(f"    scf.for %o{j} = %c0 to %c2 step %c1 {{")
        loop(j, f"x{j}", "      ")
        print("    }")
    elif kind == 2:
        print(f"    %t{j} = vyre.alloc : memref<1024xf32>")
        loop(j, f"x{j}", "    ", invariant=True)
        print(f"    vyre.dealloc %t{j} : memref<1024xf32>")
    else:
        loop(j, f"x{j}", "    ")
        add(f"x{j}", "    ")
    print(f"    vyre.dealloc %x{j} : memref<1024xf32>")
print("""    vyre.copy_d2h %acc to %out : memref<64xf32> to memref<64xf32>
    vyre.dealloc %acc : memref<64xf32>
    return
  }
}""")
