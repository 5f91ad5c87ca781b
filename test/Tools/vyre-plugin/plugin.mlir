// Tests that the stock mlir-opt, with vyre loaded as a plugin, parses vyre IR
// and runs --overlap-copies and --convert-vyre-to-gpu (a plugin's passes are
// reached through --pass-pipeline), next to the same mlir-opt without the
// plugin, which rejects the dialect.
// UNSUPPORTED: sanitized
// RUN: mlir-opt %s --load-dialect-plugin=%vyre_libs/VyrePlugin.so --load-pass-plugin=%vyre_libs/VyrePlugin.so --pass-pipeline="builtin.module(vyre-kernel-access,func.func(overlap-copies{cost-model=false}))" | FileCheck %s --check-prefix=OVERLAP
// RUN: mlir-opt %s --load-dialect-plugin=%vyre_libs/VyrePlugin.so --load-pass-plugin=%vyre_libs/VyrePlugin.so --pass-pipeline="builtin.module(vyre-kernel-access,func.func(overlap-copies{cost-model=false}),convert-vyre-to-gpu)" | FileCheck %s --check-prefix=GPU
// RUN: mlir-opt %s --load-dialect-plugin=%vyre_libs/VyrePlugin.so --load-pass-plugin=%vyre_libs/VyrePlugin.so --pass-pipeline="builtin.module(vyre-to-gpu-pipeline{cost-model=false side-streams=2})" | FileCheck %s --check-prefix=GPU
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

// OVERLAP-LABEL: func.func @plugged
// GPU-LABEL: func.func @plugged
func.func @plugged(%h: memref<16xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // OVERLAP: %[[T:.+]] = vyre.copy_h2d_async
  // OVERLAP: vyre.dispatch
  // OVERLAP-NEXT: vyre.dispatch
  // OVERLAP-NEXT: vyre.wait %[[T]]
  // OVERLAP-NEXT: vyre.dispatch
  // GPU: gpu.memcpy async
  // GPU: gpu.launch_func async
  // GPU-NOT: vyre.
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}
// NOPLUGIN: error
