// RUN: env VYRE_DEBUG_ONLY=overlap-copies vyre-opt-debug %s --vyre-kernel-access --vyre-pipeline-loops --overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: env VYRE_DEBUG_ONLY=vyre-pipeline-loops vyre-opt-debug %s --vyre-kernel-access --vyre-pipeline-loops --overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// Without a debug type asked for, nothing is printed.
// RUN: vyre-opt-debug %s --vyre-kernel-access --vyre-pipeline-loops --overlap-copies -o /dev/null 2>&1 | count 0

// Tests the passes' debug output (LLVM_DEBUG): what -debug-only=overlap-copies
// and -debug-only=vyre-pipeline-loops print with an LLVM built with
// assertions. vyre-opt-debug is vyre-opt with that output compiled in,
// turned on by VYRE_DEBUG_ONLY.

gpu.module @k {
  gpu.func @read(%x: memref<1024xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<1024xf32>
    gpu.return
  }
  gpu.func @write(%x: memref<1024xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<1024xf32>
    gpu.return
  }
}

func.func @loop(%h: memref<4x1024xf32> {vyre.pinned, llvm.noalias},
                %out: memref<1024xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = vyre.alloc : memref<1024xf32>
  %b = vyre.alloc : memref<1024xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %h[%i, 0] [1, 1024] [1, 1] : memref<4x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %a : memref<1024xf32, strided<[1], offset: ?>> to memref<1024xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) {vyre.cost_us = 20.0 : f64}
  }
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<1024xf32>) {vyre.cost_us = 20.0 : f64}
  vyre.copy_d2h %b to %out : memref<1024xf32> to memref<1024xf32>
  return
}

// Each verdict of the cost model, then the work and the plan.
// OVERLAP: [overlap-copies] sweep 0, copy #0: copy of 4 KiB: saving {{[0-9.]+}} us {{>=|<}} overhead {{[0-9.]+}} us: {{moved|left in place}}
// OVERLAP: [overlap-copies] @loop: {{[0-9]+}} plan(s) ({{[0-9]+}} revised), {{[0-9]+}} cost-model sweep(s) weighing {{[0-9]+}} copies, {{[0-9]+}} planning steps, {{[0-9]+}} cost-model steps
// OVERLAP-NEXT: copy #0 into slot {{[0-9]+}}: left in place by the cost model
// OVERLAP-NEXT: copy #1 into slot {{[0-9]+}}: after 'memref.subview' on stream 1, after []; first wait at 'scf.for' (write-after-write)
// OVERLAP: copy #4 from slot {{[0-9]+}}: left in place by the cost model
// OVERLAP-NOT: [vyre-pipeline-loops]

// PIPELINE: [vyre-pipeline-loops] loop at loc({{.*}}debug-output.mlir":32:3): 1 rotated buffer(s), 4096 bytes per iteration ahead, {{[0-9]+}} bytes of budget left: up to depth 4 (asked 4, to choose from)
// PIPELINE: [vyre-pipeline-loops] loop at loc({{.*}}debug-output.mlir":32:3): depth 2 simulated {{[0-9.]+}} us
// PIPELINE-NOT: [overlap-copies]
