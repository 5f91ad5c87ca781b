// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null

// Tests that the lowering stops ordering streams after an allocation only
// once no op after uses the buffer, through a view or directly: the copy
// back below runs on a stream made after the one that copied into the
// buffer, which its making ordered after the allocation. So the copy names
// that stream's tail alone, with no join on the allocation's token. Were
// the buffer taken as unused after its last direct use (the view), the
// streams made after would forget the allocation, and the copy would join
// its token.

// CHECK-LABEL: func.func @used_through_a_view_later
// CHECK:         %[[MEM:.+]], %[[ALLOC:.+]] = gpu.alloc async
// CHECK:         %[[J:.+]] = gpu.wait async [%[[ALLOC]], %[[ALLOC]]]
// CHECK:         %[[IN:.+]] = gpu.memcpy async [%[[J]]]
// CHECK:         %[[J2:.+]] = gpu.wait async [%[[IN]], %[[IN]]]
// CHECK:         %[[IN2:.+]] = gpu.memcpy async [%[[J2]]]
// CHECK-NOT:     gpu.wait async
// CHECK:         %[[OUT:.+]] = gpu.memcpy async [%[[IN2]]] %arg2
// CHECK-NEXT:    gpu.wait [%[[OUT]]]
func.func @used_through_a_view_later(%h: memref<16xf32> {llvm.noalias},
                                     %h2: memref<16xf32> {llvm.noalias},
                                     %out: memref<16xf32> {llvm.noalias},
                                     %c: memref<16xf32> {llvm.noalias}) {
  %a = vyre.alloc : memref<32xf32>
  %v = memref.subview %a[16] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1], offset: 16>>
  %t = vyre.copy_h2d_async %h to %v on stream 1 : memref<16xf32> to memref<16xf32, strided<[1], offset: 16>>
  %t2 = vyre.copy_h2d_async %h2 to %c on stream 2 after [%t] : memref<16xf32> to memref<16xf32>
  %t3 = vyre.copy_d2h_async %v to %out on stream 2 : memref<16xf32, strided<[1], offset: 16>> to memref<16xf32>
  vyre.sync %t3
  vyre.wait %t2
  return
}

// -----

// The same with the buffer used directly, and freed at the end.
// CHECK-LABEL: func.func @used_directly_later
// CHECK:         %[[MEM:.+]], %[[ALLOC:.+]] = gpu.alloc async
// CHECK:         %[[J:.+]] = gpu.wait async [%[[ALLOC]], %[[ALLOC]]]
// CHECK:         %[[IN:.+]] = gpu.memcpy async [%[[J]]] %[[MEM]]
// CHECK:         %[[J2:.+]] = gpu.wait async [%[[IN]], %[[IN]]]
// CHECK:         %[[IN2:.+]] = gpu.memcpy async [%[[J2]]]
// CHECK-NEXT:    %[[OUT:.+]] = gpu.memcpy async [%[[IN2]]] %arg2, %[[MEM]]
// CHECK-NEXT:    gpu.wait [%[[OUT]]]
// CHECK:         gpu.dealloc async
func.func @used_directly_later(%h: memref<16xf32> {llvm.noalias},
                               %h2: memref<16xf32> {llvm.noalias},
                               %out: memref<16xf32> {llvm.noalias},
                               %c: memref<16xf32> {llvm.noalias}) {
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  %t2 = vyre.copy_h2d_async %h2 to %c on stream 2 after [%t] : memref<16xf32> to memref<16xf32>
  %t3 = vyre.copy_d2h_async %a to %out on stream 2 : memref<16xf32> to memref<16xf32>
  vyre.sync %t3
  vyre.wait %t2
  vyre.dealloc %a : memref<16xf32>
  return
}
