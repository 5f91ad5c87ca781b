"""Writes one vyre function of two nests: an outer loop of argv[1] trips,
whose first iteration takes a branch (so the simulator runs its iterations
one by one), around a loop of 16 trips that --vyre-pipeline-loops pipelines.
For the limit on the ops the depth trials simulate per function, loop
iterations included."""

import sys

trips = int(sys.argv[1])
print(f"""module {{
  gpu.module @k {{
    func.func private @use(%x: memref<1024xf32>) attributes {{gpu.kernel}}
  }}
  func.func @nests(%frames: memref<16x1024xf32> {{vyre.pinned, llvm.noalias}}) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %trips = arith.constant {trips} : index
    %y = vyre.alloc : memref<1024xf32>""")
for nest in range(2):
    print(f"""    %x{nest} = vyre.alloc : memref<1024xf32>
    scf.for %o{nest} = %c0 to %trips step %c1 {{
      %first{nest} = arith.cmpi eq, %o{nest}, %c0 : index
      scf.if %first{nest} {{
        vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<1024xf32>) access [read] {{vyre.cost_us = 5.0}}
      }}
      scf.for %i{nest} = %c0 to %c16 step %c1 {{
        %row = memref.subview %frames[%i{nest}, 0] [1, 1024] [1, 1] : memref<16x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
        vyre.copy_h2d %row to %x{nest} : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
        vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x{nest} : memref<1024xf32>) access [read] {{vyre.cost_us = 20.0}}
      }}
    }}
    vyre.dealloc %x{nest} : memref<1024xf32>""")
print("""    vyre.dealloc %y : memref<1024xf32>
    return
  }
}""")
