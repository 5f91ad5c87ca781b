// The joins below are those of loop bodies that make their own streams
// (lend-streams=false): a body that continues streams made before the loop
// waits for their tokens by events instead (lent-streams.mlir). The referee
// checks both.
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=lend-streams=false | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=lend-streams=false --canonicalize --cse | FileCheck %s --check-prefix=CANON
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu=lend-streams=false --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null

// Tests that a join names a dependency twice only where canonicalization
// could leave it with one. Upstream's canonicalize erases a copy whose
// destination an allocation made and nothing but frees uses otherwise; on a
// stream of its own, such a copy's token then stands for an empty stream,
// which joins drop. So the kernel that stays whatever happens is named twice,
// the copy once. A copy into an argument, or into a buffer a launch uses,
// stays: its join names each dependency once (also in @side_streams).
// The joins here are new streams because a `vyre.record` names the main
// stream right after each wait (joins-in-place.mlir has the waits that the
// next op's stream makes itself).
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @join_operands
func.func @join_operands(%h: memref<16xf32> {llvm.noalias},
                         %b: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %d = vyre.alloc : memref<16xf32>
  // The host waits for this copy, and so for the allocations: the next copy
  // starts a stream without dependencies.
  // CHECK: gpu.wait [
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: %[[S:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[T:.+]] = gpu.memcpy async [%[[S]]]
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK: %[[M:.+]] = gpu.launch_func async
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  // CHECK-NEXT: gpu.wait async [%[[M]], %[[M]], %[[T]]]
  vyre.wait %t
  %r = vyre.record
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  return
}
// After canonicalize the copy is gone, and the join still has two operands.
// CANON-LABEL: func.func @join_operands
// CANON:         gpu.wait [
// CANON-NEXT:    %[[S:.+]] = gpu.wait async{{$}}
// CANON-NEXT:    %[[M:.+]] = gpu.launch_func async [%[[S]]]
// CANON-NEXT:    gpu.wait async [%[[M]], %[[M]]]

// CHECK-LABEL: func.func @join_operands_that_stay
func.func @join_operands_that_stay(%h: memref<16xf32> {llvm.noalias},
                                   %a: memref<16xf32> {llvm.noalias},
                                   %b: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %d = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  %e = vyre.alloc : memref<16xf32>
  // CHECK: gpu.wait [
  // CHECK: gpu.wait [
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  // CHECK-NEXT: %[[S:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[T:.+]] = gpu.memcpy async [%[[S]]]
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  // CHECK: %[[M:.+]] = gpu.launch_func async
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  // CHECK-NEXT: %[[J:.+]] = gpu.wait async [%[[M]], %[[T]]]
  vyre.wait %t
  %r = vyre.record
  // CHECK-NEXT: %[[L:.+]] = gpu.launch_func async [%[[J]]]
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // CHECK: %[[S2:.+]] = gpu.wait async{{$}}
  // CHECK-NEXT: %[[U:.+]] = gpu.memcpy async [%[[S2]]]
  %u = vyre.copy_h2d_async %h to %e on stream 2 : memref<16xf32> to memref<16xf32>
  // CHECK: %[[N:.+]] = gpu.launch_func async
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<16xf32>)
  // CHECK-NEXT: gpu.wait async [%[[N]], %[[U]]]
  vyre.wait %u
  %r2 = vyre.record
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%e : memref<16xf32>)
  return
}
// CANON-LABEL: func.func @join_operands_that_stay
// CANON-COUNT-2: gpu.wait async [%{{[0-9]+}}, %{{[0-9]+}}]{{$}}

// -----

// Tests that a copy into a loop's iter_arg counts as one canonicalize may
// erase: the iter_arg comes back unchanged, so canonicalize replaces it with
// the allocation, which nothing but the copy uses. The join names the kernel
// twice and, the copy gone, keeps two operands (the third RUN line's referee
// finds a stream destroyed twice otherwise).
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @copy_into_iter_arg
// CHECK:         scf.for
// CHECK:           %[[M:.+]] = gpu.launch_func async
// CHECK:           %[[T:.+]] = gpu.memcpy async
// CHECK:           gpu.wait async [%[[M]], %[[M]], %[[T]]]
// CANON-LABEL: func.func @copy_into_iter_arg
// CANON-NOT:     gpu.memcpy
// CANON:         %[[M:.+]] = gpu.launch_func async
// CANON:         gpu.wait async [%[[M]], %[[M]]]
func.func @copy_into_iter_arg(%h: memref<16xf32>, %b: memref<16xf32>,
                              %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a) -> memref<16xf32> {
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    %t = vyre.copy_h2d_async %h to %x on stream 1 : memref<16xf32> to memref<16xf32>
    vyre.wait %t
    %r = vyre.record
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
    scf.yield %x : memref<16xf32>
  }
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that a copy into a cast the input holds counts as one canonicalize
// may erase: the identity cast folds away, and the copy goes into the
// allocation itself, which nothing else but the free uses. (Only the alias
// the lowering builds for an offset view, in contiguous-views.mlir, stays.)
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @copy_into_a_cast
// CHECK:         %[[M:.+]] = gpu.launch_func async
// CHECK:         %[[T:.+]] = gpu.memcpy async
// CHECK-NEXT:    gpu.wait async [%[[M]], %[[M]], %[[T]]]
// CANON-LABEL: func.func @copy_into_a_cast
// CANON-NOT:     gpu.memcpy
// CANON:         %[[M:.+]] = gpu.launch_func async
// CANON-NEXT:    gpu.wait async [%[[M]], %[[M]]]
func.func @copy_into_a_cast(%h: memref<16xf32>, %b: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %t = builtin.unrealized_conversion_cast %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  %tok = vyre.copy_h2d_async %h to %t on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.wait %tok
  %r = vyre.record
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.dealloc %a : memref<16xf32>
  return
}
