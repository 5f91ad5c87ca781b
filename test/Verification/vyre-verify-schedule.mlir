// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-verify-schedule --verify-diagnostics

// Tests that a kernel reading a slot an async copy writes must wait for the
// copy: without the wait it races, with it (next function) it does not.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func @read_without_wait(%h: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // expected-error @+1 {{race on slot 1: 'vyre.dispatch' and the earlier 'vyre.copy_h2d_async' are not ordered}}
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.sync %t
  return
}
func.func @read_after_wait(%h: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.wait %t
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// -----

// Tests that a copy nothing joins races with the return (the caller's view),
// and that a sync before the return is enough.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func @not_joined(%h: memref<16xf32> {llvm.noalias}) {
  %a = vyre.alloc : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // expected-error @+1 {{race on slot 0: 'func.return' and the earlier 'vyre.copy_h2d_async' are not ordered}}
  return
}
func.func @joined(%h: memref<16xf32> {llvm.noalias}) {
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.sync %t
  return
}

// -----

// Tests that a host write to a copy's source must follow a sync, and that a
// device wait does not order the host.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func @host_write_races(%h: memref<16xf32> {llvm.noalias}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.wait %t
  // expected-error @+1 {{race on slot 0: 'memref.store' and the earlier 'vyre.copy_h2d_async' are not ordered}}
  memref.store %v, %h[%c0] : memref<16xf32>
  return
}
func.func @host_write_after_sync(%h: memref<16xf32> {llvm.noalias}, %v: f32) {
  %c0 = arith.constant 0 : index
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.sync %t
  memref.store %v, %h[%c0] : memref<16xf32>
  return
}

// -----

// Tests write-after-read: an async copy into a slot an earlier kernel reads
// must depend on that kernel's progress (a record), not run beside it.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func @war_without_record(%h: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // expected-error @+1 {{race on slot 1: 'vyre.copy_h2d_async' and the earlier 'vyre.dispatch' are not ordered}}
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.sync %t
  return
}
func.func @war_with_record(%h: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  %r = vyre.record
  %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
  vyre.sync %t
  return
}

// -----

// Tests that loops are checked across iterations: the next iteration's copy
// must wait for this iteration's reader.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func @loop_carried(%h: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{race on slot 1: 'vyre.copy_h2d_async' and the earlier 'vyre.dispatch' are not ordered}}
    %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
    vyre.wait %t
    // expected-note @+1 {{the earlier op}}
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    vyre.sync %t
  }
  return
}
func.func @loop_recorded(%h: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %r = vyre.record
    %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
    vyre.wait %t
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}

// -----

// Tests that both branches of an scf.if are checked: only the else branch
// races.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func @branches(%h: memref<16xf32> {llvm.noalias}, %c: i1) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  scf.if %c {
    vyre.wait %t
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  } else {
    // expected-error @+1 {{race on slot 1: 'vyre.dispatch' and the earlier 'vyre.copy_h2d_async' are not ordered}}
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  vyre.sync %t
  return
}

// -----

// Tests that a sequential program is race-free as it is.
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
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func @sequential(%h: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that vyre ops in a region the checker cannot unfold are refused.
func.func @while_loop(%h: memref<16xf32>, %c: i1) {
  %a = vyre.alloc : memref<16xf32>
  // expected-error @+1 {{'scf.while' op holds vyre ops in a region --vyre-verify-schedule cannot unfold (only scf.for, scf.if and scf.execute_region)}}
  scf.while : () -> () {
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    scf.condition(%c)
  } do {
    scf.yield
  }
  return
}

// -----

// Tests that a token the checker cannot resolve is refused.
func.func @argument_token(%t: !vyre.token) {
  // expected-error @+1 {{'vyre.wait' op uses a token --vyre-verify-schedule cannot resolve}}
  vyre.wait %t
  return
}

// -----

// Tests that a region of several blocks is refused.
func.func @unstructured(%h: memref<16xf32>, %c: i1) {
  %d = vyre.alloc : memref<16xf32>
  // expected-error @+1 {{'scf.execute_region' op has a region of several blocks, which --vyre-verify-schedule cannot check}}
  scf.execute_region {
    cf.cond_br %c, ^a, ^b
  ^a:
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
    scf.yield
  ^b:
    scf.yield
  }
  return
}

// -----

// Tests that more scf.if ops on distinct conditions than the checker
// enumerates (max-branch-ifs, 14) are refused, with the remedies
// (vyre-verify-schedule-max-branch-ifs.mlir raises it).
// expected-error @+1 {{'func.func' op has 15 scf.if ops on distinct conditions: --vyre-verify-schedule checks at most 16384 branch combinations (max-branch-ifs=14); raise max-branch-ifs (up to 24; each one more doubles the time), or check the lowered code alone with --vyre-verify-gpu-streams, whose max-traces bounds it}}
func.func @many_branches(%c0: i1, %c1: i1, %c2: i1, %c3: i1, %c4: i1, %c5: i1, %c6: i1, %c7: i1, %c8: i1, %c9: i1, %c10: i1, %c11: i1, %c12: i1, %c13: i1, %c14: i1) {
  %d = vyre.alloc : memref<16xf32>
  scf.if %c0 {
  }
  scf.if %c1 {
  }
  scf.if %c2 {
  }
  scf.if %c3 {
  }
  scf.if %c4 {
  }
  scf.if %c5 {
  }
  scf.if %c6 {
  }
  scf.if %c7 {
  }
  scf.if %c8 {
  }
  scf.if %c9 {
  }
  scf.if %c10 {
  }
  scf.if %c11 {
  }
  scf.if %c12 {
  }
  scf.if %c13 {
  }
  scf.if %c14 {
  }
  return
}

// -----

// Tests that scf.if ops on one condition the function computes once (an
// argument) take one branch together: fifteen of them are one choice, and
// the function is checked (--vyre-pipeline-loops writes a branch out once
// per iteration it unrolls).
func.func @one_condition(%h: memref<16xf32> {llvm.noalias}, %c: i1) {
  %d = vyre.alloc : memref<16xf32>
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  scf.if %c {
    vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  }
  return
}

// -----

// Tests that a host store through a pointer is a write to anything: it races
// with a copy still reading the buffer the pointer was taken from, and a sync
// before it (next function) orders it.
func.func @store_through_pointer(%h: memref<16xf32> {llvm.noalias}, %v: f32) {
  %a = vyre.alloc : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  %address = memref.extract_aligned_pointer_as_index %h : memref<16xf32> -> index
  %integer = arith.index_cast %address : index to i64
  %pointer = llvm.inttoptr %integer : i64 to !llvm.ptr
  // expected-error @+1 {{race on}}
  llvm.store %v, %pointer : f32, !llvm.ptr
  vyre.sync %t
  vyre.dealloc %a : memref<16xf32>
  return
}

func.func @store_through_pointer_after_sync(%h: memref<16xf32> {llvm.noalias}, %v: f32) {
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  %address = memref.extract_aligned_pointer_as_index %h : memref<16xf32> -> index
  %integer = arith.index_cast %address : index to i64
  %pointer = llvm.inttoptr %integer : i64 to !llvm.ptr
  vyre.sync %t
  llvm.store %v, %pointer : f32, !llvm.ptr
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that a function without async vyre ops has sequential semantics: the
// host load after the kernel that writes the buffer is ordered after it. In
// stream form (next function, which holds a copy_h2d_async) the schedule must
// say so with a sync, and without one it is a race.
gpu.module @k {
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}
func.func @sequential_host_load(%x: memref<16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
  %v = memref.load %x[%c0] : memref<16xf32>
  return %v : f32
}

func.func @stream_form_host_load(%x: memref<16xf32> {llvm.noalias},
                                 %h: memref<16xf32> {llvm.noalias}) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
  // expected-error @+1 {{race on slot 0: 'memref.load' and the earlier 'vyre.dispatch' are not ordered}}
  %v = memref.load %x[%c0] : memref<16xf32>
  vyre.wait %t
  vyre.dealloc %a : memref<16xf32>
  return %v : f32
}

// -----

// Tests that unpinning a buffer touches that buffer only: unpinning an
// unrelated buffer while a copy and a kernel are in flight is fine, while
// unpinning the copy's own source (next function) races with the copy.
gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}
func.func @unpin_other(%h: memref<16xf32> {llvm.noalias},
                       %other: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  %u = memref.cast %other : memref<16xf32> to memref<*xf32>
  gpu.host_unregister %u : memref<*xf32>
  vyre.wait %t
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dealloc %a : memref<16xf32>
  return
}

func.func @unpin_source(%h: memref<16xf32> {llvm.noalias}) {
  %a = vyre.alloc : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  %u = memref.cast %h : memref<16xf32> to memref<*xf32>
  // expected-error @+1 {{race on slot 0: 'gpu.host_unregister' and the earlier 'vyre.copy_h2d_async' are not ordered}}
  gpu.host_unregister %u : memref<*xf32>
  vyre.sync %t
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that a CPU helper of several blocks, without vyre ops, is left alone
// (a host op in program order, nothing to order), while a function of several
// blocks that holds vyre ops is refused.
func.func @cpu_helper(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %a : i32
^bb2:
  return %b : i32
}
func.func @calls_the_helper(%h: memref<16xf32>, %c: i1, %a: i32) -> i32 {
  %d = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  %r = func.call @cpu_helper(%c, %a, %a) : (i1, i32, i32) -> i32
  return %r : i32
}
// expected-error @+1 {{'func.func' op has a region of several blocks, which --vyre-verify-schedule cannot check}}
func.func @vyre_ops_in_blocks(%h: memref<16xf32>, %c: i1) {
  %d = vyre.alloc : memref<16xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  return
^bb2:
  return
}

// -----

// Tests that a host buffer chosen by arith.select among arguments is one of
// them: a copy into a select of two llvm.noalias arguments runs beside a copy
// reading a third; a copy into a select that may be the buffer another copy
// reads races with it.
func.func @select_of_others(%h: memref<16xf32> {llvm.noalias}, %o0: memref<16xf32> {llvm.noalias}, %o1: memref<16xf32> {llvm.noalias}, %c: i1) {
  %a = vyre.alloc : memref<16xf32>
  %s = arith.select %c, %o0, %o1 : memref<16xf32>
  %in = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  %out = vyre.copy_d2h_async %h to %s on stream 2 : memref<16xf32> to memref<16xf32>
  vyre.sync %in, %out
  vyre.dealloc %a : memref<16xf32>
  return
}

func.func @select_of_source(%h: memref<16xf32> {llvm.noalias}, %o0: memref<16xf32> {llvm.noalias}, %c: i1) {
  %a = vyre.alloc : memref<16xf32>
  %s = arith.select %c, %o0, %h : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %in = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // expected-error @+1 {{race on slot 0: 'vyre.copy_d2h_async' and the earlier 'vyre.copy_h2d_async' are not ordered}}
  %out = vyre.copy_d2h_async %h to %s on stream 2 : memref<16xf32> to memref<16xf32>
  vyre.sync %in, %out
  vyre.dealloc %a : memref<16xf32>
  return
}

func.func @select_of_select(%h: memref<16xf32> {llvm.noalias}, %o0: memref<16xf32> {llvm.noalias}, %o1: memref<16xf32> {llvm.noalias}, %c: i1, %d: i1) {
  %a = vyre.alloc : memref<16xf32>
  %s = arith.select %c, %o0, %h : memref<16xf32>
  %t = arith.select %d, %o1, %s : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %in = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // expected-error @+1 {{race on slot 0: 'vyre.copy_d2h_async' and the earlier 'vyre.copy_h2d_async' are not ordered}}
  %out = vyre.copy_d2h_async %h to %t on stream 2 : memref<16xf32> to memref<16xf32>
  vyre.sync %in, %out
  vyre.dealloc %a : memref<16xf32>
  return
}

func.func @select_of_allocation(%h: memref<16xf32> {llvm.noalias}, %c: i1) {
  %a = vyre.alloc : memref<16xf32>
  %p = memref.alloc() : memref<16xf32>
  %s = arith.select %c, %p, %h : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %in = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // expected-error @+1 {{race on slot 0: 'vyre.copy_d2h_async' and the earlier 'vyre.copy_h2d_async' are not ordered}}
  %out = vyre.copy_d2h_async %h to %s on stream 2 : memref<16xf32> to memref<16xf32>
  vyre.sync %in, %out
  memref.dealloc %p : memref<16xf32>
  vyre.dealloc %a : memref<16xf32>
  return
}
