// RUN: vyre-opt %s --vyre-apply-profile=file=%S/Inputs/profile-cuda.json | FileCheck %s
// RUN: vyre-opt %s --vyre-apply-profile=file=%S/Inputs/profile-cuda.json --remarks-filter=apply-profile -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The pipelines run it after the estimates with profile=FILE.
// RUN: vyre-opt %s --vyre-to-gpu-pipeline="profile=%S/Inputs/profile-cuda.json" --remarks-filter=apply-profile -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE-COUNT-2: remark: [Analysis] KernelTimeProfiled
// PIPELINE-NOT: KernelTimeProfiled

// Measured kernel times (vyre-gpu-driver --profile-out) become the
// dispatches' vyre.cost_us, replacing an estimate but not a time declared by
// hand; kernels the profile does not time keep what they have, with a
// missed remark.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<256xf32>) kernel { gpu.return }
    gpu.func @untimed(%x: memref<256xf32>) kernel { gpu.return }
    gpu.func @absent(%x: memref<256xf32>) kernel { gpu.return }
  }
  // CHECK-LABEL: func.func @run
  func.func @run(%h: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %d = vyre.alloc : memref<256xf32>
    vyre.copy_h2d %h to %d : memref<256xf32> to memref<256xf32>
    // REMARK: remark: [Analysis] KernelTimeProfiled | Category:apply-profile | Remark="kernel 'scale' given its measured time, 42.500 us (mean of 4 launches)"
    // CHECK: vyre.dispatch @k::@scale {{.+}} {vyre.cost_profiled, vyre.cost_us = 4.250000e+01 : f64}
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<256xf32>)
    // An estimate is replaced.
    // CHECK: vyre.dispatch @k::@scale {{.+}} {vyre.cost_profiled, vyre.cost_us = 4.250000e+01 : f64}
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<256xf32>) {vyre.cost_estimated, vyre.cost_us = 0.5 : f64}
    // REMARK: remark: [Missed] KernelTimeNotProfiled | Category:apply-profile | Remark="kernel 'scale' not given a measured time: the dispatch declares its own vyre.cost_us"
    // CHECK: vyre.dispatch @k::@scale {{.+}} {vyre.cost_us = 7.000000e+00 : f64}
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<256xf32>) {vyre.cost_us = 7.0 : f64}
    // REMARK: remark: [Missed] KernelTimeNotProfiled | Category:apply-profile | Remark="kernel 'untimed' not given a measured time: the profile counts its launches but did not time them"
    // CHECK: vyre.dispatch @k::@untimed {{.+}} args(%{{.+}} : memref<256xf32>){{$}}
    vyre.dispatch @k::@untimed blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<256xf32>)
    // REMARK: remark: [Missed] KernelTimeNotProfiled | Category:apply-profile | Remark="kernel 'absent' not given a measured time: the profile has no such kernel"
    vyre.dispatch @k::@absent blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<256xf32>)
    vyre.copy_d2h %d to %h : memref<256xf32> to memref<256xf32>
    vyre.dealloc %d : memref<256xf32>
    return
  }
}
