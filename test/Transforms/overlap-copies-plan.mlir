// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false side-streams=2" --remarks-filter=copy-plan 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAN
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false side-streams=2" | FileCheck %s
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false side-streams=2" --vyre-verify-schedule -o /dev/null

// Tests the plan --overlap-copies prints with --remarks-filter=copy-plan (one
// line per copy, before anything is built), on a device buffer that is the
// source of one copy and the destination of a later one. Two reads of %d are
// independent, so the copy from %d moves above the kernel that reads it; the
// later copy into %d depends on the copy still reading it (on the other side
// stream, so stream order would not cover it), and on the main stream past
// the kernel that reads %d.
gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}
// CHECK-LABEL: func.func @device_source_then_destination
func.func @device_source_then_destination(%h: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %d = vyre.alloc : memref<16xf32>
  %e = vyre.alloc : memref<16xf32>
  // CHECK: vyre.dispatch @k::@write
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  // CHECK-NEXT: %[[R:.+]] = vyre.record
  // CHECK-NEXT: %[[T0:.+]] = vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1 after [%[[R]]]
  // CHECK-NEXT: vyre.dispatch @k::@read
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  // PLAN: remark: [Analysis] CopyPlan | Category:copy-plan | Function=device_source_then_destination | Remark="copy #0 into slot 2: after 'vyre.dispatch' on stream 1, after [main stream at 'vyre.dispatch']; first wait at 'vyre.copy_h2d_async' (write-after-read)"
  vyre.copy_h2d %d to %e : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: %[[R2:.+]] = vyre.record
  // CHECK-NEXT: vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 2 after [%[[T0]], %[[R2]]]
  // PLAN: remark: [Analysis] CopyPlan | Category:copy-plan | Function=device_source_then_destination | Remark="copy #1 into slot 1: after 'vyre.dispatch' on stream 2, after [copy #0, main stream at 'vyre.dispatch']; first wait at 'func.return' (end of block)"
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  return
}
