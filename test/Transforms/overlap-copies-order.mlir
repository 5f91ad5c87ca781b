// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false order-kernels=false" | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false order-copies=false order-kernels=false" | FileCheck %s --check-prefix=INPUT-ORDER
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false order-kernels=false" --remarks-filter=overlap-copies 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --overlap-copies --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=3" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="index=3 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered
// RUN: cat %t.input %t.lowered | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null

// --overlap-copies issues a run of consecutive copies into the device in the
// order their first consumers need them (order-copies, on by default): on a
// side stream a copy waits for every copy issued before it, and the input's
// order among copies that nothing orders is not a constraint.

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

// Tests a model load: the second layer's weights, then the first layer's,
// then the input. The first layer's weights and the input are issued first
// (the two are needed by the same kernel: input order between them), the
// second layer's weights last.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @layer(%x: memref<64xf32>, %w: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<64xf32>
      %wv = memref.load %w[%c0] : memref<64xf32>
      %s = arith.addf %xv, %wv : f32
      memref.store %s, %x[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @model_load
  // INPUT-ORDER-LABEL: func.func @model_load
  // REMARK: remark: [Analysis] CopiesOrderedByNeed | Category:overlap-copies | Function=model_load | Remark="3 copies issued in the order their first consumers need them
  func.func @model_load(%in: memref<64xf32> {vyre.pinned, llvm.noalias},
                        %hw0: memref<64xf32> {vyre.pinned, llvm.noalias},
                        %hw1: memref<64xf32> {vyre.pinned, llvm.noalias},
                        %out: memref<64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<64xf32>
    %w0 = vyre.alloc : memref<64xf32>
    %w1 = vyre.alloc : memref<64xf32>
    // CHECK:      vyre.copy_h2d_async %arg1 to
    // CHECK-NEXT: vyre.copy_h2d_async %arg0 to
    // CHECK:      vyre.copy_h2d_async %arg2 to
    // CHECK:      vyre.dispatch
    // INPUT-ORDER:      vyre.copy_h2d_async %arg2 to
    // INPUT-ORDER:      vyre.copy_h2d_async %arg1 to
    // INPUT-ORDER:      vyre.copy_h2d_async %arg0 to
    // INPUT-ORDER:      vyre.dispatch
    vyre.copy_h2d %hw1 to %w1 : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %hw0 to %w0 : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %in to %x : memref<64xf32> to memref<64xf32>
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w0 : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
    vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%x, %w1 : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
    vyre.copy_d2h %x to %out : memref<64xf32> to memref<64xf32>
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %w0 : memref<64xf32>
    vyre.dealloc %w1 : memref<64xf32>
    return
  }
}

// -----

// Tests what keeps the order: two copies into one buffer keep theirs (the
// second overwrites the first), and a copy into an argument (device memory
// that may be the host memory another copy reads) keeps its place: the copy
// needed first does not pass it.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @use(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<64xf32>
      %yv = memref.load %y[%c0] : memref<64xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @order_kept
  // REMARK-NOT: CopiesOrderedByNeed {{.*}} Function=order_kept
  func.func @order_kept(%h0: memref<64xf32> {vyre.pinned, llvm.noalias},
                        %h1: memref<64xf32> {vyre.pinned, llvm.noalias},
                        %dev: memref<64xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<64xf32>
    %b = vyre.alloc : memref<64xf32>
    // CHECK:      vyre.copy_h2d_async %arg0 to %[[A:[^ ]+]] on
    // CHECK-NEXT: vyre.copy_h2d_async %arg1 to %[[A]] on
    // CHECK:      vyre.copy_h2d_async %arg0 to %arg2
    // CHECK:      vyre.copy_h2d_async %arg1 to %[[B:[^ ]+]] on
    vyre.copy_h2d %h0 to %a : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %h1 to %a : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %h0 to %dev : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %h1 to %b : memref<64xf32> to memref<64xf32>
    vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %dev : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
    vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%dev, %a : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
    vyre.dealloc %a : memref<64xf32>
    vyre.dealloc %b : memref<64xf32>
    return
  }
}

// -----

// Tests a run of copies in a loop's body: each iteration's copies are issued
// in the order the body's kernels need them.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @layer(%x: memref<64xf32>, %w: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<64xf32>
      %wv = memref.load %w[%c0] : memref<64xf32>
      %s = arith.addf %xv, %wv : f32
      memref.store %s, %x[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @in_a_loop
  func.func @in_a_loop(%in: memref<64xf32> {vyre.pinned, llvm.noalias},
                       %hw: memref<64xf32> {vyre.pinned, llvm.noalias},
                       %out: memref<64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = vyre.alloc : memref<64xf32>
    %w = vyre.alloc : memref<64xf32>
    %y = vyre.alloc : memref<64xf32>
    // CHECK: scf.for
    // CHECK:      vyre.copy_h2d_async %arg0 to
    // CHECK-NEXT: vyre.copy_h2d_async %arg1 to
    scf.for %i = %c0 to %n step %c1 {
      vyre.copy_h2d %hw to %w : memref<64xf32> to memref<64xf32>
      vyre.copy_h2d %in to %x : memref<64xf32> to memref<64xf32>
      vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%x, %y : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
      vyre.dispatch @k::@layer blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
          args(%y, %w : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
      vyre.copy_d2h %y to %out : memref<64xf32> to memref<64xf32>
    }
    vyre.dealloc %x : memref<64xf32>
    vyre.dealloc %w : memref<64xf32>
    vyre.dealloc %y : memref<64xf32>
    return
  }
}

// -----

// Tests that ops touching no buffer between the copies (an allocation, the
// view a copy reads) do not split the run: the next batch's row, needed by
// the first kernel, is issued before the validation set, needed last.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @use(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<64xf32>
      %yv = memref.load %y[%c0] : memref<64xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @views_between
  // REMARK: remark: [Analysis] CopiesOrderedByNeed | Category:overlap-copies | Function=views_between | Remark="2 copies issued in the order their first consumers need them
  // CHECK:      memref.subview
  // CHECK-NEXT: vyre.copy_h2d_async %{{.*}} to %[[B:[^ ]+]] on stream
  // CHECK-NEXT: vyre.copy_h2d_async %arg1 to
  // CHECK:      vyre.dispatch @k::@use {{.*}}args(%[[B]],
  func.func @views_between(%rows: memref<4x64xf32> {vyre.pinned, llvm.noalias},
                           %val: memref<64xf32> {vyre.pinned, llvm.noalias},
                           %out: memref<64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %v = vyre.alloc : memref<64xf32>
    %acc = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %out to %acc : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %val to %v : memref<64xf32> to memref<64xf32>
    %b = vyre.alloc : memref<64xf32>
    %row = memref.subview %rows[%c1, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %b : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
    vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %acc : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
    vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%v, %acc : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
    vyre.copy_d2h %acc to %out : memref<64xf32> to memref<64xf32>
    vyre.dealloc %v : memref<64xf32>
    vyre.dealloc %acc : memref<64xf32>
    vyre.dealloc %b : memref<64xf32>
    return
  }
}

// -----

// Tests that a kernel between two copies ends the run: the copy after it
// moves above it (the placement), but behind the copy before it on their
// stream, though it is needed first.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @use(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<64xf32>
      %yv = memref.load %y[%c0] : memref<64xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %y[%c0] : memref<64xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @kernel_between
  // REMARK-NOT: CopiesOrderedByNeed {{.*}} Function=kernel_between
  // CHECK:      vyre.copy_h2d_async %arg1 to
  // CHECK-NEXT: vyre.copy_h2d_async %arg0 to
  // CHECK:      vyre.dispatch @k::@use
  func.func @kernel_between(%h0: memref<64xf32> {vyre.pinned, llvm.noalias},
                            %h1: memref<64xf32> {vyre.pinned, llvm.noalias},
                            %out: memref<64xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<64xf32>
    %b = vyre.alloc : memref<64xf32>
    %acc = vyre.alloc : memref<64xf32>
    vyre.copy_h2d %out to %acc : memref<64xf32> to memref<64xf32>
    vyre.copy_h2d %h1 to %b : memref<64xf32> to memref<64xf32>
    vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%acc, %acc : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
    vyre.copy_h2d %h0 to %a : memref<64xf32> to memref<64xf32>
    vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a, %acc : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
    vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %acc : memref<64xf32>, memref<64xf32>) {vyre.cost_us = 20.0}
    vyre.copy_d2h %acc to %out : memref<64xf32> to memref<64xf32>
    vyre.dealloc %a : memref<64xf32>
    vyre.dealloc %b : memref<64xf32>
    vyre.dealloc %acc : memref<64xf32>
    return
  }
}
