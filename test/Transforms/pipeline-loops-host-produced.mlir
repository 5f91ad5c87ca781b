// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=max-pipeline-depth=2 | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --remarks-filter=pipeline-loops 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops="pipeline-depth=3" --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input0
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=0 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered0
// RUN: cat %t.input0 %t.lowered0 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input5
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true pipeline-depth=3" | vyre-opt --split-input-file --test-vyre-value-digest="index=5 interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered5
// RUN: cat %t.input5 %t.lowered5 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null

// A copy whose source one host op of the body writes (a call decodes the
// next frame into a staging buffer, then it is copied in) is issued early
// with that op, just before it, where the op commutes with the rest of the
// body: the decode and copy of iteration i + 1 run beside the kernel of
// iteration i. Where it does not (the host reads the staging buffer after
// the copy too), the copy stays after it, but its destination rotates: the
// copy of iteration i + 1 then need not wait for the kernel of iteration i,
// which reads the other buffer.

// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[C:0x[0-9a-f]+]]
// VALUES: remark: digest [[D:0x[0-9a-f]+]]
// VALUES: remark: digest [[E:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[C]]
// VALUES: remark: digest [[D]]
// VALUES: remark: digest [[E]]

// Tests that the call and the staging copy are issued one iteration early,
// after the kernel of the iteration before, the call's index that of the
// iteration they fill, and that the kernel's overwritten output rotates.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @infer(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // Decodes frame %i into the staging buffer.
  func.func @decode(%stage: memref<64xf32>, %i: index) attributes {vyre.effects = "arguments"} {
    %c0 = arith.constant 0 : index
    %f = arith.index_cast %i : index to i32
    %v = arith.sitofp %f : i32 to f32
    memref.store %v, %stage[%c0] : memref<64xf32>
    return
  }
  // REMARK-NOT: Function=video {{.*}}CopyNotPrefetched
  // REMARK: remark: [Passed] LoopPipelined | Category:pipeline-loops | Function=video | Remark="loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead (1 of them with the host op that writes its source), 1 overwritten buffer(s) rotated, 512 bytes of extra device memory; depth 2 is the fastest of depths 2 to 4 once scheduled and simulated ({{.*}})"
  // CHECK-LABEL: func.func @video
  // The prologue: frame 0's decode and copy.
  // CHECK:      func.call @decode(%arg0, %[[C0:[^)]+]])
  // CHECK-NEXT: vyre.copy_h2d %arg0 to %[[X0:[^ ]+]] :
  // CHECK:      scf.for %[[I:[^ ]+]] =
  // CHECK:      vyre.dispatch @k::@infer {{.*}} args(%[[X1:[^,]+]],
  // CHECK:      %[[NEXT:[^ ]+]] = arith.addi %[[I]], %c1
  // CHECK-NEXT: func.call @decode(%arg0, %[[NEXT]])
  // CHECK-NEXT: vyre.copy_h2d %arg0 to %[[X0]] :
  // CHECK:      vyre.dispatch @k::@infer {{.*}} args(%[[X0]],
  // CHECK:      func.call @decode
  // CHECK-NEXT: vyre.copy_h2d %arg0 to %[[X1]] :
  // CHECK:      }
  // The remainder, as written.
  // CHECK:      scf.for
  // CHECK-NEXT: func.call @decode
  // CHECK-NEXT: vyre.copy_h2d
  func.func @video(%stage: memref<64xf32> {vyre.pinned, llvm.noalias},
                   %outputs: memref<8x64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      func.call @decode(%stage, %i) : (memref<64xf32>, index) -> ()
      vyre.copy_h2d %stage to %x : memref<64xf32> to memref<64xf32>
      vyre.dispatch @k::@infer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %y : memref<64xf32>, memref<64xf32>) access [read, overwrite] {vyre.cost_us = 100.0}
      %out = memref.subview %outputs[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %y to %out : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}

// -----

// Tests that the call stays where it is when the host also reads the
// staging buffer after the copy (a checksum of each frame): issued early,
// the call would overwrite what that read sees. The copy stays after the
// call, and its destination rotates.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @infer(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  func.func @decode(%stage: memref<64xf32>, %i: index) attributes {vyre.effects = "arguments"} {
    %c0 = arith.constant 0 : index
    %f = arith.index_cast %i : index to i32
    %v = arith.sitofp %f : i32 to f32
    memref.store %v, %stage[%c0] : memref<64xf32>
    return
  }
  // REMARK: remark: [Missed] CopyNotPrefetched | Category:pipeline-loops | Function=checksummed | Remark="copy into slot {{[0-9]+}} is not issued early: 'func.call' in the body may write its source, and cannot be issued early with it: 'memref.load' in the body touches what it writes, or writes what it reads"
  // REMARK: remark: [Passed] LoopPipelined | Category:pipeline-loops | Function=checksummed | Remark="loop pipelined at depth 4: 0 copies issued 3 iteration(s) ahead, 1 overwritten buffer(s) rotated, 1 destination(s) of copies whose source the body writes rotated (the copies stay in place)
  // CHECK-LABEL: func.func @checksummed
  // CHECK: scf.for
  // CHECK:      func.call @decode
  // CHECK-NEXT: vyre.copy_h2d %arg0 to %[[X1:[^ ]+]] :
  // CHECK-NEXT: memref.load %arg0
  // CHECK-NEXT: memref.store
  // CHECK-NEXT: vyre.dispatch @k::@infer {{.*}} args(%[[X1]],
  // CHECK:      func.call @decode
  // CHECK-NEXT: vyre.copy_h2d %arg0 to %[[X0:[^ ]+]] :
  // CHECK-NOT:  %[[X1]]{{[^0-9]}}
  // CHECK:      vyre.dispatch @k::@infer {{.*}} args(%[[X0]],
  func.func @checksummed(%stage: memref<64xf32> {vyre.pinned, llvm.noalias},
                         %outputs: memref<8x64xf32> {vyre.pinned, llvm.noalias},
                         %sums: memref<8xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      func.call @decode(%stage, %i) : (memref<64xf32>, index) -> ()
      vyre.copy_h2d %stage to %x : memref<64xf32> to memref<64xf32>
      %first = memref.load %stage[%c0] : memref<64xf32>
      memref.store %first, %sums[%i] : memref<8xf32>
      vyre.dispatch @k::@infer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %y : memref<64xf32>, memref<64xf32>) access [read, overwrite] {vyre.cost_us = 100.0}
      %out = memref.subview %outputs[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %y to %out : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}

// -----

// Tests the case where it must not rotate: the body reads the staging
// copy's destination before the copy (an iteration sees what the one before
// left), so nothing rotates and the loop is not pipelined.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @infer(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  func.func @decode(%stage: memref<64xf32>, %i: index) attributes {vyre.effects = "arguments"} {
    %c0 = arith.constant 0 : index
    %f = arith.index_cast %i : index to i32
    %v = arith.sitofp %f : i32 to f32
    memref.store %v, %stage[%c0] : memref<64xf32>
    return
  }
  // REMARK: remark: [Missed] LoopNotPipelined | Category:pipeline-loops | Function=reads_before | Remark="loop not pipelined: no copy can be issued early, and no buffer is overwritten by a launch"
  // CHECK-LABEL: func.func @reads_before
  // CHECK: scf.for
  // CHECK-NEXT: vyre.dispatch @k::@infer
  // CHECK-NEXT: func.call @decode
  func.func @reads_before(%stage: memref<64xf32> {vyre.pinned, llvm.noalias},
                          %outputs: memref<8x64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      vyre.dispatch @k::@infer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %y : memref<64xf32>, memref<64xf32>) access [read, write] {vyre.cost_us = 100.0}
      func.call @decode(%stage, %i) : (memref<64xf32>, index) -> ()
      vyre.copy_h2d %stage to %x : memref<64xf32> to memref<64xf32>
      %out = memref.subview %outputs[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
      vyre.copy_d2h %y to %out : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
    }
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}

// -----

// Tests that the destination does not rotate where a host op before the
// copy waits for the body's device work (a halo copied back, then exchanged
// by a call that writes the halo copied in): the copy could not run beside
// the kernels before it anyway.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%h: memref<64xf32>, %u: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %hv = memref.load %h[%c0] : memref<64xf32>
      %uv = memref.load %u[%c0] : memref<64xf32>
      %s = arith.addf %hv, %uv : f32
      memref.store %s, %u[%c0] : memref<64xf32>
      gpu.return
    }
  }
  func.func @exchange(%send: memref<64xf32>, %recv: memref<64xf32>) attributes {vyre.effects = "arguments"} {
    %c0 = arith.constant 0 : index
    %v = memref.load %send[%c0] : memref<64xf32>
    memref.store %v, %recv[%c0] : memref<64xf32>
    return
  }
  // REMARK: remark: [Missed] LoopNotPipelined | Category:pipeline-loops | Function=halo | Remark="loop not pipelined: no copy can be issued early, and no buffer is overwritten by a launch"
  // CHECK-LABEL: func.func @halo
  // CHECK: scf.for
  func.func @halo(%send: memref<64xf32> {vyre.pinned, llvm.noalias},
                  %recv: memref<64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %u = vyre.alloc : memref<64xf32>
    %hi = vyre.alloc : memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      vyre.copy_d2h %u to %send : memref<64xf32> to memref<64xf32>
      func.call @exchange(%send, %recv) : (memref<64xf32>, memref<64xf32>) -> ()
      vyre.copy_h2d %recv to %hi : memref<64xf32> to memref<64xf32>
      vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%hi, %u : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 100.0}
    }
    vyre.dealloc %u : memref<64xf32>
    vyre.dealloc %hi : memref<64xf32>
    return
  }
}

// -----

// Tests that a kernel writing the copy's source through its slot (managed
// memory the kernel updates each iteration) keeps the copy from being issued
// early (at depth 3 the early copies read the source before the kernels of
// the iterations before had written it), and that its destination does not
// rotate either: device work writes the source.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @use(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %a = memref.load %x[%c0] : memref<4xf32>
      %b = memref.load %y[%c0] : memref<4xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %y[%c0] : memref<4xf32>
      gpu.return
    }
    gpu.func @bump(%m: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %a = memref.load %m[%c0] : memref<4xf32>
      %s = arith.addf %a, %a : f32
      memref.store %s, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
  // REMARK: remark: [Missed] CopyNotPrefetched | Category:pipeline-loops | Function=managed_source | Remark="copy into slot {{[0-9]+}} is not issued early: 'vyre.dispatch' in the body may write its source"
  func.func @managed_source(%o: memref<4xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = gpu.alloc host_shared () : memref<4xf32>
    %x = vyre.alloc : memref<4xf32>
    %y = vyre.alloc : memref<4xf32>
    memref.copy %o, %m : memref<4xf32> to memref<4xf32>
    vyre.copy_h2d %o to %y : memref<4xf32> to memref<4xf32>
    // CHECK-LABEL: func.func @managed_source
    // CHECK: scf.for
    // CHECK-NEXT: vyre.copy_h2d
    scf.for %i = %c0 to %n step %c1 {
      vyre.copy_h2d %m to %x : memref<4xf32> to memref<4xf32>
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>)
      vyre.dispatch @k::@bump blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%m : memref<4xf32>)
    }
    vyre.copy_d2h %y to %o : memref<4xf32> to memref<4xf32>
    vyre.dealloc %x : memref<4xf32>
    vyre.dealloc %y : memref<4xf32>
    return
  }
}
