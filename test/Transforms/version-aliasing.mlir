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
