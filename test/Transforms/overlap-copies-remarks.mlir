// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false order-kernels=false" --remarks-filter=overlap-copies --verify-diagnostics
// (order-kernels=false: these cases are about the remarks of each copy in the
// input's order; overlap-copies-order-kernels.mlir tests the reordering.)
// Without the filter the pass says nothing (the annotations are hidden so that
// the driver does not check them).
// RUN: sed -e 's/expected-remark/hidden-remark/' %s | vyre-opt --vyre-kernel-access --overlap-copies=cost-model=false 2>&1 >/dev/null | count 0

// The remarks of --overlap-copies: why each copy moved where it did, and
// what it overlaps.

gpu.module @k {
  // Reads its argument.
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
  // Writes its argument.
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests the passed remark, naming how many kernels a copy may overlap and
// which op waits first, next to a missed one that overlaps nothing.
func.func @passed_and_missed(%h: memref<16xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{copy into slot 1 may overlap 1 kernel(s); first wait at 'vyre.dispatch' (read-after-write)"}}
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  // expected-remark @+1 {{copy into slot 2 overlaps no kernel: 'vyre.dispatch' (write-after-write) waits for it right away; it cannot move above 'vyre.dispatch' (write-after-read on slot 2)"}}
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// Tests the reasons a copy cannot move up: an earlier writer of its slot, a
// host write of its source, and an op of unknown effect.
func.func private @opaque()
func.func @hoist_limits(%h: memref<16xf32> {vyre.pinned}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // expected-remark @+1 {{copy into slot 1 may overlap 1 kernel(s); first wait at 'memref.store' (write-after-read); it cannot move above 'vyre.dispatch' (write-after-write on slot 1)"}}
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c : memref<16xf32>)
  memref.store %v, %h[%c0] : memref<16xf32>
  // expected-remark @+1 {{copy into slot 2 may overlap 2 kernel(s) (2 issued before it); first wait at 'func.call' (unknown-access); it cannot move above 'memref.store' (host-buffer)"}}
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  // expected-remark @+1 {{call to @opaque may touch any buffer: the copies in flight are synchronized before it (give it a body, or declare 'vyre.effects' on it)}}
  func.call @opaque() : () -> ()
  // expected-remark @+1 {{copy into slot 3 overlaps no kernel: 'vyre.dispatch' (read-after-write) waits for it right away; it cannot move above 'func.call' (unknown-access on slot 3)"}}
  vyre.copy_h2d %h to %c : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c : memref<16xf32>)
  return
}

// Tests that kernels issued before a copy count when nothing orders the copy
// after them: the copy into slot 1 waits (a record) for the writer of its
// slot only, and may run beside the reader of slot 3 issued after it. Next
// to it, the copy into slot 2 comes after the host waited for the main
// stream (an op of unknown effect): nothing issued before it is running.
func.func @kernels_issued_before(%h: memref<16xf32> {vyre.pinned}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c : memref<16xf32>)
  memref.store %v, %h[%c0] : memref<16xf32>
  // expected-remark @+1 {{copy into slot 1 may overlap 1 kernel(s) (1 issued before it); first wait at 'vyre.dispatch' (read-after-write); it cannot move above 'memref.store' (host-buffer)"}}
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c : memref<16xf32>)
  // expected-remark @+1 {{call to @opaque may touch any buffer}}
  func.call @opaque() : () -> ()
  // expected-remark @+1 {{copy into slot 2 overlaps no kernel: 'vyre.dispatch' (read-after-write) waits for it right away; it cannot move above 'func.call' (unknown-access on slot 2)"}}
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// Tests that a later copy waiting for a copy does not end what the copy
// overlaps: the first copy into slot 2 runs beside both readers of slot 3
// until the reader of slot 2 waits for the copy after it (and so for it).
func.func @later_copy_waits(%h: memref<16xf32> {vyre.pinned}, %g: memref<16xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{copy into slot 2 may overlap 2 kernel(s); first wait at 'vyre.copy_h2d_async' (write-after-write)"}}
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  // expected-remark @+1 {{copy into slot 2 may overlap 2 kernel(s); first wait at 'vyre.dispatch' (read-after-write); it cannot move above 'vyre.copy_h2d_async' (write-after-write on slot 2)"}}
  vyre.copy_h2d %g to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests a copy placed right after a loop that holds only device work: the
// host waits for the main stream after that loop, but after the copy is
// issued, which may still run beside the loop's kernels.
func.func @after_device_only_loop(%hb: memref<64xf32> {vyre.pinned, llvm.noalias}, %out: memref<16xf32> {vyre.pinned, llvm.noalias}) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %c0) -> (index) {
    %off = arith.muli %i, %c16 : index
    %sv = memref.subview %hb[%off] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    %cv = memref.cast %sv : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    // expected-remark @+1 {{copy into slot 3 overlaps no kernel}}
    vyre.copy_h2d %cv to %b : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    scf.yield %m : index
  }
  // expected-remark @+1 {{copy from slot 2 may overlap 1 kernel(s) (1 issued before it); first wait at 'memref.load' (read-after-write)"}}
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  %x = memref.load %out[%c0] : memref<16xf32>
  return %x : f32
}

// Tests that a call the host does not wait before counts as a kernel it may
// launch: the copy moves above it and may run beside what it launches.
func.func private @launches_own_kernels() attributes {vyre.effects = "none"}
func.func @beside_a_call(%h: memref<16xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  func.call @launches_own_kernels() : () -> ()
  // expected-remark @+1 {{copy into slot 1 may overlap 1 kernel(s); first wait at 'vyre.dispatch' (read-after-write)"}}
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests a copy in a branch: it may run beside the kernel issued before the
// scf.if, which nothing orders it after; next to it, a copy whose slot that
// kernel writes waits for it (a record before the scf.if), and overlaps
// nothing.
func.func @kernels_before_branch(%h: memref<16xf32> {vyre.pinned}, %cond: i1) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  scf.if %cond {
    // expected-remark @+1 {{copy into slot 1 may overlap the kernels still running when its block starts; first wait at 'vyre.dispatch' (read-after-write)"}}
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  scf.if %cond {
    // expected-remark @+1 {{copy into slot 1 overlaps no kernel: 'vyre.dispatch' (read-after-write) waits for it right away}}
    vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}

// Tests that a copy nothing waits for until the end says so.
func.func @joined_at_end(%h: memref<16xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{copy into slot 1 may overlap 2 kernel(s); first wait at 'func.return' (end of block)"}}
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// Tests the pinned-memory analysis remark: said for a pageable source, not
// for a registered buffer.
func.func @pageable_and_pinned(%pageable: memref<16xf32>, %registered: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %unranked = memref.cast %registered : memref<16xf32> to memref<*xf32>
  gpu.host_register %unranked : memref<*xf32>
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+2 {{copy into slot 2 overlaps no kernel}}
  // expected-remark @+1 {{host buffer of the copy into slot 2 is not known to be pinned (gpu.host_register, or a 'vyre.pinned' argument): a copy from pageable memory is staged synchronously and defeats overlap}}
  vyre.copy_h2d %pageable to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // expected-remark @+1 {{copy into slot 3 may overlap 1 kernel(s)}}
  vyre.copy_h2d %registered to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// Tests that a copy stays behind the copy before it on its side stream, so
// that the copy needed first is not queued behind it.
func.func @stream_order(%h: memref<16xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{copy into slot 2 overlaps no kernel}}
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  // expected-remark @+1 {{copy into slot 1 may overlap 1 kernel(s); first wait at 'vyre.dispatch' (read-after-write); it stays behind the copy before it on side stream 1}}
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests that a copy whose destination is not a known slot says it stays in
// place.
func.func private @make_buffer() -> memref<16xf32>
func.func @unknown_destination(%h: memref<16xf32> {vyre.pinned}) {
  // expected-remark @+1 {{call to @make_buffer may touch any buffer}}
  %d = func.call @make_buffer() : () -> memref<16xf32>
  // expected-remark @+1 {{copy stays in place: its destination is not a known slot}}
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  return
}
