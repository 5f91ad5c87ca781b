// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies | FileCheck %s --check-prefix=IN-PLACE
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies --vyre-verify-schedule -o /dev/null
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="condition=true" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="condition=true interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered
// RUN: cat %t.input %t.lowered | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="condition=false" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input-false
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | vyre-opt --split-input-file --test-vyre-value-digest="condition=false interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered-false
// RUN: cat %t.input-false %t.lowered-false | FileCheck %s --check-prefix=VALUES

// A host buffer chosen by arith.select among arguments may be any of them,
// a slot too (an argument is host memory and a slot at once): a copy into
// it waits for the work that reads any of them, also where the copy is left
// on the main stream and made asynchronous in place; a host op that writes
// it holds back the copies that read any; a copy out of it follows the
// writers of each. (The planner and both referees take such a select for
// one of the arguments.) Each case's values after the whole default
// pipeline are those of the input, whichever argument the select takes.

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

// Tests that a copy back into a select of %o and %h waits for the copy that
// reads %h: the select may be %h.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<1024xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%c0] : memref<1024xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @copy_back_into_source
  // CHECK:       %[[IN:.*]] = vyre.copy_h2d_async %arg0
  // CHECK:       vyre.copy_d2h_async %arg0 to %{{.*}} on stream {{[0-9]+}} after [{{.*}}%[[IN]]{{.*}}]
  // IN-PLACE-LABEL: func.func @copy_back_into_source
  // IN-PLACE:       %[[IN:.*]] = vyre.copy_h2d_async %arg0 to %{{.*}} on stream 0
  // IN-PLACE:       vyre.copy_d2h_async %arg0 to %{{.*}} on stream {{[0-9]+}} after [{{.*}}%[[IN]]{{.*}}]
  func.func @copy_back_into_source(%h: memref<1024xf32> {vyre.pinned, llvm.noalias}, %o: memref<1024xf32> {vyre.pinned, llvm.noalias}, %cond: i1) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<1024xf32>
    %s = arith.select %cond, %o, %h : memref<1024xf32>
    vyre.copy_h2d %h to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) {vyre.cost_us = 50.0}
    vyre.copy_d2h %h to %s : memref<1024xf32> to memref<1024xf32>
    vyre.copy_d2h %a to %o : memref<1024xf32> to memref<1024xf32>
    vyre.dealloc %a : memref<1024xf32>
    return
  }
}

// -----

// Tests that a host op writing a select of %o0 and %h holds back the copy of
// %h: it stays after the store.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<1024xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%c0] : memref<1024xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @host_write_of_source
  // CHECK:       vyre.dispatch
  // CHECK:       memref.store
  // CHECK:       vyre.copy_h2d_async %arg0
  func.func @host_write_of_source(%h: memref<1024xf32> {vyre.pinned, llvm.noalias}, %o0: memref<1024xf32> {vyre.pinned, llvm.noalias}, %o1: memref<1024xf32> {vyre.pinned, llvm.noalias}, %cond: i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    %a = vyre.alloc : memref<1024xf32>
    %b = vyre.alloc : memref<1024xf32>
    %s = arith.select %cond, %o0, %h : memref<1024xf32>
    vyre.copy_h2d %o1 to %b : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<1024xf32>) {vyre.cost_us = 50.0}
    memref.store %one, %s[%c0] : memref<1024xf32>
    vyre.copy_h2d %h to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) {vyre.cost_us = 50.0}
    vyre.copy_d2h %a to %o0 : memref<1024xf32> to memref<1024xf32>
    vyre.copy_d2h %b to %o1 : memref<1024xf32> to memref<1024xf32>
    vyre.dealloc %a : memref<1024xf32>
    vyre.dealloc %b : memref<1024xf32>
    return
  }
}

// -----

// Tests that a copy reading a select of %h0 and %h1 waits for both the copy
// back into %h0, on its own stream, and the later kernel writing %h1: the
// kernel does not wait for the copy back (the two arguments do not alias),
// so following it alone would not do.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<1024xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%c0] : memref<1024xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @copy_of_select_after_writes
  // CHECK:       %[[BACK:.*]] = vyre.copy_d2h_async %{{.*}} to %arg0
  // CHECK:       vyre.dispatch {{.*}} args(%arg1
  // CHECK-NEXT:  %[[KERNEL:.*]] = vyre.record
  // CHECK-NEXT:  vyre.copy_h2d_async %{{.*}} after [%[[BACK]], %[[KERNEL]]]
  func.func @copy_of_select_after_writes(%h0: memref<1024xf32> {vyre.pinned, llvm.noalias}, %h1: memref<1024xf32> {vyre.pinned, llvm.noalias}, %cond: i1) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<1024xf32>
    %b = vyre.alloc : memref<1024xf32>
    %s = arith.select %cond, %h0, %h1 : memref<1024xf32>
    vyre.copy_h2d %h1 to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) {vyre.cost_us = 50.0}
    vyre.copy_d2h %a to %h0 : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%h1 : memref<1024xf32>) {vyre.cost_us = 50.0}
    vyre.copy_h2d %s to %b : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<1024xf32>) {vyre.cost_us = 50.0}
    vyre.copy_d2h %b to %h1 : memref<1024xf32> to memref<1024xf32>
    vyre.dealloc %a : memref<1024xf32>
    vyre.dealloc %b : memref<1024xf32>
    return
  }
}

// -----

// Tests the same in a branch: the copy reading the select, in an scf.if,
// follows the copy back as well as the kernel before the branch.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<1024xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%c0] : memref<1024xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @copy_of_select_in_branch
  // CHECK:       %[[BACK:.*]] = vyre.copy_d2h_async %{{.*}} to %arg0
  // CHECK:       vyre.wait %[[BACK]]
  // CHECK-NEXT:  scf.if
  // CHECK-NEXT:  %[[STARTED:.*]] = vyre.record
  // CHECK-NEXT:  vyre.copy_h2d_async %{{.*}} after [%[[STARTED]]]
  func.func @copy_of_select_in_branch(%h0: memref<1024xf32> {vyre.pinned, llvm.noalias}, %h1: memref<1024xf32> {vyre.pinned, llvm.noalias}, %cond: i1) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<1024xf32>
    %b = vyre.alloc : memref<1024xf32>
    %s = arith.select %cond, %h0, %h1 : memref<1024xf32>
    vyre.copy_h2d %h1 to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) {vyre.cost_us = 50.0}
    vyre.copy_d2h %a to %h0 : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%h1 : memref<1024xf32>) {vyre.cost_us = 50.0}
    scf.if %cond {
      vyre.copy_h2d %s to %b : memref<1024xf32> to memref<1024xf32>
      vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<1024xf32>) {vyre.cost_us = 50.0}
      vyre.copy_d2h %b to %h1 : memref<1024xf32> to memref<1024xf32>
    }
    vyre.dealloc %a : memref<1024xf32>
    vyre.dealloc %b : memref<1024xf32>
    return
  }
}

// -----

// Tests that a copy reading a select of %h0 and %h1 does not wait for the
// copy back into %h2, a third noalias argument it cannot be: it moves up
// past the copy back, to the start.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%x: memref<1024xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%c0] : memref<1024xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @copy_of_select_beside_third_argument
  // CHECK:       %[[S:.*]] = arith.select
  // CHECK-NEXT:  vyre.copy_h2d_async %[[S]] to %{{.*}} on stream {{[0-9]+}} : memref
  // CHECK:       vyre.copy_d2h_async %{{.*}} to %arg2
  func.func @copy_of_select_beside_third_argument(%h0: memref<1024xf32> {vyre.pinned, llvm.noalias}, %h1: memref<1024xf32> {vyre.pinned, llvm.noalias}, %h2: memref<1024xf32> {vyre.pinned, llvm.noalias}, %cond: i1) {
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<1024xf32>
    %b = vyre.alloc : memref<1024xf32>
    %s = arith.select %cond, %h0, %h1 : memref<1024xf32>
    vyre.copy_h2d %h2 to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<1024xf32>) {vyre.cost_us = 50.0}
    vyre.copy_d2h %a to %h2 : memref<1024xf32> to memref<1024xf32>
    vyre.copy_h2d %s to %b : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<1024xf32>) {vyre.cost_us = 50.0}
    vyre.copy_d2h %b to %h0 : memref<1024xf32> to memref<1024xf32>
    vyre.dealloc %a : memref<1024xf32>
    vyre.dealloc %b : memref<1024xf32>
    return
  }
}
