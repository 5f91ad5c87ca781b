// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="cost-model=false verify=true" | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="cost-model=false verify=true" --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=PASSES
// The kernels' summaries are gone: upstream's lowering changes the kernels.
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline=cost-model=false | FileCheck %s --check-prefix=NOSUMMARY
// NOSUMMARY-NOT: vyre.access
// The pipeline takes the passes' own options, here --vyre-verify-gpu-streams'.
// RUN: not vyre-opt %S/Inputs/loop.mlir --vyre-to-gpu-pipeline="cost-model=false verify=true max-traces=1" 2>&1 | FileCheck %s --check-prefix=MAXTRACES
// MAXTRACES: has more than 1 combinations of scf.if branches and loop trip counts

// Tests that verify=true runs both referees where they belong: the schedule's
// after --overlap-copies, the gpu dialect's at the end.
// PASSES: IR Dump After KernelAccessPass
// PASSES: IR Dump After OverlapCopiesPass
// PASSES: IR Dump After VerifySchedulePass
// PASSES: IR Dump After ConvertVyreToGPUPass
// PASSES: IR Dump After Canonicalizer
// PASSES: IR Dump After CSE
// PASSES: IR Dump After VerifyGPUStreamsPass
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @copy_then_kernel
func.func @copy_then_kernel(%h: memref<16xf32> {llvm.noalias},
                            %x: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %d = vyre.alloc : memref<16xf32>
  // CHECK: gpu.memcpy async
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  // CHECK: gpu.launch_func async
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
  // CHECK: gpu.launch_func async
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  vyre.dealloc %d : memref<16xf32>
  return
}
