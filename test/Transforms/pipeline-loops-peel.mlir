// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=max-pipeline-depth=2 --remarks-filter=pipeline-loops --verify-diagnostics | FileCheck %s
// Scheduled: each kernel of the first iteration waits only for the copy it
// uses (the referee checks the schedule).
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-pipeline-loops=max-pipeline-depth=2 --overlap-copies --vyre-verify-schedule | FileCheck %s --check-prefix=SCHED
// Through the whole default pipeline, both referees, and upstream's NVVM
// lowering (cubin-format=isa: no ptxas needed).
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null
// The lowered program computes what the input computes (trip counts 0, 1
// and 5 where the trip count is an argument), both ways the device may
// interleave queued work.
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input0
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | vyre-opt --split-input-file --test-vyre-value-digest="index=0 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered0
// RUN: cat %t.input0 %t.lowered0 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=1" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input1
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | vyre-opt --split-input-file --test-vyre-value-digest="index=1 interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered1
// RUN: cat %t.input1 %t.lowered1 | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input5
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | vyre-opt --split-input-file --test-vyre-value-digest="index=5 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered5
// RUN: cat %t.input5 %t.lowered5 | FileCheck %s --check-prefix=VALUES

// Tests that --vyre-pipeline-loops writes the first iteration of a loop out
// in front of it where copies in front of it (moved out of it, or the fills
// of a pipelined loop's next iteration) would otherwise all be waited for
// where it starts (no token crosses into a loop body), while its first
// kernel needs only some of them.

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

gpu.module @k {
  gpu.func @acc(%x: memref<1024xf32>, %acc: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<1024xf32>
    %a = memref.load %acc[%i] : memref<16xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%i] : memref<16xf32>
    gpu.return
  }
}

// Two tiles, the same bytes every iteration, each read by one of the two
// kernels of the body: both copies move out, and the first iteration is
// written out, so that its first kernel waits for the first tile alone and
// its second kernel runs after the second tile's copy; the loop then starts
// at 1.
// CHECK-LABEL: func.func @double_buffered
// CHECK: %[[A:[0-9]+]] = vyre.alloc : memref<1024xf32>
// CHECK: %[[B:[0-9]+]] = vyre.alloc : memref<1024xf32>
// CHECK: vyre.copy_h2d %arg0 to %[[A]]
// CHECK-NEXT: vyre.copy_h2d %arg1 to %[[B]]
// CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A]],
// CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[B]],
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT: scf.for %{{.+}} = %[[ONE]] to %
// CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[A]],
// CHECK-NEXT: vyre.dispatch @k::@acc {{.*}} args(%[[B]],
// CHECK-NEXT: {{^ +}$}}
// SCHED-LABEL: func.func @double_buffered
// SCHED: %[[T:.+]] = vyre.copy_h2d_async %{{.+}} to %[[B:[0-9]+]] on stream 1
// SCHED-NEXT: vyre.dispatch
// SCHED-NEXT: vyre.wait %[[T]]
// SCHED-NEXT: vyre.dispatch {{.*}} args(%[[B]],
// SCHED-NEXT: arith.constant 1 : index
// SCHED-NEXT: scf.for
// SCHED-NOT: vyre.wait
// SCHED: return
func.func @double_buffered(%tile_a: memref<1024xf32> {vyre.pinned, llvm.noalias},
                           %tile_b: memref<1024xf32> {vyre.pinned, llvm.noalias},
                           %out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<1024xf32>
  %b = vyre.alloc : memref<1024xf32>
  %acc = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %out to %acc : memref<16xf32> to memref<16xf32>
  // expected-remark @below {{first iteration written out in front of the loop: its kernels wait only for the copies in front of the loop that they use}}
  scf.for %i = %c0 to %c8 step %c1 {
    // expected-remark @below {{copy into slot 3 writes the same bytes every iteration: moved out of the loop}}
    vyre.copy_h2d %tile_a to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a, %acc : memref<1024xf32>, memref<16xf32>) access [read, readwrite] {vyre.cost_us = 200.0}
    // expected-remark @below {{copy into slot 4 writes the same bytes every iteration: moved out of the loop}}
    vyre.copy_h2d %tile_b to %b : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %acc : memref<1024xf32>, memref<16xf32>) access [read, readwrite] {vyre.cost_us = 200.0}
  }
  vyre.copy_d2h %acc to %out : memref<16xf32> to memref<16xf32>
  vyre.dealloc %a : memref<1024xf32>
  vyre.dealloc %b : memref<1024xf32>
  vyre.dealloc %acc : memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @acc(%x: memref<1024xf32>, %acc: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<1024xf32>
    %a = memref.load %acc[%i] : memref<16xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%i] : memref<16xf32>
    gpu.return
  }
}

// One iteration: written out, the loop is gone.
// CHECK-LABEL: func.func @one_trip
// CHECK-NOT: scf.for
// CHECK: return
func.func @one_trip(%tile_a: memref<1024xf32> {vyre.pinned, llvm.noalias},
                    %tile_b: memref<1024xf32> {vyre.pinned, llvm.noalias},
                    %out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<1024xf32>
  %b = vyre.alloc : memref<1024xf32>
  %acc = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %out to %acc : memref<16xf32> to memref<16xf32>
  // expected-remark @below {{first iteration written out in front of the loop}}
  scf.for %i = %c0 to %c1 step %c1 {
    // expected-remark @below {{moved out of the loop}}
    vyre.copy_h2d %tile_a to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a, %acc : memref<1024xf32>, memref<16xf32>) access [read, readwrite] {vyre.cost_us = 200.0}
    // expected-remark @below {{moved out of the loop}}
    vyre.copy_h2d %tile_b to %b : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %acc : memref<1024xf32>, memref<16xf32>) access [read, readwrite] {vyre.cost_us = 200.0}
  }
  vyre.copy_d2h %acc to %out : memref<16xf32> to memref<16xf32>
  vyre.dealloc %a : memref<1024xf32>
  vyre.dealloc %b : memref<1024xf32>
  vyre.dealloc %acc : memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @acc(%x: memref<1024xf32>, %acc: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<1024xf32>
    %a = memref.load %acc[%i] : memref<16xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%i] : memref<16xf32>
    gpu.return
  }
}

// Not where the first kernel uses every copy moved out: it waits for them
// wherever it stands.
// CHECK-LABEL: func.func @first_kernel_needs_all
// CHECK: vyre.copy_h2d %arg0
// CHECK-NEXT: scf.for %{{.+}} = %c0 to
func.func @first_kernel_needs_all(%tile_a: memref<1024xf32> {vyre.pinned, llvm.noalias},
                                  %out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<1024xf32>
  %acc = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %out to %acc : memref<16xf32> to memref<16xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    // expected-remark @below {{moved out of the loop}}
    vyre.copy_h2d %tile_a to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a, %acc : memref<1024xf32>, memref<16xf32>) access [read, readwrite] {vyre.cost_us = 200.0}
  }
  vyre.copy_d2h %acc to %out : memref<16xf32> to memref<16xf32>
  vyre.dealloc %a : memref<1024xf32>
  vyre.dealloc %acc : memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @acc(%x: memref<1024xf32>, %acc: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<1024xf32>
    %a = memref.load %acc[%i] : memref<16xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%i] : memref<16xf32>
    gpu.return
  }
}

// Not where the trip count is not known: the first iteration would sit
// under a guard.
// CHECK-LABEL: func.func @trip_count_unknown
// CHECK: vyre.copy_h2d %arg0
// CHECK-NEXT: vyre.copy_h2d %arg1
// CHECK-NEXT: scf.for %{{.+}} = %c0 to
func.func @trip_count_unknown(%tile_a: memref<1024xf32> {vyre.pinned, llvm.noalias},
                              %tile_b: memref<1024xf32> {vyre.pinned, llvm.noalias},
                              %out: memref<16xf32> {vyre.pinned, llvm.noalias},
                              %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<1024xf32>
  %b = vyre.alloc : memref<1024xf32>
  %acc = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %out to %acc : memref<16xf32> to memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark @below {{moved out of the loop}}
    vyre.copy_h2d %tile_a to %a : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a, %acc : memref<1024xf32>, memref<16xf32>) access [read, readwrite] {vyre.cost_us = 200.0}
    // expected-remark @below {{moved out of the loop}}
    vyre.copy_h2d %tile_b to %b : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %acc : memref<1024xf32>, memref<16xf32>) access [read, readwrite] {vyre.cost_us = 200.0}
  }
  vyre.copy_d2h %acc to %out : memref<16xf32> to memref<16xf32>
  vyre.dealloc %a : memref<1024xf32>
  vyre.dealloc %b : memref<1024xf32>
  vyre.dealloc %acc : memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @acc(%x: memref<65536xf32>, %acc: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<65536xf32>
    %a = memref.load %acc[%i] : memref<16xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%i] : memref<16xf32>
    gpu.return
  }
}

// A pipelined loop of two fills per iteration, each read by one of the two
// kernels (a layer's attention and MLP weights): the fills of its second
// iteration are issued in front of the loop that runs the iterations after
// the first, whose first kernel reads one of them. That loop's first
// iteration is written out too, so that its second kernel alone waits for
// the second fill.
// CHECK-LABEL: func.func @two_fills
// CHECK: scf.for
// SCHED-LABEL: func.func @two_fills
// SCHED: vyre.dispatch {{.*}} {vyre.cost_us = 1.000000e+01 : f64}
// SCHED: %[[WA:.+]] = vyre.copy_h2d_async %{{.+}} to %[[A1:[0-9]+]] on stream 1
// SCHED-NEXT: memref.subview
// SCHED-NEXT: %[[WB:.+]] = vyre.copy_h2d_async %{{.+}} to %[[B1:[0-9]+]] on stream 1
// SCHED: vyre.wait %[[WA]]
// SCHED-NEXT: vyre.dispatch {{.*}} args(%[[A1]],
// SCHED-NEXT: vyre.record
// SCHED-NEXT: vyre.wait %[[WB]]
// SCHED-NEXT: vyre.dispatch {{.*}} args(%[[B1]],
// SCHED: scf.for
func.func @two_fills(%first: memref<8x65536xf32> {vyre.pinned, llvm.noalias},
                     %second: memref<8x65536xf32> {vyre.pinned, llvm.noalias},
                     %out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<65536xf32>
  %b = vyre.alloc : memref<65536xf32>
  %acc = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %out to %acc : memref<16xf32> to memref<16xf32>
  // expected-remark @below {{loop pipelined at depth}}
  // expected-remark @below {{first iteration written out in front of the loop: its kernels wait only for the copies in front of the loop that they use}}
  scf.for %i = %c0 to %c8 step %c1 {
    %ra = memref.subview %first[%i, 0] [1, 65536] [1, 1] : memref<8x65536xf32> to memref<65536xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %ra to %a : memref<65536xf32, strided<[1], offset: ?>> to memref<65536xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%a, %acc : memref<65536xf32>, memref<16xf32>) access [read, readwrite] {vyre.cost_us = 5.0}
    %rb = memref.subview %second[%i, 0] [1, 65536] [1, 1] : memref<8x65536xf32> to memref<65536xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %rb to %b : memref<65536xf32, strided<[1], offset: ?>> to memref<65536xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1)
        args(%b, %acc : memref<65536xf32>, memref<16xf32>) access [read, readwrite] {vyre.cost_us = 10.0}
  }
  vyre.copy_d2h %acc to %out : memref<16xf32> to memref<16xf32>
  vyre.dealloc %a : memref<65536xf32>
  vyre.dealloc %b : memref<65536xf32>
  vyre.dealloc %acc : memref<16xf32>
  return
}
