// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --overlap-copies | FileCheck %s --check-prefix=DEFAULT
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --overlap-copies --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=3" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=3 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered
// RUN: cat %t.input %t.lowered | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null

// The host waits for the main stream in a loop's body only where a later op
// of the body needs it. A copy moved off the main stream, which the host
// waits for before the body ends, is not work the main stream leaves in
// flight: a host op that touches its host buffer waits for the copy alone,
// not for the kernels still running.

// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[C:0x[0-9a-f]+]]
// VALUES: remark: digest [[D:0x[0-9a-f]+]]
// VALUES: remark: digest [[E:0x[0-9a-f]+]]
// VALUES: remark: digest [[F:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[C]]
// VALUES: remark: digest [[D]]
// VALUES: remark: digest [[E]]
// VALUES: remark: digest [[F]]

// Tests that a training step's loss, copied back and read on the host, makes
// the host wait for the copy back only: backward and the optimizer, still
// running, are not waited for (not in this iteration, after the copy back
// of the previous one, nor after the loop).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @forward(%x: memref<1024xf32>, %w: memref<256xf32>, %a: memref<1024xf32>, %l: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<1024xf32>
      %wv = memref.load %w[%c0] : memref<256xf32>
      %s = arith.addf %xv, %wv : f32
      memref.store %s, %a[%c0] : memref<1024xf32>
      memref.store %xv, %l[%c0] : memref<1xf32>
      gpu.return
    }
    gpu.func @backward(%a: memref<1024xf32>, %w: memref<256xf32>) kernel {
      %c0 = arith.constant 0 : index
      %av = memref.load %a[%c0] : memref<1024xf32>
      %wv = memref.load %w[%c0] : memref<256xf32>
      %s = arith.addf %av, %wv : f32
      memref.store %s, %w[%c0] : memref<256xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @loss_read
  func.func @loss_read(%batch: memref<1024xf32> {vyre.pinned, llvm.noalias},
                       %loss: memref<1xf32> {vyre.pinned, llvm.noalias},
                       %log: memref<8xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<1024xf32>
    %w = vyre.alloc : memref<256xf32>
    %a = vyre.alloc : memref<1024xf32>
    %l = vyre.alloc : memref<1xf32>
    // CHECK: scf.for
    scf.for %i = %c0 to %n step %c1 {
      vyre.copy_h2d %batch to %x : memref<1024xf32> to memref<1024xf32>
      vyre.dispatch @k::@forward blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %w, %a, %l : memref<1024xf32>, memref<256xf32>, memref<1024xf32>, memref<1xf32>) access [read, read, write, write] {vyre.cost_us = 60.0}
      vyre.dispatch @k::@backward blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%a, %w : memref<1024xf32>, memref<256xf32>) access [read, readwrite] {vyre.cost_us = 120.0}
      // CHECK:      %[[BACK:.+]] = vyre.copy_d2h_async %{{.+}} to %arg1
      // CHECK-NEXT: vyre.sync %[[BACK]]
      // CHECK-NEXT: memref.load %arg1
      vyre.copy_d2h %l to %loss : memref<1xf32> to memref<1xf32>
      %v = memref.load %loss[%c0] : memref<1xf32>
      memref.store %v, %log[%i] : memref<8xf32>
    }
    // CHECK: }
    // CHECK-NEXT: vyre.dealloc
    vyre.dealloc %x : memref<1024xf32>
    vyre.dealloc %w : memref<256xf32>
    vyre.dealloc %a : memref<1024xf32>
    vyre.dealloc %l : memref<1xf32>
    return
  }
}

// -----

// Tests that a halo exchange on the host (a call that reads the halo
// copied back and writes the one to copy in) waits for the copy back only,
// not for the interior stencil, which runs beside it; the copy of the halo
// in, from the buffer the call writes, is waited for by the host before the
// body ends, so the next iteration's call needs no wait of its own.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @stencil(%u: memref<4096xf32>, %v: memref<4096xf32>) kernel {
      %c0 = arith.constant 0 : index
      %uv = memref.load %u[%c0] : memref<4096xf32>
      memref.store %uv, %v[%c0] : memref<4096xf32>
      gpu.return
    }
    gpu.func @pack(%v: memref<4096xf32>, %h: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %vv = memref.load %v[%c0] : memref<4096xf32>
      memref.store %vv, %h[%c0] : memref<64xf32>
      gpu.return
    }
    gpu.func @unpack(%h: memref<64xf32>, %u: memref<4096xf32>) kernel {
      %c0 = arith.constant 0 : index
      %hv = memref.load %h[%c0] : memref<64xf32>
      %uv = memref.load %u[%c0] : memref<4096xf32>
      %s = arith.addf %hv, %uv : f32
      memref.store %s, %u[%c0] : memref<4096xf32>
      gpu.return
    }
  }
  // A stand-in for the exchange with the neighbours: what it receives
  // depends on what it sends.
  func.func @exchange(%send: memref<64xf32>, %recv: memref<64xf32>) attributes {vyre.effects = "arguments"} {
    %c0 = arith.constant 0 : index
    %v = memref.load %send[%c0] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %recv[%c0] : memref<64xf32>
    return
  }
  // CHECK-LABEL: func.func @halo_exchange
  func.func @halo_exchange(%send: memref<64xf32> {vyre.pinned, llvm.noalias},
                           %recv: memref<64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %u = vyre.alloc : memref<4096xf32>
    %v = vyre.alloc : memref<4096xf32>
    %ho = vyre.alloc : memref<64xf32>
    %hi = vyre.alloc : memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      vyre.dispatch @k::@pack blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%v, %ho : memref<4096xf32>, memref<64xf32>) access [read, write] {vyre.cost_us = 5.0}
      vyre.copy_d2h %ho to %send : memref<64xf32> to memref<64xf32>
      // CHECK:      %[[OUT:.+]] = vyre.copy_d2h_async
      // CHECK-NEXT: vyre.dispatch @k::@stencil
      // CHECK-NEXT: vyre.sync %[[OUT]]
      // CHECK-NEXT: func.call @exchange
      vyre.dispatch @k::@stencil blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%u, %v : memref<4096xf32>, memref<4096xf32>) access [read, write] {vyre.cost_us = 200.0}
      func.call @exchange(%send, %recv) : (memref<64xf32>, memref<64xf32>) -> ()
      vyre.copy_h2d %recv to %hi : memref<64xf32> to memref<64xf32>
      vyre.dispatch @k::@unpack blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%hi, %u : memref<64xf32>, memref<4096xf32>) access [read, readwrite] {vyre.cost_us = 5.0}
    }
    vyre.dealloc %u : memref<4096xf32>
    vyre.dealloc %v : memref<4096xf32>
    vyre.dealloc %ho : memref<64xf32>
    vyre.dealloc %hi : memref<64xf32>
    return
  }
}

// -----

// Tests the case where the wait is needed: the host reads, at the top of the
// body and after the loop, a buffer a kernel of the loop writes; the kernel
// of the previous iteration may still run, so the host waits for the main
// stream there.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%d: memref<4xf32>, %o: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %dv = memref.load %d[%c0] : memref<4xf32>
      memref.store %dv, %o[%c0] : memref<4xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @kernel_writes_what_the_host_reads
  func.func @kernel_writes_what_the_host_reads(%out: memref<4xf32> {vyre.pinned, llvm.noalias},
                                               %log: memref<8xf32> {llvm.noalias},
                                               %in: memref<4xf32> {vyre.pinned, llvm.noalias}, %n: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = vyre.alloc : memref<4xf32>
    vyre.copy_h2d %in to %d : memref<4xf32> to memref<4xf32>
    // CHECK: scf.for
    // CHECK-NEXT: %[[TOP:.+]] = vyre.record
    // CHECK-NEXT: vyre.sync %[[TOP]]
    // CHECK-NEXT: memref.load %arg0
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %out[%c0] : memref<4xf32>
      memref.store %v, %log[%i] : memref<8xf32>
      vyre.dispatch @k::@produce blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%d, %out : memref<4xf32>, memref<4xf32>) access [read, write] {vyre.cost_us = 50.0}
    }
    // CHECK: vyre.dispatch @k::@produce {{.+}}}{{$}}
    // CHECK-NEXT: }
    // CHECK-NEXT: %[[END:.+]] = vyre.record
    // CHECK-NEXT: vyre.sync %[[END]]
    // CHECK-NEXT: memref.load %arg0
    %r = memref.load %out[%c0] : memref<4xf32>
    vyre.dealloc %d : memref<4xf32>
    return %r : f32
  }
}

// -----

// Tests a host call that fills a staging buffer at the top of the body,
// which --vyre-pipeline-loops issues one iteration early with its copy,
// after the kernel of the iteration before. The copy that read the staging
// buffer before the first call of the written-out body returned to the host
// in the body before (its last host wait covers it): nothing the call
// touches is in flight at the top, so no wait goes there, neither from
// --overlap-copies nor from its async-in-place step. The wait before the
// second call, for the copy before it, stays.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @infer(%x: memref<16xf32>, %y: memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<16xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%c0] : memref<16xf32>
      gpu.return
    }
  }
  func.func @decode(%stage: memref<16xf32>, %i: index) attributes {vyre.effects = "arguments"} {
    %c0 = arith.constant 0 : index
    %n = arith.index_cast %i : index to i32
    %f = arith.sitofp %n : i32 to f32
    memref.store %f, %stage[%c0] : memref<16xf32>
    return
  }
  // The loop pipelined at depth 2, its body written out twice:
  // DEFAULT-LABEL: func.func @decoded_staging
  // DEFAULT: scf.for
  // DEFAULT-NEXT: vyre.record
  // DEFAULT-NEXT: vyre.dispatch @k::@infer
  // DEFAULT-NOT: vyre.sync
  // DEFAULT: func.call @decode
  // DEFAULT-NEXT: vyre.copy_h2d_async {{.*}} on stream 1
  // DEFAULT: vyre.sync
  // DEFAULT-NEXT: func.call @decode
  // The remainder loop, where nothing later in the body waits for the copy
  // in place: the next iteration's call must wait for it.
  // DEFAULT: scf.for
  // DEFAULT-NEXT: %[[TOP:.+]] = vyre.record
  // DEFAULT-NEXT: vyre.sync %[[TOP]]
  // DEFAULT-NEXT: func.call @decode
  func.func @decoded_staging(%stage: memref<16xf32> {vyre.pinned, llvm.noalias},
                             %out: memref<8x16xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %x = vyre.alloc : memref<16xf32>
    %y = vyre.alloc : memref<16xf32>
    scf.for %i = %c0 to %n step %c1 {
      func.call @decode(%stage, %i) : (memref<16xf32>, index) -> ()
      vyre.copy_h2d %stage to %x : memref<16xf32> to memref<16xf32>
      vyre.dispatch @k::@infer blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1)
          args(%x, %y : memref<16xf32>, memref<16xf32>) access [read, overwrite] {vyre.cost_us = 100.0}
      %row = memref.subview %out[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %y to %row : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<16xf32>
    vyre.dealloc %y : memref<16xf32>
    return
  }
}
