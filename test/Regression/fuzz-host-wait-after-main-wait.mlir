// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="side-streams=2 d2h-streams=2 cost-model=false" | FileCheck %s
// RUN: vyre-opt %s --vyre-to-gpu-pipeline="side-streams=2 d2h-streams=2 cost-model=false verify=true" -o /dev/null

// Tests (a program the property test found, reduced) that where the host
// waits for the main stream before a loop that touches host memory, it does
// so after the main stream's wait for the copy that reads %h1 planned there,
// not only before it: the host writes %h1 after the loop, and the loop's own
// host waits do not happen if it runs zero times. A device-only loop right
// before had already planned a host wait at that point, before the wait.
// (The schedule's referee runs loop bodies at least once and misses it; the
// gpu dialect's referee runs them zero times too.)
// CHECK-LABEL: func.func @host_wait_after_main_wait
// CHECK:         %[[T:.+]] = vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1
// CHECK:         scf.for
// CHECK:         vyre.wait %[[T]]
// CHECK-NEXT:    %[[R:.+]] = vyre.record
// CHECK-NEXT:    vyre.sync %[[R]]
// CHECK-NEXT:    scf.for
func.func @host_wait_after_main_wait(%h0: memref<16xf32>, %h1: memref<16xf32> {llvm.noalias}, %v: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = vyre.alloc : memref<16xf32>
  %big = vyre.alloc : memref<32xf32>
  %lo = memref.subview %big[0] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1]>>
  %vlo = memref.cast %lo : memref<16xf32, strided<[1]>> to memref<16xf32>
  vyre.copy_h2d %h1 to %d0 : memref<16xf32> to memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.copy_d2h %vlo to %h0 : memref<16xf32> to memref<16xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %h0[%c0] : memref<16xf32>
    vyre.copy_d2h %d0 to %h0 : memref<16xf32> to memref<16xf32>
  }
  memref.store %v, %h1[%c0] : memref<16xf32>
  vyre.dealloc %d0 : memref<16xf32>
  vyre.dealloc %big : memref<32xf32>
  return
}
