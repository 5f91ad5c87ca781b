// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false | FileCheck %s
// The pass, --vyre-verify-schedule and --vyre-verify-gpu-streams take the
// effects of a region op from one rule (HostEffects.h): what its body
// touches. Both referees accept what the pass makes of each case:
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true cost-model=false" -o /dev/null
// and it computes what the input computes (its device work run lazily):
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=2" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="cost-model=false" | vyre-opt --split-input-file --test-vyre-value-digest="index=2 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered
// RUN: cat %t.input %t.lowered | FileCheck %s --check-prefix=VALUES
// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[B:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
// VALUES: remark: digest [[B]]

gpu.module @k {
  gpu.func @r(%a: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %a[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that region ops whose bodies touch only another host buffer do not
// order the copy: it stays in flight across scf.while, scf.index_switch,
// affine.for and affine.if, and only the kernel reading its destination
// waits for it.
// CHECK-LABEL: func.func @regions_touch_another_buffer
// CHECK: %[[T:.+]] = vyre.copy_h2d_async
// CHECK-NOT: vyre.sync
// CHECK: scf.while
// CHECK: scf.index_switch
// CHECK: affine.for
// CHECK: affine.if
// CHECK: vyre.wait %[[T]]
// CHECK-NEXT: vyre.dispatch
func.func @regions_touch_another_buffer(%h0: memref<16xf32> {llvm.noalias}, %h1: memref<16xf32> {llvm.noalias}, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h0 to %a : memref<16xf32> to memref<16xf32>
  %r = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
    memref.store %v, %h1[%i] : memref<16xf32>
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  scf.index_switch %n
  case 1 {
    memref.store %v, %h1[%c0] : memref<16xf32>
    scf.yield
  }
  default {
  }
  affine.for %j = 0 to 4 {
    memref.store %v, %h1[%j] : memref<16xf32>
  }
  affine.if affine_set<(d0) : (d0 - 1 >= 0)>(%n) {
    memref.store %v, %h1[%c1] : memref<16xf32>
  }
  vyre.dispatch @k::@r blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @r(%a: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %a[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that a region op whose body writes the copy's source waits for the
// copy first.
// CHECK-LABEL: func.func @region_writes_the_source
// CHECK: %[[T:.+]] = vyre.copy_h2d_async
// CHECK-NEXT: vyre.sync %[[T]]
// CHECK-NEXT: scf.while
func.func @region_writes_the_source(%h0: memref<16xf32> {llvm.noalias}, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h0 to %a : memref<16xf32> to memref<16xf32>
  %r = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
    memref.store %v, %h0[%i] : memref<16xf32>
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  vyre.dispatch @k::@r blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dealloc %a : memref<16xf32>
  return
}
