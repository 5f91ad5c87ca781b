// RUN: vyre-opt %s --split-input-file --vyre-version-aliasing --remarks-filter=version-aliasing --verify-diagnostics | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-version-aliasing=max-arguments=1 --remarks-filter=version-aliasing 2>&1 | FileCheck %s --check-prefix=MAX

// Tests --vyre-version-aliasing: a function with vyre ops whose memref
// arguments may alias becomes a dispatcher that checks them disjoint at run
// time and calls a copy with them llvm.noalias, or the function as written.
// Each case sits next to the one where it must not fire.

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// Two unmarked arguments: a byte range per argument, one comparison, two
// copies.
// CHECK-LABEL: func.func @batches
// CHECK-SAME: (%[[X:.+]]: memref<16xf32>, %[[OUT:.+]]: memref<16xf32>)
// CHECK-SAME: attributes {vyre.versions = {arguments = array<i64: 0, 1>, disjoint = @batches_disjoint, may_alias = @batches_may_alias}}
// CHECK: memref.extract_strided_metadata %[[X]]
// CHECK: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: memref.extract_strided_metadata %[[OUT]]
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: arith.cmpi ule
// CHECK: arith.cmpi ule
// CHECK-NOT: func.func
// CHECK: scf.if %{{.+}} {
// CHECK-NEXT: call @batches_disjoint(%[[X]], %[[OUT]])
// CHECK-NEXT: } else {
// CHECK-NEXT: call @batches_may_alias(%[[X]], %[[OUT]])
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK: func.func private @batches_disjoint
// CHECK-SAME: (%{{.*}}: memref<16xf32> {llvm.noalias}, %{{.*}}: memref<16xf32> {llvm.noalias})
// CHECK: vyre.copy_h2d
// CHECK: func.func private @batches_may_alias
// CHECK-SAME: (%{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>)
// CHECK: vyre.copy_h2d
// MAX: remark: [Missed] NotVersioned | Category:version-aliasing | Remark="arguments 0, 1 of @batches may alias and are not checked at run time: 2 arguments are more than max-arguments=1"
func.func @batches(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// Must not fire: one argument is marked already, so only one may alias.
// CHECK-LABEL: func.func @one_unmarked
// CHECK-NOT: scf.if
// CHECK-NOT: _disjoint
func.func @one_unmarked(%x: memref<16xf32> {llvm.noalias}, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// Must not fire: a function without vyre ops, and an external one.
// CHECK-LABEL: func.func @host_only
// CHECK-NEXT: memref.copy
// CHECK-NEXT: return
func.func @host_only(%x: memref<16xf32>, %y: memref<16xf32>) {
  memref.copy %x, %y : memref<16xf32> to memref<16xf32>
  return
}
func.func private @external(%x: memref<16xf32>, %y: memref<16xf32>)

// -----

gpu.module @k {
  gpu.func @step(%x: memref<?x?xf64>) kernel {
    gpu.return
  }
}

// Dynamic shapes and a strided view: the range spans every dimension's
// extent (negative strides included); results go through the branch.
// CHECK-LABEL: func.func @views
// CHECK-SAME: -> index
// CHECK: %[[BASE:.+]], %[[OFF:.+]], %[[SIZES:.+]]:2, %[[STRIDES:.+]]:2 = memref.extract_strided_metadata
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: arith.cmpi eq
// CHECK: %[[R:.+]] = scf.if %{{.+}} -> (index) {
// CHECK-NEXT: %[[D:.+]] = func.call @views_disjoint(
// CHECK-NEXT: scf.yield %[[D]] : index
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[M:.+]] = func.call @views_may_alias(
// CHECK-NEXT: scf.yield %[[M]] : index
// CHECK: return %[[R]] : index
// CHECK: func.func private @views_disjoint(%{{.*}}: memref<?x?xf64, strided<[?, 1], offset: ?>> {llvm.noalias}, %{{.*}}: memref<?x?xf64> {llvm.noalias}, %{{.*}}: index) -> index
func.func @views(%x: memref<?x?xf64, strided<[?, 1], offset: ?>>, %out: memref<?x?xf64>, %n: index) -> index {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc(%n, %n) : memref<?x?xf64>
  vyre.copy_h2d %x to %a : memref<?x?xf64, strided<[?, 1], offset: ?>> to memref<?x?xf64>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<?x?xf64>)
  vyre.copy_d2h %a to %out : memref<?x?xf64> to memref<?x?xf64>
  return %n : index
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

memref.global "private" @table : memref<16xf32> = dense<0.0>

// Must not fire: the function names a global, which an argument may be.
// CHECK-LABEL: func.func @names_global
// CHECK-NOT: scf.if
// expected-remark @below {{arguments 0, 1 of @names_global may alias and are not checked at run time: @names_global or a function it calls names the global @table, which an argument may be}}
func.func @names_global(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %t = memref.get_global @table : memref<16xf32>
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %t to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// Must not fire: the function calls outside the module, which may reach any
// memory.
// CHECK-LABEL: func.func @calls_out
// CHECK-NOT: scf.if
// expected-remark @below {{arguments 0, 1 of @calls_out may alias and are not checked at run time: @calls_out may reach memory other than its arguments and allocations ('func.call')}}
func.func @calls_out(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  call @decode(%out) : (memref<16xf32>) -> ()
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}
func.func private @decode(memref<16xf32>)

// Must not fire: an unranked argument has no extent to check.
// CHECK-LABEL: func.func @unranked
// CHECK-NOT: scf.if
// expected-remark @below {{arguments 0, 1 of @unranked may alias and are not checked at run time: argument 0 is an unranked memref}}
func.func @unranked(%u: memref<*xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@step blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// Must not fire: a layout that is not strided has no offset, sizes and
// strides for the check.
// CHECK-LABEL: func.func @not_strided
// CHECK-NOT: scf.if
// expected-remark @below {{arguments 0, 1 of @not_strided may alias and are not checked at run time: argument 0 has a layout that is not strided}}
func.func @not_strided(%x: memref<16xf32, affine_map<(d0) -> (d0 mod 4)>>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %v = memref.load %x[%c1] : memref<16xf32, affine_map<(d0) -> (d0 mod 4)>>
  memref.store %v, %out[%c1] : memref<16xf32>
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// Must not fire: the lowered program spaces an i24 4 bytes apart, and packs
// a vector of i1, so the byte ranges the data layout gives would miss bytes.
// CHECK-LABEL: func.func @odd_width
// CHECK-NOT: scf.if
// expected-remark @below {{arguments 0, 1 of @odd_width may alias and are not checked at run time: argument 0's elements (i24) may not lie their data-layout size apart in the lowered program}}
func.func @odd_width(%x: memref<4xi24>, %y: memref<4xi8>) {
  %a = vyre.alloc : memref<4xi24>
  vyre.copy_h2d %x to %a : memref<4xi24> to memref<4xi24>
  %b = vyre.alloc : memref<4xi8>
  vyre.copy_d2h %b to %y : memref<4xi8> to memref<4xi8>
  return
}
// CHECK-LABEL: func.func @packed_bits
// CHECK-NOT: scf.if
// expected-remark @below {{arguments 0, 1 of @packed_bits may alias and are not checked at run time: argument 0's elements (vector<8xi1>) may not lie their data-layout size apart in the lowered program}}
func.func @packed_bits(%x: memref<4xvector<8xi1>>, %y: memref<4xi8>) {
  %a = vyre.alloc : memref<4xvector<8xi1>>
  vyre.copy_h2d %x to %a : memref<4xvector<8xi1>> to memref<4xvector<8xi1>>
  %b = vyre.alloc : memref<4xi8>
  vyre.copy_d2h %b to %y : memref<4xi8> to memref<4xi8>
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<4xf32>) kernel {
    gpu.return
  }
}

// Must not fire: through a view from the buffer's base, a function given
// rows 0 to 3 writes rows 4 to 7, which its other argument may be: the
// check, which compares the views, would call the two disjoint.
// CHECK-LABEL: func.func @reaches_beyond
// CHECK-NOT: scf.if
// expected-remark @below {{arguments 0, 1 of @reaches_beyond may alias and are not checked at run time: 'memref.reinterpret_cast' in the module views memory from a buffer's base, through which code given one argument may reach another's bytes}}
func.func @reaches_beyond(%out: memref<4xf32, strided<[1], offset: ?>>, %in: memref<4xf32, strided<[1], offset: ?>>) {
  %wide = memref.reinterpret_cast %out to offset: [0], sizes: [8], strides: [1] : memref<4xf32, strided<[1], offset: ?>> to memref<8xf32, strided<[1]>>
  %hi = memref.subview %wide[4] [4] [1] : memref<8xf32, strided<[1]>> to memref<4xf32, strided<[1], offset: 4>>
  %d = vyre.alloc : memref<4xf32>
  vyre.copy_d2h %d to %hi : memref<4xf32> to memref<4xf32, strided<[1], offset: 4>>
  vyre.copy_h2d %in to %d : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @step(%x: memref<16xf32>) kernel {
    gpu.return
  }
}

// A synchronous gpu op without tokens (registering host memory) is no
// explicit asynchronous code: the function is versioned, and both copies
// register.
// CHECK-LABEL: func.func @registers
// CHECK: scf.if
// CHECK-LABEL: func.func private @registers_disjoint
// CHECK: gpu.host_register
// CHECK-LABEL: func.func private @registers_may_alias
// CHECK: gpu.host_register
func.func @registers(%x: memref<16xf32>, %out: memref<16xf32>) {
  %u = memref.cast %x : memref<16xf32> to memref<*xf32>
  gpu.host_register %u : memref<*xf32>
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}

// Must not fire: code written with tokens is left as its author wrote it.
// CHECK-LABEL: func.func @with_tokens
// CHECK-NOT: scf.if
// expected-remark @below {{arguments 0, 1 of @with_tokens may alias and are not checked at run time: it holds gpu host ops written with tokens, left as written}}
func.func @with_tokens(%x: memref<16xf32>, %out: memref<16xf32>) {
  %t = gpu.wait async
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %x to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  gpu.wait [%t]
  return
}

// Must not fire: the only call passes one buffer for both arguments, so the
// copy with them disjoint would never run.
// CHECK-LABEL: func.func private @same_buffer
// CHECK-NOT: scf.if
// expected-remark @below {{arguments 0, 1 of @same_buffer may alias and are not checked at run time: every call passes one buffer for arguments 0 and 1, so a copy with them disjoint would never run}}
func.func private @same_buffer(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %in to %a : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  return
}
func.func @calls_same_buffer() {
  %t = memref.alloc() : memref<16xf32>
  %c = memref.cast %t : memref<16xf32> to memref<16xf32>
  func.call @same_buffer(%t, %c) : (memref<16xf32>, memref<16xf32>) -> ()
  return
}
