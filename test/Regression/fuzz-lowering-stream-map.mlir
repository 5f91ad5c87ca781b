// Found by vyre-fuzz-mlir under ASan: --convert-vyre-to-gpu read a stream id
// through a DenseMap iterator after inserting into the map (heap use after
// free). Tests that the lowering, and the referee on the scheduled program,
// get through it; the sanitized build (make check-sanitized) checks memory.
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule --convert-vyre-to-gpu | FileCheck %s
// CHECK: gpu.memcpy async
// CHECK-NOT: vyre.


  gpu.module @k {
    gpu.func @r_w(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      memref.store %v, %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @r_r(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      %w = memref.load %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @w_w(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %a[%i] : memref<16xf32>
      memref.store %z, %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @rw_n(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%i] : memref<16xf32>
      %old = memref.atomic_rmw addf %v, %a[%c0] : (f32, memref<16xf32>) -> f32
      gpu.return
    }
    gpu.func @n_n(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      gpu.return
    }
    func.func private @opaque(%a: memref<16xf32>, %b: memref<16xf32>) attributes {gpu.kernel}
  }
  func.func private @host_call()
  func.func @f(%h0: memref<16xf32>, %h1: memref<16xf32>, %h2: memref<16xf32> {llvm.noalias}, %g: memref<16xf32>, %v: f32, %n: index, %c: i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %d0 = vyre.alloc : memref<16xf32>
    %d1 = vyre.alloc : memref<16xf32>
    %d2 = vyre.alloc : memref<16xf32>
    %d3 = vyre.alloc : memref<16xf32>
    %big = vyre.alloc : memref<32xf32>
    %lo = memref.subview %big[0] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1]>>
    %hi = memref.subview %big[16] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1], offset: 16>>
    %vlo = memref.cast %lo : memref<16xf32, strided<[1]>> to memref<16xf32>
    vyre.dispatch @k::@rw_n blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%vlo, %d0 : memref<16xf32>, memref<16xf32>)
    vyre.dispatch @k::@n_n blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d1, %vlo : memref<16xf32>, memref<16xf32>)
    vyre.dispatch @k::@w_w blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d1, %d1 : memref<16xf32>, memref<16xf32>)
    vyre.copy_h2d %h2 to %vlo : memref<16xf32> to memref<16xf32>
    vyre.copy_h2d %h2 to %d1 : memref<16xf32> to memref<16xf32>
    vyre.copy_d2h %g to %h2 : memref<16xf32> to memref<16xf32>
    vyre.copy_h2d %h1 to %d1 : memref<16xf32> to memref<16xf32>
    vyre.copy_h2d %h1 to %vlo : memref<16xf32> to memref<16xf32>
    vyre.copy_d2h %d1 to %h2 : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@n_n blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d0, %g : memref<16xf32>, memref<16xf32>)
    scf.for %i0 = %c0 to %n step %c1 {
      vyre.dispatch @k::@n_n blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%g, %d1 : memref<16xf32>, memref<16xf32>)
    }
    vyre.dispatch @k::@w_w blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d0, %d1 : memref<16xf32>, memref<16xf32>)
    vyre.dispatch @k::@r_r blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d0, %d0 : memref<16xf32>, memref<16xf32>)
    vyre.copy_h2d %h2 to %d0 : memref<16xf32> to memref<16xf32>
    scf.for %i1 = %c0 to %n step %c1 {
      vyre.dispatch @k::@r_r blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d1, %vlo : memref<16xf32>, memref<16xf32>)
      vyre.copy_h2d %h0 to %g : memref<16xf32> to memref<16xf32>
      vyre.copy_h2d %h0 to %g : memref<16xf32> to memref<16xf32>
      vyre.copy_d2h %vlo to %h0 : memref<16xf32> to memref<16xf32>
      vyre.copy_h2d %h0 to %vlo : memref<16xf32> to memref<16xf32>
    }
    vyre.dispatch @k::@rw_n blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d1, %d3 : memref<16xf32>, memref<16xf32>)
    scf.for %i2 = %c0 to %n step %c1 {
      vyre.dispatch @k::@r_r blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%vlo, %d1 : memref<16xf32>, memref<16xf32>)
      vyre.copy_h2d %h1 to %d3 : memref<16xf32> to memref<16xf32>
      vyre.copy_d2h %d3 to %h0 : memref<16xf32> to memref<16xf32>
      vyre.copy_d2h %g to %h1 : memref<16xf32> to memref<16xf32>
      vyre.copy_h2d %h1 to %d0 : memref<16xf32> to memref<16xf32>
    }
    vyre.copy_h2d %h2 to %g : memref<16xf32> to memref<16xf32>
    vyre.dealloc %d0 : memref<16xf32>
    vyre.dealloc %d1 : memref<16xf32>
    vyre.dealloc %d2 : memref<16xf32>
    vyre.dealloc %d3 : memref<16xf32>
    vyre.dealloc %big : memref<32xf32>
    return
  }
