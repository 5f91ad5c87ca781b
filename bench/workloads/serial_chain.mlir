// A chain where nothing can overlap, after fixed-point and Newton solvers
// that compute each step's input on the host from the last step's result:
// 8 steps, each a host call that writes the next iterate into a pinned
// buffer from the last residual, the iterate's copy in (4 MiB, ~78 us at
// 55 GB/s), a 100 us kernel computing the residual, and the residual's copy
// back (4 MiB, ~78 us), which the next step's host call reads.
//
// Bound: every op waits for the one before it (the host call for the
// residual copied back, the copy for the host call, the kernel for the
// copy, the copy back for the kernel): 8 x (~78 + 100 + ~78) us = ~2053 us,
// the serial program's device time. A schedule can only match it; the test
// is that overlapping adds nothing that makes it slower.
module {
  gpu.module @k {
    func.func private @residual(%x: memref<1048576xf32>, %r: memref<1048576xf32>) attributes {gpu.kernel}
  }
  func.func private @update(%x: memref<1048576xf32>, %r: memref<1048576xf32>) attributes {vyre.effects = "arguments"}
  func.func @solve(%x_host: memref<1048576xf32> {vyre.pinned, llvm.noalias},
                   %r_host: memref<1048576xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = vyre.alloc : memref<1048576xf32>
    %r = vyre.alloc : memref<1048576xf32>
    scf.for %s = %c0 to %c8 step %c1 {
      func.call @update(%x_host, %r_host) : (memref<1048576xf32>, memref<1048576xf32>) -> ()
      vyre.copy_h2d %x_host to %x : memref<1048576xf32> to memref<1048576xf32>
      vyre.dispatch @k::@residual blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %r : memref<1048576xf32>, memref<1048576xf32>) access [read, overwrite] {vyre.cost_us = 100.0}
      vyre.copy_d2h %r to %r_host : memref<1048576xf32> to memref<1048576xf32>
    }
    vyre.dealloc %x : memref<1048576xf32>
    vyre.dealloc %r : memref<1048576xf32>
    return
  }
}
