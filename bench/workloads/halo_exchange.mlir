// A stencil time loop with a halo exchange on the host, after MPI codes
// that overlap the interior update with the exchange: each of 4 steps packs
// the boundary (5 us) and copies it back (16 KiB), updates the interior
// (200 us) while the host exchanges the halo with its neighbours (a call
// that reads the halo sent and writes the one received), copies the
// received halo in and unpacks it (5 us).
//
// Bound: the kernels, 4 x 210 us = 840 us. The halo's way out, through the
// host and back (two ~2.3 us copies and the call), runs beside the
// interior update; the next step's pack reads what the update wrote, and
// the unpack writes what the next update reads.
module {
  gpu.module @k {
    func.func private @stencil(%u: memref<1048576xf32>, %v: memref<1048576xf32>) attributes {gpu.kernel}
    func.func private @pack(%v: memref<1048576xf32>, %h: memref<4096xf32>) attributes {gpu.kernel}
    func.func private @unpack(%h: memref<4096xf32>, %u: memref<1048576xf32>) attributes {gpu.kernel}
  }
  func.func private @exchange(%send: memref<4096xf32>, %recv: memref<4096xf32>) attributes {vyre.effects = "arguments"}
  func.func @halo(%send: memref<4096xf32> {vyre.pinned, llvm.noalias},
                  %recv: memref<4096xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %u = vyre.alloc : memref<1048576xf32>
    %v = vyre.alloc : memref<1048576xf32>
    %ho = vyre.alloc : memref<4096xf32>
    %hi = vyre.alloc : memref<4096xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      vyre.dispatch @k::@pack blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%v, %ho : memref<1048576xf32>, memref<4096xf32>) access [read, write] {vyre.cost_us = 5.0}
      vyre.copy_d2h %ho to %send : memref<4096xf32> to memref<4096xf32>
      vyre.dispatch @k::@stencil blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%u, %v : memref<1048576xf32>, memref<1048576xf32>) access [read, write] {vyre.cost_us = 200.0}
      func.call @exchange(%send, %recv) : (memref<4096xf32>, memref<4096xf32>) -> ()
      vyre.copy_h2d %recv to %hi : memref<4096xf32> to memref<4096xf32>
      vyre.dispatch @k::@unpack blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%hi, %u : memref<4096xf32>, memref<1048576xf32>) access [read, readwrite] {vyre.cost_us = 5.0}
    }
    vyre.dealloc %u : memref<1048576xf32>
    vyre.dealloc %v : memref<1048576xf32>
    vyre.dealloc %ho : memref<4096xf32>
    vyre.dealloc %hi : memref<4096xf32>
    return
  }
}
