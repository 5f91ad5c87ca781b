// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops=max-pipeline-depth=2 --remarks-filter=pipeline-loops --verify-diagnostics | FileCheck %s
// The loops and copies --vyre-pipeline-loops must leave as they are, each
// with the remark that says why, and those it moves out of loops.
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null

gpu.module @k {
  gpu.func @acc(%x: memref<16xf32>, %acc: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    %a = memref.load %acc[%i] : memref<16xf32>
    %s = arith.addf %v, %a : f32
    memref.store %s, %acc[%i] : memref<16xf32>
    gpu.return
  }
}

func.func private @opaque()

// Tests that a kernel reading the buffer before the copy refills it keeps
// the copy in place: the iteration reads what the one before left.
// CHECK-LABEL: func.func @read_before_copy
// CHECK: scf.for
// CHECK-NEXT: memref.subview
// CHECK-NEXT: vyre.dispatch
// CHECK-NEXT: vyre.copy_h2d
func.func @read_before_copy(%h: memref<8x16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop not pipelined: no copy can be issued early}}
  scf.for %i = %c0 to %c8 step %c1 {
    %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
    // expected-remark @below {{copy into slot 1 is not issued early: 'vyre.dispatch' touches slot 1 before the copy fills it: an iteration sees what the one before left}}
    vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
  }
  return
}

// Tests that a buffer read after the loop is not rotated: the code after the
// loop would have to know which buffer holds the last iteration's data.
// CHECK-LABEL: func.func @used_after_loop
// CHECK-COUNT-2: vyre.alloc
// CHECK-NOT: vyre.alloc
// CHECK: scf.for
func.func @used_after_loop(%h: memref<8x16xf32> {vyre.pinned, llvm.noalias}, %out: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop not pipelined: no copy can be issued early}}
  scf.for %i = %c0 to %c8 step %c1 {
    %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    // expected-remark @below {{copy into slot 2 is not issued early: slot 2 is used after the loop, which would have to know which rotating buffer the last iteration filled}}
    vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
  }
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// Tests that a body writing the copy's host source twice keeps the copy in
// place (a staging buffer the host refills each iteration, with two
// stores), its destination rotating (pipeline-loops-host-produced.mlir),
// and that a loop carrying values, or calling an unknown function, is left
// alone.
// CHECK-LABEL: func.func @host_refills_source
// CHECK: scf.for
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.store
// CHECK-NEXT: vyre.copy_h2d
func.func @host_refills_source(%stage: memref<16xf32> {vyre.pinned}, %v: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop pipelined at depth 2: 0 copies issued 1 iteration(s) ahead, 1 destination(s) of copies whose source the body writes rotated (the copies stay in place), 64 bytes of extra device memory}}
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %stage[%c0] : memref<16xf32>
    memref.store %v, %stage[%c1] : memref<16xf32>
    // expected-remark @below {{copy into slot 1 is not issued early: 'memref.store' in the body may write its source, and cannot be issued early with it: another op of the body writes it too}}
    vyre.copy_h2d %stage to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
  }
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop not pipelined: the loop carries values (iter_args)}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %v) -> f32 {
    vyre.copy_h2d %stage to %b : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %acc : memref<16xf32>, memref<16xf32>)
    memref.store %x, %stage[%c0] : memref<16xf32>
    scf.yield %x : f32
  }
  // expected-remark @below {{loop not pipelined: 'func.call' in the body has effects vyre cannot model}}
  scf.for %i = %c0 to %n step %c1 {
    vyre.copy_h2d %stage to %b : memref<16xf32> to memref<16xf32>
    func.call @opaque() : () -> ()
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %acc : memref<16xf32>, memref<16xf32>)
  }
  return
}

// Tests the host ops that write a copy's source but cannot be issued early
// with it, each with its reason: one after the copy (the copy reads what the
// iteration before wrote), one whose index the host loads in the body, and
// one that reads a buffer a copy back of the body writes. Each destination
// rotates, the copy in place.
// CHECK-LABEL: func.func @producers_stay
// CHECK: scf.for
// CHECK-NEXT: vyre.copy_h2d
// CHECK-NEXT: vyre.dispatch
// CHECK-NEXT: memref.store
func.func @producers_stay(%stage: memref<16xf32> {vyre.pinned, llvm.noalias}, %log: memref<16xf32> {vyre.pinned, llvm.noalias},
                          %frames: memref<8xindex> {vyre.pinned, llvm.noalias}, %v: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %a2 = vyre.alloc : memref<16xf32>
  %a3 = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop pipelined at depth 2: 0 copies issued 1 iteration(s) ahead, 1 destination(s) of copies whose source the body writes rotated (the copies stay in place), 64 bytes of extra device memory}}
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark @below {{copy into slot 3 is not issued early: 'memref.store' in the body may write its source, and cannot be issued early with it: it comes after the copy, which reads what the iteration before wrote}}
    vyre.copy_h2d %stage to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
    memref.store %v, %stage[%c0] : memref<16xf32>
  }
  // expected-remark @below {{loop pipelined at depth 2: 0 copies issued 1 iteration(s) ahead, 1 destination(s) of copies whose source the body writes rotated (the copies stay in place), 64 bytes of extra device memory}}
  scf.for %i = %c0 to %n step %c1 {
    %frame = memref.load %frames[%i] : memref<8xindex>
    memref.store %v, %stage[%frame] : memref<16xf32>
    // expected-remark @below {{copy into slot 4 is not issued early: 'memref.store' in the body may write its source, and cannot be issued early with it: its operands are computed inside the loop by an op with effects}}
    vyre.copy_h2d %stage to %a2 : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a2, %acc : memref<16xf32>, memref<16xf32>)
  }
  // expected-remark @below {{loop not pipelined: no copy can be issued early, and no buffer is overwritten by a launch}}
  scf.for %i = %c0 to %n step %c1 {
    memref.copy %log, %stage : memref<16xf32> to memref<16xf32>
    // expected-remark @below {{copy into slot 5 is not issued early: 'memref.copy' in the body may write its source, and cannot be issued early with it: 'vyre.copy_d2h' in the body touches what it writes, or writes what it reads}}
    vyre.copy_h2d %stage to %a3 : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a3, %acc : memref<16xf32>, memref<16xf32>)
    vyre.copy_d2h %acc to %log : memref<16xf32> to memref<16xf32>
  }
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %a2 : memref<16xf32>
  vyre.dealloc %a3 : memref<16xf32>
  vyre.dealloc %acc : memref<16xf32>
  return
}

// Tests that a loop whose body holds a loop pipelined already (with its
// guard, an scf.if) is left as written: the outer rewrite would write the
// inner pipeline out once per iteration it unrolls. Branches of the input
// are pipelined (pipeline-loops-branches.mlir).
// CHECK-LABEL: func.func @pipelined_inner_loop
// CHECK-COUNT-4: vyre.alloc
// CHECK-NEXT: scf.for
func.func @pipelined_inner_loop(%h: memref<4x16xf32> {vyre.pinned, llvm.noalias}, %g: memref<8x16xf32> {vyre.pinned, llvm.noalias}, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop not pipelined: the body holds a loop pipelined already, whose pipeline would be written out once per iteration the outer rewrite unrolls}}
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
    // expected-remark @below {{loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 64 bytes of extra device memory}}
    scf.for %j = %c0 to %m step %c1 {
      %inner = memref.subview %g[%j, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %inner to %b : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
      vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %acc : memref<16xf32>, memref<16xf32>)
    }
  }
  return
}

// Tests that a source computed from a load (an op with effects) is not
// computed early.
// CHECK-LABEL: func.func @source_from_load
// CHECK: scf.for
// CHECK-NEXT: memref.load
func.func @source_from_load(%h: memref<8x16xf32> {vyre.pinned, llvm.noalias}, %rows: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop not pipelined: no copy can be issued early}}
  scf.for %i = %c0 to %c8 step %c1 {
    %r = memref.load %rows[%i] : memref<8xindex>
    %row = memref.subview %h[%r, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    // expected-remark @below {{copy into slot 2 is not issued early: its source is computed inside the loop by an op with effects}}
    vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
  }
  return
}

// Tests invariant copies: one the loop never changes moves out (the trip
// count is a positive constant); one whose buffer a kernel writes stays; one
// in a loop that may not run, whose buffer is read after it, stays too (out
// of the loop it would run even when the loop does not).
// CHECK-LABEL: func.func @invariant_copies
// CHECK: vyre.copy_h2d %{{.+}} to %[[W:[^ ]+]] :
// CHECK-NEXT: scf.for
// CHECK-NEXT: vyre.dispatch
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK-NEXT: vyre.copy_h2d
// CHECK: scf.for
// CHECK-NEXT: vyre.copy_h2d
// CHECK-NEXT: vyre.dispatch
// CHECK-NEXT: }
// CHECK-NEXT: vyre.copy_d2h
func.func @invariant_copies(%hw: memref<16xf32> {vyre.pinned, llvm.noalias}, %out: memref<16xf32> {vyre.pinned, llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %w = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    // expected-remark @below {{copy into slot 2 writes the same bytes every iteration: moved out of the loop}}
    vyre.copy_h2d %hw to %w : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%w, %acc : memref<16xf32>, memref<16xf32>)
  }
  // The kernel accumulates into the copy's destination: each iteration must
  // start from the copied bytes. It stays, and is not rotated either (the
  // buffer is read after the loop).
  // expected-remark @below {{loop not pipelined: no copy can be issued early}}
  scf.for %i = %c0 to %c8 step %c1 {
    // expected-remark @below {{copy into slot 3 is not issued early: slot 3 is used after the loop}}
    vyre.copy_h2d %hw to %acc : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%w, %acc : memref<16xf32>, memref<16xf32>)
  }
  // expected-remark @below {{loop not pipelined: no copy can be issued early}}
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark @below {{copy into slot 2 is not issued early: slot 2 is used after the loop}}
    vyre.copy_h2d %hw to %w : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%w, %acc : memref<16xf32>, memref<16xf32>)
  }
  vyre.copy_d2h %w to %out : memref<16xf32> to memref<16xf32>
  return
}

// Tests outputs that must not rotate, or whose copy back must stay in its
// iteration: a launch that only writes the buffer (it may leave elements of
// the previous iteration, which its copy back would then read), and a host
// read of the copied-back result in the same iteration.
// CHECK-LABEL: func.func @outputs_stay
// CHECK: scf.for
// CHECK: vyre.dispatch @m::@write_y {{.*}} args(%{{.+}}, %[[Y:[^ ]+]] :
// CHECK-NEXT: vyre.copy_d2h %[[Y]]
// CHECK: vyre.dispatch @m::@write_y {{.*}} args(%{{.+}}, %[[Y]] :
// CHECK-NEXT: vyre.copy_d2h %[[Y]]
// CHECK: vyre.dispatch @m::@write_y {{.*}} args(%{{.+}}, %[[Y2:[^ ]+]] : {{.*}} access [read, overwrite]
// CHECK-NEXT: vyre.copy_d2h %[[Y2]]
// CHECK-NEXT: memref.load
// CHECK: scf.for
// CHECK: vyre.dispatch @m::@write_y {{.*}} args(%{{.+}}, %[[Y3:[^ ]+]] : {{.*}} access [read, overwrite]
// CHECK-NEXT: vyre.copy_d2h %[[Y3]]
// CHECK-NEXT: memref.load
gpu.module @m {
  gpu.func @write_y(%x: memref<16xf32>, %y: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    memref.store %v, %y[%i] : memref<16xf32>
    gpu.return
  }
}
func.func @outputs_stay(%in: memref<4x16xf32> {vyre.pinned, llvm.noalias}, %out: memref<4x16xf32> {vyre.pinned, llvm.noalias}, %log: memref<4xf32> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = vyre.alloc : memref<16xf32>
  %y = vyre.alloc : memref<16xf32>
  %x2 = vyre.alloc : memref<16xf32>
  %y2 = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 64 bytes of extra device memory}}
  scf.for %i = %c0 to %c4 step %c1 {
    %src = memref.subview %in[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %dst = memref.subview %out[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %src to %x : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @m::@write_y blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<16xf32>, memref<16xf32>) access [read, write]
    vyre.copy_d2h %y to %dst : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
  }
  // expected-remark @below {{loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 1 overwritten buffer(s) rotated, 128 bytes of extra device memory}}
  scf.for %i = %c0 to %c4 step %c1 {
    %src = memref.subview %in[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %dst = memref.subview %out[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %src to %x2 : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @m::@write_y blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x2, %y2 : memref<16xf32>, memref<16xf32>) access [read, overwrite]
    vyre.copy_d2h %y2 to %dst : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %first = memref.load %dst[%c0] : memref<16xf32, strided<[1], offset: ?>>
    memref.store %first, %log[%i] : memref<4xf32>
  }
  return
}

// Tests the budget: with room for no extra buffer the loop is left, with a
// remark.
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops="buffer-budget=32" --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: remark: [Missed] PipelineBudget | {{.*}}loop not pipelined: one more copy of each of its 1 rotated buffer(s) needs 64 bytes, over the 32 bytes left of buffer-budget
// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops="buffer-budget=64 pipeline-depth=4" --remarks-filter=pipeline-loops -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUT
// CUT: pipeline depth cut from 4 to 2 to stay within buffer-budget
// CUT: loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 64 bytes of extra device memory
// CHECK-LABEL: func.func @budget
func.func @budget(%h: memref<8x16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop pipelined at depth 2: 1 copies issued 1 iteration(s) ahead, 64 bytes of extra device memory}}
  scf.for %i = %c0 to %c8 step %c1 {
    %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %acc : memref<16xf32>, memref<16xf32>)
  }
  return
}

// Tests that a loop whose induction variable is not an index is left as it
// is (the slots' arithmetic is on index).
// CHECK-LABEL: func.func @i32_loop
// CHECK: scf.for {{.*}} : i32 {
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: memref.subview
// CHECK-NEXT: vyre.copy_h2d
func.func @i32_loop(%h: memref<8x16xf32> {vyre.pinned, llvm.noalias}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %acc = vyre.alloc : memref<16xf32>
  // expected-remark @below {{loop not pipelined: its induction variable is not an index}}
  scf.for %j = %c0 to %n step %c1 : i32 {
    %i = arith.index_cast %j : i32 to index
    %row = memref.subview %h[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@acc blocks(%one, %one, %one) threads(%one, %one, %one) args(%a, %acc : memref<16xf32>, memref<16xf32>)
  }
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %acc : memref<16xf32>
  return
}

// Tests that a loop whose only rotating buffer is one a launch overwrites,
// with no copy into it or back from it, is left as written: rotating it
// overlaps nothing and costs an allocation (the other kernel here reads what
// a copy before the loop filled).
// CHECK-LABEL: func.func @overwritten_without_copies
// CHECK-COUNT-2: vyre.alloc
// CHECK-NEXT: vyre.copy_h2d
// CHECK-NEXT: scf.for
func.func @overwritten_without_copies(%h: memref<16xf32> {vyre.pinned, llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = vyre.alloc : memref<16xf32>
  %y = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  // expected-remark @below {{loop not pipelined: no copy can be issued early or late, so its overwritten buffers would rotate for nothing}}
  scf.for %i = %c0 to %c4 step %c1 {
    vyre.dispatch @k::@acc blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %y : memref<16xf32>, memref<16xf32>) access [read, overwrite]
  }
  vyre.dealloc %a : memref<16xf32>
  vyre.dealloc %y : memref<16xf32>
  return
}
