// RUN: vyre-opt %s --split-input-file --vyre-deduce-noalias --remarks-filter=deduce-noalias --verify-diagnostics | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-deduce-noalias=specialize=false | FileCheck %s --check-prefix=NOCOPY

// Tests --vyre-deduce-noalias: memref arguments are marked llvm.noalias
// where every call in the module passes a distinct buffer; each case sits
// next to the one where the mark must not be made.

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// Two allocations, passed to a private function: both arguments marked.
// CHECK-LABEL: func.func private @batches
// CHECK-SAME: (%{{.*}}: memref<16xf32> {llvm.noalias}, %{{.*}}: memref<16xf32> {llvm.noalias})
// expected-remark @below {{arguments 0, 1 of @batches marked llvm.noalias: every call passes distinct buffers for them (1 call)}}
func.func private @batches(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

func.func @main() {
  %x = memref.alloc() : memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  call @batches(%x, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// One allocation passed twice (through a view): nothing marked, nothing
// copied.
// CHECK-LABEL: func.func private @batches
// CHECK-SAME: (%{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>)
// CHECK-NOT: _noalias
// expected-remark @below {{arguments 0, 1 of @batches may alias: at the call at line 60, operand 0 and operand 1 may be the same buffer}}
func.func private @batches(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

func.func @main() {
  %x = memref.alloc() : memref<16xf32>
  %y = memref.cast %x : memref<16xf32> to memref<16xf32>
  call @batches(%x, %y) : (memref<16xf32>, memref<16xf32>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// A public function is left as written for callers outside the module; the
// calls in the module that pass distinct buffers call a marked copy. A call
// that passes one buffer twice keeps calling the original.
// CHECK-LABEL: func.func @compute
// CHECK-SAME: (%{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>)
// CHECK: func.func private @compute_noalias
// CHECK-SAME: (%{{.*}}: memref<16xf32> {llvm.noalias}, %{{.*}}: memref<16xf32> {llvm.noalias})
// CHECK-LABEL: func.func @main
// CHECK: call @compute_noalias(%[[X:.+]], %[[OUT:.+]])
// CHECK: call @compute(%[[X]], %[[X]])
// NOCOPY-LABEL: func.func @main
// NOCOPY: call @compute(
// NOCOPY: call @compute(
// expected-remark @below {{1 of the calls to @compute pass distinct buffers for arguments 0, 1: they call @compute_noalias, a copy with them marked llvm.noalias, because @compute is not private, or is named other than by calls}}
// expected-remark @below {{arguments 0, 1 of @compute may alias: at the call at line 100, operand 0 and operand 1 may be the same buffer}}
func.func @compute(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

func.func @main() {
  %x = memref.alloc() : memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  call @compute(%x, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  call @compute(%x, %x) : (memref<16xf32>, memref<16xf32>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

memref.global "private" @weights : memref<16xf32> = dense<1.0>
memref.global "private" @bias : memref<16xf32> = dense<0.0>

// A global is distinct from what else the function reaches unless the
// function names it too: @weights is, @bias is not.
// CHECK-LABEL: func.func private @layer
// CHECK-SAME: (%{{.*}}: memref<16xf32> {llvm.noalias}, %{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32> {llvm.noalias})
// expected-remark @below {{arguments 0, 2 of @layer marked llvm.noalias: every call passes distinct buffers for them (1 call)}}
// expected-remark @below {{arguments 1 of @layer may alias: at the call at line 136, operand 1 is the global @bias, which @layer or a function it calls names}}
func.func private @layer(%w: memref<16xf32>, %b: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %bias = memref.get_global @bias : memref<16xf32>
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %w to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %bias to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

func.func @main() {
  %w = memref.get_global @weights : memref<16xf32>
  %b = memref.get_global @bias : memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  call @layer(%w, %b, %out) : (memref<16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// Marks pass down a chain of calls: @outer's arguments are marked from
// @main's allocations, then @inner's from @outer's marked arguments.
// CHECK-LABEL: func.func private @inner
// CHECK-SAME: (%{{.*}}: memref<16xf32> {llvm.noalias}, %{{.*}}: memref<16xf32> {llvm.noalias})
// CHECK-LABEL: func.func private @outer
// CHECK-SAME: (%{{.*}}: memref<16xf32> {llvm.noalias}, %{{.*}}: memref<16xf32> {llvm.noalias})
// expected-remark @below {{arguments 0, 1 of @inner marked llvm.noalias: every call passes distinct buffers for them (1 call)}}
func.func private @inner(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// expected-remark @below {{arguments 0, 1 of @outer marked llvm.noalias: every call passes distinct buffers for them (1 call)}}
func.func private @outer(%x: memref<16xf32>, %out: memref<16xf32>) {
  call @inner(%x, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  return
}

func.func @main() {
  %x = memref.alloc() : memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  call @outer(%x, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

func.func private @make() -> memref<16xf32>
func.func private @log()

// A buffer of unknown origin (a call's result) may be any other: it spoils
// every argument of its call. A function that calls outside the module may
// reach any memory: nothing passed to it is distinct.
// CHECK-LABEL: func.func private @unknown_source
// CHECK-SAME: (%{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>)
// CHECK-LABEL: func.func private @calls_out
// CHECK-SAME: (%{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>)
// expected-remark @below {{arguments 0, 1 of @unknown_source may alias: at the call at line 215, operand 1 comes from 'func.call', a buffer of unknown origin}}
func.func private @unknown_source(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// expected-remark @below {{arguments 0, 1 of @calls_out may alias: @calls_out may reach memory other than its arguments, its allocations and globals ('func.call')}}
func.func private @calls_out(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  call @log() : () -> ()
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

func.func @main() {
  %x = memref.alloc() : memref<16xf32>
  %made = call @make() : () -> memref<16xf32>
  call @unknown_source(%x, %made) : (memref<16xf32>, memref<16xf32>) -> ()
  %out = memref.alloc() : memref<16xf32>
  call @calls_out(%x, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// Disjoint static slices of one host array are distinct buffers (a KV
// cache: rows 0 to 4095 read, rows 4096 to 4103 written back); slices that
// overlap are not.
// CHECK-LABEL: func.func private @decode
// CHECK-SAME: (%{{.*}}: memref<4096x16xf32, strided<[16, 1]>> {llvm.noalias}, %{{.*}}: memref<8x16xf32, strided<[16, 1], offset: 65536>> {llvm.noalias})
// CHECK-LABEL: func.func private @overlapping
// CHECK-SAME: (%{{.*}}: memref<8x16xf32, strided<[16, 1]>>, %{{.*}}: memref<8x16xf32, strided<[16, 1], offset: 64>>)
// expected-remark @below {{arguments 0, 1 of @decode marked llvm.noalias: every call passes distinct buffers for them (1 call)}}
func.func private @decode(%cache: memref<4096x16xf32, strided<[16, 1]>>, %rows: memref<8x16xf32, strided<[16, 1], offset: 65536>>) {
  %a = vyre.alloc : memref<4096x16xf32>
  %b = vyre.alloc : memref<8x16xf32>
  vyre.copy_h2d %cache to %a : memref<4096x16xf32, strided<[16, 1]>> to memref<4096x16xf32>
  vyre.copy_d2h %b to %rows : memref<8x16xf32> to memref<8x16xf32, strided<[16, 1], offset: 65536>>
  return
}

// expected-remark @below {{arguments 0, 1 of @overlapping may alias: at the call at line 260, operand 0 and operand 1 may be the same buffer}}
func.func private @overlapping(%lo: memref<8x16xf32, strided<[16, 1]>>, %hi: memref<8x16xf32, strided<[16, 1], offset: 64>>) {
  %a = vyre.alloc : memref<8x16xf32>
  vyre.copy_h2d %lo to %a : memref<8x16xf32, strided<[16, 1]>> to memref<8x16xf32>
  vyre.copy_d2h %a to %hi : memref<8x16xf32> to memref<8x16xf32, strided<[16, 1], offset: 64>>
  return
}

func.func @main() {
  %kv = memref.alloc() : memref<4104x16xf32>
  %cache = memref.subview %kv[0, 0] [4096, 16] [1, 1] : memref<4104x16xf32> to memref<4096x16xf32, strided<[16, 1]>>
  %rows = memref.subview %kv[4096, 0] [8, 16] [1, 1] : memref<4104x16xf32> to memref<8x16xf32, strided<[16, 1], offset: 65536>>
  call @decode(%cache, %rows) : (memref<4096x16xf32, strided<[16, 1]>>, memref<8x16xf32, strided<[16, 1], offset: 65536>>) -> ()
  %lo = memref.subview %kv[0, 0] [8, 16] [1, 1] : memref<4104x16xf32> to memref<8x16xf32, strided<[16, 1]>>
  %hi = memref.subview %kv[4, 0] [8, 16] [1, 1] : memref<4104x16xf32> to memref<8x16xf32, strided<[16, 1], offset: 64>>
  call @overlapping(%lo, %hi) : (memref<8x16xf32, strided<[16, 1]>>, memref<8x16xf32, strided<[16, 1], offset: 64>>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// Host memory registered with gpu.host_register by the caller is pinned in
// the callee: @registered's argument is marked vyre.pinned. @once_pageable
// is also called with a buffer nobody registers: not marked.
// CHECK-LABEL: func.func private @registered
// CHECK-SAME: (%{{.*}}: memref<16xf32> {llvm.noalias, vyre.pinned})
// CHECK-LABEL: func.func private @once_pageable
// CHECK-SAME: (%{{.*}}: memref<16xf32> {llvm.noalias})
// expected-remark @below {{arguments 0 of @registered marked vyre.pinned: every call passes them host memory registered with gpu.host_register (2 calls)}}
// expected-remark @below {{arguments 0 of @registered marked llvm.noalias: every call passes distinct buffers for them (2 calls)}}
func.func private @registered(%x: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  return
}

// expected-remark @below {{arguments 0 of @once_pageable marked llvm.noalias: every call passes distinct buffers for them (2 calls)}}
func.func private @once_pageable(%x: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  return
}

func.func @main() {
  %x = memref.alloc() : memref<16xf32>
  %y = memref.alloc() : memref<16xf32>
  %ux = memref.cast %x : memref<16xf32> to memref<*xf32>
  %uy = memref.cast %y : memref<16xf32> to memref<*xf32>
  gpu.host_register %ux : memref<*xf32>
  gpu.host_register %uy : memref<*xf32>
  %z = memref.alloc() : memref<16xf32>
  call @registered(%x) : (memref<16xf32>) -> ()
  call @registered(%y) : (memref<16xf32>) -> ()
  call @once_pageable(%x) : (memref<16xf32>) -> ()
  call @once_pageable(%z) : (memref<16xf32>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// A module that views memory from an allocation's base
// (memref.reinterpret_cast) may reach past a slice: disjoint slices are
// then not distinct buffers. (Here @widen writes the second slice through
// the first.)
// CHECK-LABEL: func.func private @widen
// CHECK-SAME: (%{{.*}}: memref<4xf32, strided<[1]>>, %{{.*}}: memref<4xf32, strided<[1], offset: 4>>)
// expected-remark @below {{arguments 0, 1 of @widen may alias: at the call at line 338, operand 0 and operand 1 may be the same buffer}}
func.func private @widen(%lo: memref<4xf32, strided<[1]>>, %hi: memref<4xf32, strided<[1], offset: 4>>) {
  %all = memref.reinterpret_cast %lo to offset: [0], sizes: [8], strides: [1] : memref<4xf32, strided<[1]>> to memref<8xf32>
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  memref.store %v, %all[%c0] : memref<8xf32>
  %a = vyre.alloc : memref<4xf32>
  vyre.copy_h2d %hi to %a : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32>
  return
}

func.func @main() {
  %m = memref.alloc() : memref<8xf32>
  %lo = memref.subview %m[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %hi = memref.subview %m[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  call @widen(%lo, %hi) : (memref<4xf32, strided<[1]>>, memref<4xf32, strided<[1], offset: 4>>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// An operand that may carry a buffer other than as a memref (a pointer)
// spoils every argument of its call; plain data (an index) does not.
// CHECK-LABEL: func.func private @through_pointer
// CHECK-SAME: (%{{.*}}: memref<16xf32>, %{{.*}}: !llvm.ptr, %{{.*}}: memref<16xf32>)
// CHECK-LABEL: func.func private @with_index
// CHECK-SAME: (%{{.*}}: memref<16xf32> {llvm.noalias}, %{{.*}}: index, %{{.*}}: memref<16xf32> {llvm.noalias})
// expected-remark @below {{arguments 0, 2 of @through_pointer may alias: at the call at line 375, operand 1 is of type !llvm.ptr, through which the callee may reach memory}}
func.func private @through_pointer(%x: memref<16xf32>, %p: !llvm.ptr, %out: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// expected-remark @below {{arguments 0, 2 of @with_index marked llvm.noalias: every call passes distinct buffers for them (1 call)}}
func.func private @with_index(%x: memref<16xf32>, %i: index, %out: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

func.func @main(%p: !llvm.ptr, %i: index) {
  %x = memref.alloc() : memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  call @through_pointer(%x, %p, %out) : (memref<16xf32>, !llvm.ptr, memref<16xf32>) -> ()
  call @with_index(%x, %i, %out) : (memref<16xf32>, index, memref<16xf32>) -> ()
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// A call in a nested module names that module's @twin, not this one's: it
// is no call of the outer @twin, which no call here reaches. (A module
// without calls of its own functions is left at once, without remarks.)
// CHECK-LABEL: func.func @twin
// CHECK-SAME: (%{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>)
// CHECK: module @inner
// CHECK: call @twin(
// CHECK-NOT: _noalias
func.func @twin(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

module @inner {
  func.func private @twin(%x: memref<16xf32>, %out: memref<16xf32>) {
    return
  }
  func.func @main() {
    %x = memref.alloc() : memref<16xf32>
    %out = memref.alloc() : memref<16xf32>
    call @twin(%x, %out) : (memref<16xf32>, memref<16xf32>) -> ()
    return
  }
}
