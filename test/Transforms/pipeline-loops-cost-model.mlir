// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=cost-model=false --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --overlap-copies --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=5 interleaving=random seed=7" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered
// RUN: cat %t.input %t.lowered | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="cost-model=false h2d-gbps=20 verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=5 interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.all
// RUN: cat %t.input %t.all | FileCheck %s --check-prefix=VALUES

// With the cost model, --vyre-pipeline-loops leaves in its iteration a
// copy that the kernels before its buffer's first use hide: every copy
// issued early in a body is waited for where the next iteration starts, so
// moving it would only delay that start. Here %b's copy (2.0 us at the
// default 55 GB/s) is hidden by the 100 us kernel on %a before %b's first
// use; %a's copy, needed by the body's first kernel, is issued early.

// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[C:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[C]]

// COST: CopyNotPrefetched {{.*}}Function=hidden {{.*}}the 100.0 us of kernels before its first use in the body hide its 2.0 us (with the copies left before it and those moved out of the loop): left in its iteration
// COST: LoopPipelined {{.*}}Function=hidden {{.*}}loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 1024 bytes
// ALL: LoopPipelined {{.*}}Function=hidden {{.*}}loop pipelined at depth 2: 2 copies issued 1 iteration(s) ahead, 2048 bytes
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @use(%x: memref<256xf32>, %y: memref<256xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c255 = arith.constant 255 : index
      %a = memref.load %x[%c0] : memref<256xf32>
      %b = memref.load %x[%c255] : memref<256xf32>
      %s = arith.addf %a, %b : f32
      %t = memref.load %y[%c0] : memref<256xf32>
      %u = arith.mulf %s, %t : f32
      memref.store %u, %y[%c0] : memref<256xf32>
      gpu.return
    }
  }
  func.func @hidden(%rows: memref<8x256xf32> {vyre.pinned, llvm.noalias},
                    %other: memref<8x256xf32> {vyre.pinned, llvm.noalias},
                    %out: memref<256xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<256xf32>
    %b = vyre.alloc : memref<256xf32>
    %acc = vyre.alloc : memref<256xf32>
    vyre.copy_h2d %out to %acc : memref<256xf32> to memref<256xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ra = memref.subview %rows[%i, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<256xf32, strided<[1], offset: ?>>
      %rb = memref.subview %other[%i, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<256xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %ra to %a : memref<256xf32, strided<[1], offset: ?>> to memref<256xf32>
      vyre.copy_h2d %rb to %b : memref<256xf32, strided<[1], offset: ?>> to memref<256xf32>
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<256xf32>, memref<256xf32>) {vyre.cost_us = 100.0}
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %acc : memref<256xf32>, memref<256xf32>) {vyre.cost_us = 100.0}
    }
    vyre.copy_d2h %acc to %out : memref<256xf32> to memref<256xf32>
    vyre.dealloc %a : memref<256xf32>
    vyre.dealloc %b : memref<256xf32>
    vyre.dealloc %acc : memref<256xf32>
    return
  }
}

// -----

// Where the kernel before %b's first use takes 1 us, less than %b's copy,
// both copies are issued early.
// COST: LoopPipelined {{.*}}Function=not_hidden {{.*}}loop pipelined at depth 2: 2 copies issued 1 iteration(s) ahead, 2048 bytes
// ALL: LoopPipelined {{.*}}Function=not_hidden {{.*}}loop pipelined at depth 2: 2 copies issued 1 iteration(s) ahead, 2048 bytes
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @use(%x: memref<256xf32>, %y: memref<256xf32>) kernel {
      %c0 = arith.constant 0 : index
      %a = memref.load %x[%c0] : memref<256xf32>
      %t = memref.load %y[%c0] : memref<256xf32>
      %u = arith.addf %a, %t : f32
      memref.store %u, %y[%c0] : memref<256xf32>
      gpu.return
    }
  }
  func.func @not_hidden(%rows: memref<8x256xf32> {vyre.pinned, llvm.noalias},
                        %other: memref<8x256xf32> {vyre.pinned, llvm.noalias},
                        %out: memref<256xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<256xf32>
    %b = vyre.alloc : memref<256xf32>
    %acc = vyre.alloc : memref<256xf32>
    vyre.copy_h2d %out to %acc : memref<256xf32> to memref<256xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ra = memref.subview %rows[%i, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<256xf32, strided<[1], offset: ?>>
      %rb = memref.subview %other[%i, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<256xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %ra to %a : memref<256xf32, strided<[1], offset: ?>> to memref<256xf32>
      vyre.copy_h2d %rb to %b : memref<256xf32, strided<[1], offset: ?>> to memref<256xf32>
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<256xf32>, memref<256xf32>) {vyre.cost_us = 1.0}
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %acc : memref<256xf32>, memref<256xf32>) {vyre.cost_us = 100.0}
    }
    vyre.copy_d2h %acc to %out : memref<256xf32> to memref<256xf32>
    vyre.dealloc %a : memref<256xf32>
    vyre.dealloc %b : memref<256xf32>
    vyre.dealloc %acc : memref<256xf32>
    return
  }
}

// -----

// The copies moved out of the loop count first: issued just before it, they
// hold the copy engine during the first iteration. Here the 3 us kernel
// before %b's first use would hide %b's 2.0 us copy alone, but not with the
// 2.0 us copy of %w, which writes the same bytes every iteration and moves
// out of the loop: both fills are issued early.
// COST: InvariantCopyHoisted {{.*}}Function=after_hoisted
// COST: LoopPipelined {{.*}}Function=after_hoisted {{.*}}loop pipelined at depth 2: 2 copies issued 1 iteration(s) ahead, 2048 bytes
// ALL: LoopPipelined {{.*}}Function=after_hoisted {{.*}}loop pipelined at depth 2: 2 copies issued 1 iteration(s) ahead, 2048 bytes
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @use(%x: memref<256xf32>, %y: memref<256xf32>) kernel {
      %c0 = arith.constant 0 : index
      %a = memref.load %x[%c0] : memref<256xf32>
      %t = memref.load %y[%c0] : memref<256xf32>
      %u = arith.addf %a, %t : f32
      memref.store %u, %y[%c0] : memref<256xf32>
      gpu.return
    }
  }
  func.func @after_hoisted(%rows: memref<8x256xf32> {vyre.pinned, llvm.noalias},
                           %other: memref<8x256xf32> {vyre.pinned, llvm.noalias},
                           %weights: memref<256xf32> {vyre.pinned, llvm.noalias},
                           %out: memref<256xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<256xf32>
    %b = vyre.alloc : memref<256xf32>
    %w = vyre.alloc : memref<256xf32>
    %acc = vyre.alloc : memref<256xf32>
    vyre.copy_h2d %out to %acc : memref<256xf32> to memref<256xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ra = memref.subview %rows[%i, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<256xf32, strided<[1], offset: ?>>
      %rb = memref.subview %other[%i, 0] [1, 256] [1, 1] : memref<8x256xf32> to memref<256xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %ra to %a : memref<256xf32, strided<[1], offset: ?>> to memref<256xf32>
      vyre.copy_h2d %weights to %w : memref<256xf32> to memref<256xf32>
      vyre.copy_h2d %rb to %b : memref<256xf32, strided<[1], offset: ?>> to memref<256xf32>
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<256xf32>, memref<256xf32>) {vyre.cost_us = 3.0}
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %acc : memref<256xf32>, memref<256xf32>) {vyre.cost_us = 100.0}
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%w, %acc : memref<256xf32>, memref<256xf32>) {vyre.cost_us = 1.0}
    }
    vyre.copy_d2h %acc to %out : memref<256xf32> to memref<256xf32>
    vyre.dealloc %a : memref<256xf32>
    vyre.dealloc %b : memref<256xf32>
    vyre.dealloc %w : memref<256xf32>
    vyre.dealloc %acc : memref<256xf32>
    return
  }
}
