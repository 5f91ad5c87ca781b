"""Writes one vyre function: a nest of argv[1] loops of 2 trips around a loop
of 4 trips that copies a row into a buffer and launches a kernel on it. The
row is the sum of the loops' induction variables, so no copy is the same in
two iterations of any loop. For the limit on the code --vyre-pipeline-loops
may write out: pipelining a loop puts its first fill in the loop around it,
which pipelining in turn writes out again, so that the nest would grow as
2^D. With "invariant" as argv[2], each body of the nest starts with a
launch on a buffer of its own, then copies a tile that is the same every
iteration into a buffer of its level and launches on it: the copy leaves
the loop, which then has a first iteration worth writing out in front of
it (and writing it out doubles the code of the loop around)."""

import sys

depth = int(sys.argv[1])
invariant = len(sys.argv) > 2 and sys.argv[2] == "invariant"
rows = depth + 4
print("""module {
  gpu.module @k {
    gpu.func @use(%x: memref<1024xf32>) kernel {
      gpu.return
    }
  }""")
tile = (", %tile: memref<1024xf32> {vyre.pinned, llvm.noalias}"
        if invariant else "")
print(f"  func.func @nest(%rows: memref<{rows}x1024xf32> "
      f"{{vyre.pinned, llvm.noalias}}{tile}) {{")
print("""    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %d = vyre.alloc : memref<1024xf32>""")
if invariant:
    for level in range(depth):
        print(f"    %e{level} = vyre.alloc : memref<1024xf32>")
    print("""    %f = vyre.alloc : memref<1024xf32>
    vyre.copy_h2d %tile to %f : memref<1024xf32> to memref<1024xf32>""")
indent = "    "
total = "%c0"
for level in range(depth):
    print(f"{indent}scf.for %o{level} = %c0 to %c2 step %c1 {{")
    indent += "  "
    if invariant:
        print(f"""{indent}vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%f : memref<1024xf32>)
{indent}vyre.copy_h2d %tile to %e{level} : memref<1024xf32> to memref<1024xf32>
{indent}vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%e{level} : memref<1024xf32>)""")
    print(f"{indent}%s{level} = arith.addi {total}, %o{level} : index")
    total = f"%s{level}"
print(f"""{indent}scf.for %i = %c0 to %c4 step %c1 {{
{indent}  %r = arith.addi {total}, %i : index
{indent}  %row = memref.subview %rows[%r, 0] [1, 1024] [1, 1] : memref<{rows}x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
{indent}  vyre.copy_h2d %row to %d : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
{indent}  vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<1024xf32>)
{indent}}}""")
for level in range(depth):
    indent = indent[:-2]
    print(f"{indent}}}")
if invariant:
    for level in range(depth):
        print(f"    vyre.dealloc %e{level} : memref<1024xf32>")
    print("    vyre.dealloc %f : memref<1024xf32>")
print("""    vyre.dealloc %d : memref<1024xf32>
    return
  }
}""")
