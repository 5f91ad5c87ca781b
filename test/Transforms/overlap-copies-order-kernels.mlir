// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false order-kernels=false" | FileCheck %s --check-prefix=INPUT-ORDER
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies --remarks-filter=overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false order-copies=false" | FileCheck %s --check-prefix=HORIZON
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies="cost-model=false order-copies=false" --remarks-filter=overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=HORIZON-REMARK
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops --overlap-copies --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered
// RUN: cat %t.input %t.lowered | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null

// --overlap-copies issues a run of copies and kernels that nothing orders
// among themselves in the order a list schedule by critical path starts them
// (order-kernels, on by default), where that schedule's estimate beats the
// input's order: the main stream runs kernels in the order they are written.
// Each case's values after the whole default pipeline are those of the input.

// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[C:0x[0-9a-f]+]]
// VALUES: remark: digest [[D:0x[0-9a-f]+]]
// VALUES: remark: digest [[E:0x[0-9a-f]+]]
// VALUES: remark: digest [[F:0x[0-9a-f]+]]
// VALUES: remark: digest [[G:0x[0-9a-f]+]]
// VALUES: remark: digest [[H:0x[0-9a-f]+]]
// VALUES: remark: digest [[I:0x[0-9a-f]+]]
// VALUES: remark: digest [[J:0x[0-9a-f]+]]
// VALUES: remark: digest [[K:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]
// VALUES: remark: digest [[C]]
// VALUES: remark: digest [[D]]
// VALUES: remark: digest [[E]]
// VALUES: remark: digest [[F]]
// VALUES: remark: digest [[G]]
// VALUES: remark: digest [[H]]
// VALUES: remark: digest [[I]]
// VALUES: remark: digest [[J]]
// VALUES: remark: digest [[K]]

// Tests the runtime policy's example: b's copy and two kernels on b are
// written before a's copy, kernel and copy back. In that order a's copy back
// starts once both copies in are done; with a's copy first (both chains take
// a copy and a kernel, a's ends with a copy back on the other engine) a's
// copy back runs beside b's copy.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @copy_back_first
  // CHECK:       vyre.copy_h2d_async %arg0 to %[[A:[^ ]+]] on stream 1
  // CHECK:       vyre.copy_h2d_async %arg1 to %[[B:[^ ]+]] on stream 1
  // CHECK:       vyre.dispatch @k::@step {{.*}} args(%[[A]] :
  // CHECK:       vyre.copy_d2h_async %[[A]] to %arg2
  // CHECK:       vyre.dispatch @k::@step {{.*}} args(%[[B]] :
  // CHECK:       vyre.dispatch @k::@step {{.*}} args(%[[B]] :
  // INPUT-ORDER-LABEL: func.func @copy_back_first
  // INPUT-ORDER: vyre.copy_h2d_async %arg1
  // INPUT-ORDER: vyre.copy_h2d_async %arg0
  // INPUT-ORDER: vyre.dispatch @k::@step {{.*}} args(%1 :
  // INPUT-ORDER: vyre.dispatch @k::@step {{.*}} args(%1 :
  // INPUT-ORDER: vyre.dispatch @k::@step {{.*}} args(%0 :
  // INPUT-ORDER: vyre.copy_d2h_async %0 to %arg2
  // REMARK: [Analysis] WorkOrderedByCriticalPath | Category:overlap-copies | Function=copy_back_first | Remark="6 copies and kernels issued in the order a list schedule by critical path starts them: 44.1 us on the engines, against 64.2 us in the input's order"
  func.func @copy_back_first(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests a run where every kernel follows the one before (each writes a, the
// second reads b): no order is shorter, and the input's stays.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @one_chain
  // CHECK:       vyre.copy_h2d_async %arg0
  // CHECK:       vyre.copy_h2d_async %arg1
  // CHECK:       vyre.dispatch @k::@step
  // CHECK:       vyre.dispatch @k::@add
  // CHECK:       vyre.dispatch @k::@step
  // CHECK:       vyre.copy_d2h_async
  // REMARK-NOT: WorkOrderedByCriticalPath {{.*}} Function=one_chain |
  func.func @one_chain(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a, %b : memref<262144xf32>, memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests the example where a's kernel also reads b, which b's kernels write:
// it must follow them, and so must the copy back; the input's order is the
// schedule.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @dependent_kept
  // CHECK:       vyre.copy_h2d_async %arg1
  // CHECK:       vyre.copy_h2d_async %arg0
  // CHECK:       vyre.dispatch @k::@step
  // CHECK:       vyre.dispatch @k::@step
  // CHECK:       vyre.dispatch @k::@add
  // CHECK:       vyre.copy_d2h_async
  // REMARK-NOT: WorkOrderedByCriticalPath {{.*}} Function=dependent_kept |
  func.func @dependent_kept(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.dispatch @k::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a, %b : memref<262144xf32>, memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests that a kernel reading a device buffer passed as an argument (which
// may be the host memory a copy back writes: neither has llvm.noalias) keeps
// that copy back after it. With the copy back behind b's kernels, no order
// beats the input's.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @argument_read
  // CHECK:       vyre.dispatch @k::@add
  // CHECK:       vyre.dispatch @k::@add
  // CHECK:       vyre.copy_d2h_async %{{.+}} to %arg2
  // REMARK-NOT: WorkOrderedByCriticalPath {{.*}} Function=argument_read |
  func.func @argument_read(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned}, %dev: memref<262144xf32> ) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %dev : memref<262144xf32>, memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %dev : memref<262144xf32>, memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests the same with llvm.noalias on both: the copy back may pass the
// kernels that read the argument.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @argument_apart
  // CHECK:       vyre.copy_d2h_async %{{.+}} to %arg2
  // CHECK:       vyre.dispatch @k::@add
  // CHECK:       vyre.dispatch @k::@add
  // REMARK: Function=argument_apart | Remark="6 copies and kernels issued in the order
  func.func @argument_apart(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}, %dev: memref<262144xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %dev : memref<262144xf32>, memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %dev : memref<262144xf32>, memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests that an op of unknown effect ends a run: b's first copy and kernel
// stay before the call, and after it (a's copy, b's kernel, a's kernel and
// copy back) b's kernel starts at once: no order is shorter.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @call_ends_run
  // CHECK:       vyre.dispatch @k::@step {{.*}} args(%[[B:[^ ]+]] :
  // CHECK:       call @opaque()
  // CHECK:       vyre.dispatch @k::@step {{.*}} args(%[[B]] :
  // CHECK:       vyre.dispatch @k::@step
  // CHECK:       vyre.copy_d2h_async
  // REMARK-NOT: WorkOrderedByCriticalPath {{.*}} Function=call_ends_run |
  func.func private @opaque()
  func.func @call_ends_run(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    func.call @opaque() : () -> ()
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests that the ops after a run count (with order-copies=false, so that the
// copies keep the input's order): b's copy, then a's copy and copy back,
// then a host store and a 1 ms kernel on b. Alone, the run is shorter with
// a's copy first (its copy back then runs beside b's copy: 42.1 against
// 63.2 us); but b's kernel would start 21 us later, and the input's order
// stays.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // HORIZON-LABEL: func.func @needed_after
  // HORIZON:       vyre.copy_h2d_async %arg1
  // HORIZON:       vyre.copy_h2d_async %arg0
  // HORIZON-REMARK-NOT: WorkOrderedByCriticalPath {{.*}} Function=needed_after |
  func.func @needed_after(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hh: memref<262144xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    %c0 = arith.constant 0 : index
    %v = arith.constant 1.0 : f32
    memref.store %v, %hh[%c0] : memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1000.0}
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests the same where the kernel after the run reads a: a's copy first.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // HORIZON-LABEL: func.func @not_needed_after
  // HORIZON:       vyre.copy_h2d_async %arg0
  // HORIZON:       vyre.copy_h2d_async %arg1
  // HORIZON-REMARK: Function=not_needed_after | Remark="3 copies and kernels issued in the order a list schedule by critical path starts them: 1042.1 us on the engines, against 1063.2 us in the input's order"
  func.func @not_needed_after(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hh: memref<262144xf32> {llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    %c0 = arith.constant 0 : index
    %v = arith.constant 1.0 : f32
    memref.store %v, %hh[%c0] : memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a : memref<262144xf32>) {vyre.cost_us = 1000.0}
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests that a copy nothing waits for (b is never read) stays before the
// kernels written after it: moving it gains nothing, so the cost model may
// leave it on the main stream, where a kernel moved above it would delay it.
// Without that rule the schedule would run the 50 us kernel first, with a's
// copy and copy back beside it (50.0 against 63.2 us).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @unneeded_copy_kept
  // CHECK:       vyre.copy_h2d_async %arg1
  // CHECK:       vyre.dispatch @k::@step
  // REMARK-NOT: WorkOrderedByCriticalPath {{.*}} Function=unneeded_copy_kept |
  func.func @unneeded_copy_kept(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    %c = vyre.alloc : memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%c : memref<262144xf32>) {vyre.cost_us = 50.0}
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %c : memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests the runtime policy's example where b's kernels write a global that
// a's kernel reads: the slot summaries see only memref arguments, so a
// kernel that takes a global (or calls, or uses the LLVM dialect) ends the
// run, and the kernels keep their order on the main stream.
module attributes {gpu.container_module} {
  gpu.module @k {
    memref.global "private" @g : memref<1xf32> = dense<0.0>
    gpu.func @produce(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %g = memref.get_global @g : memref<1xf32>
      %v = memref.load %x[%c0] : memref<262144xf32>
      memref.store %v, %g[%c0] : memref<1xf32>
      gpu.return
    }
    gpu.func @consume(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %g = memref.get_global @g : memref<1xf32>
      %v = memref.load %g[%c0] : memref<1xf32>
      memref.store %v, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @shared_global
  // CHECK:       vyre.dispatch @k::@produce
  // CHECK:       vyre.dispatch @k::@produce
  // CHECK:       vyre.dispatch @k::@consume
  // REMARK-NOT: WorkOrderedByCriticalPath {{.*}} Function=shared_global |
  func.func @shared_global(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@produce blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@produce blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.dispatch @k::@consume blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

// -----

// Tests that a kernel on a buffer chosen at run time (a select of a and b)
// ends the run: the checkers downstream may take it for either buffer.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%c0] : memref<262144xf32>
      %w = arith.addf %v, %v : f32
      %r = arith.addf %w, %one : f32
      memref.store %r, %x[%c0] : memref<262144xf32>
      gpu.return
    }
    gpu.func @add(%x: memref<262144xf32>, %y: memref<262144xf32>) kernel {
      %c0 = arith.constant 0 : index
      %xv = memref.load %x[%c0] : memref<262144xf32>
      %yv = memref.load %y[%c0] : memref<262144xf32>
      %s = arith.addf %xv, %yv : f32
      memref.store %s, %x[%c0] : memref<262144xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @selected_buffer
  // CHECK:       vyre.copy_h2d_async %arg1
  // CHECK:       vyre.copy_h2d_async %arg0
  // CHECK:       vyre.dispatch
  // CHECK:       vyre.dispatch
  // CHECK:       vyre.dispatch {{.*}} args(%{{.*}} :
  // REMARK-NOT: WorkOrderedByCriticalPath {{.*}} Function=selected_buffer |
  func.func @selected_buffer(%ha: memref<262144xf32> {vyre.pinned, llvm.noalias}, %hb: memref<262144xf32> {vyre.pinned, llvm.noalias}, %out: memref<262144xf32> {vyre.pinned, llvm.noalias}, %cond: i1) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<262144xf32>
    %b = vyre.alloc : memref<262144xf32>
    %s = arith.select %cond, %a, %b : memref<262144xf32>
    vyre.copy_h2d %hb to %b : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_h2d %ha to %a : memref<262144xf32> to memref<262144xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%s : memref<262144xf32>) {vyre.cost_us = 1.0}
    vyre.copy_d2h %a to %out : memref<262144xf32> to memref<262144xf32>
    vyre.dealloc %a : memref<262144xf32>
    vyre.dealloc %b : memref<262144xf32>
    return
  }
}

