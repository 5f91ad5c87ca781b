// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null

// Tests that a copy of a row of a host array (a contiguous view with an
// offset) is lowered: upstream copies from a descriptor's aligned pointer and
// ignores its offset, so the copy gets an identity-layout alias whose pointer
// is the row's first element, built in the LLVM dialect. The copy itself
// stays a gpu.memcpy async on its stream.
// CHECK-LABEL: func.func @row_in
// CHECK-SAME:    (%[[H:[^:]*]]: memref<8x64xf32>, %[[I:[^:]*]]: index)
// CHECK:         %[[DEV:.*]], %{{.*}} = gpu.alloc async
// CHECK:         %[[ROW:.*]] = memref.subview %[[H]][%[[I]], 0] [1, 64] [1, 1]
// CHECK:         %[[ALIGNED:.*]] = memref.extract_aligned_pointer_as_index %[[ROW]]
// CHECK:         %{{.*}}, %[[OFFSET:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[ROW]]
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:         %[[BYTES:.*]] = arith.muli %[[OFFSET]], %[[FOUR]]
// CHECK:         %[[ADDRESS:.*]] = arith.addi %[[ALIGNED]], %[[BYTES]]
// CHECK:         %[[ADDRESS64:.*]] = arith.index_cast %[[ADDRESS]] : index to i64
// CHECK:         %[[POINTER:.*]] = llvm.inttoptr %[[ADDRESS64]] : i64 to !llvm.ptr
// CHECK:         llvm.insertvalue %[[POINTER]], %{{.*}}[0]
// CHECK:         llvm.insertvalue %[[POINTER]], %{{.*}}[1]
// CHECK:         llvm.insertvalue %{{.*}}, %{{.*}}[2]
// CHECK:         llvm.insertvalue %{{.*}}, %{{.*}}[3, 0]
// CHECK:         %[[DESCRIPTOR:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[4, 0]
// CHECK:         %[[ALIAS:.*]] = builtin.unrealized_conversion_cast %[[DESCRIPTOR]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<64xf32>{{$}}
// CHECK:         gpu.memcpy async [%{{.*}}] %[[DEV]], %[[ALIAS]] : memref<64xf32>, memref<64xf32>
func.func @row_in(%h: memref<8x64xf32>, %i: index) {
  %d = vyre.alloc : memref<64xf32>
  %row = memref.subview %h[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
  vyre.copy_h2d %row to %d : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
  vyre.dealloc %d : memref<64xf32>
  return
}

// -----

// Tests that a copy back into a block of rows gets a two-dimensional alias
// (sizes 2x64, strides 64 and 1), and that an element of 8 bytes moves the
// offset 8 bytes per element.
// CHECK-LABEL: func.func @rows_out
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK:         arith.muli %{{.*}}, %[[EIGHT]]
// CHECK:         %[[C64:.*]] = llvm.mlir.constant(64 : i64)
// CHECK:         llvm.insertvalue %[[C64]], %{{.*}}[3, 1]
// CHECK:         %[[C1:.*]] = llvm.mlir.constant(1 : i64)
// CHECK:         llvm.insertvalue %[[C1]], %{{.*}}[4, 1]
// CHECK:         %[[C2:.*]] = llvm.mlir.constant(2 : i64)
// CHECK:         llvm.insertvalue %[[C2]], %{{.*}}[3, 0]
// CHECK:         llvm.insertvalue %[[C64]], %{{.*}}[4, 0]
// CHECK:         %[[ALIAS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<2x64xf64>
// CHECK:         gpu.memcpy async [%{{.*}}] %[[ALIAS]], %{{.*}} : memref<2x64xf64>, memref<2x64xf64>
func.func @rows_out(%h: memref<8x64xf64>, %i: index) {
  %d = vyre.alloc : memref<2x64xf64>
  %rows = memref.subview %h[%i, 0] [2, 64] [1, 1] : memref<8x64xf64> to memref<2x64xf64, strided<[64, 1], offset: ?>>
  vyre.copy_d2h %d to %rows : memref<2x64xf64> to memref<2x64xf64, strided<[64, 1], offset: ?>>
  vyre.dealloc %d : memref<2x64xf64>
  return
}

// -----

// Tests that an async copy of a row keeps its side stream and its token, and
// that a buffer with an identity layout is copied as it is.
// CHECK-LABEL: func.func @async_row
// CHECK:         %[[MAIN_STREAM:.*]] = builtin.unrealized_conversion_cast %[[MAIN:.*]] : !gpu.async.token to !llvm.ptr
// CHECK:         %[[ALIAS:.*]] = builtin.unrealized_conversion_cast {{.*}} to memref<64xf32>
// CHECK:         %[[COPY:.*]] = gpu.memcpy async [%[[SIDE:.*]]] %{{.*}}, %[[ALIAS]]
// CHECK-NEXT:    %[[COPY_STREAM:.*]] = builtin.unrealized_conversion_cast %[[COPY]]
// CHECK-NEXT:    %[[EVENT:.*]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[EVENT]], %[[COPY_STREAM]])
// CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[MAIN_STREAM]], %[[EVENT]])
// CHECK-NEXT:    llvm.call @mgpuEventDestroy(%[[EVENT]])
// CHECK-NEXT:    gpu.launch_func async [%[[MAIN]]]
// CHECK-NOT:     unrealized_conversion_cast {{.*}} to memref
// CHECK:         gpu.memcpy async [%{{.*}}] %{{.*}}, %arg2 : memref<64xf32>, memref<64xf32>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%x: memref<64xf32>) kernel {
      gpu.return
    }
  }
  func.func @async_row(%h: memref<8x64xf32>, %i: index, %whole: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %d = vyre.alloc : memref<64xf32>
    %e = vyre.alloc : memref<64xf32>
    %row = memref.subview %h[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    %t = vyre.copy_h2d_async %row to %d on stream 1 : memref<64xf32, strided<[1], offset: ?>> to memref<64xf32>
    vyre.wait %t
    vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<64xf32>) access [read]
    vyre.copy_h2d %whole to %e : memref<64xf32> to memref<64xf32>
    vyre.dealloc %d : memref<64xf32>
    vyre.dealloc %e : memref<64xf32>
    return
  }
}

// -----

// Tests that a single element of a row (a 0-d view with an offset) gets a
// 0-d alias: a descriptor without sizes and strides, as upstream's.
// CHECK-LABEL: func.func @element
// CHECK:         builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64)> to memref<f32>
// CHECK:         gpu.memcpy async
func.func @element(%h: memref<8x64xf32>, %i: index, %j: index) {
  %d = vyre.alloc : memref<f32>
  %e = memref.subview %h[%i, %j] [1, 1] [1, 1] : memref<8x64xf32> to memref<f32, strided<[], offset: ?>>
  vyre.copy_h2d %e to %d : memref<f32, strided<[], offset: ?>> to memref<f32>
  vyre.dealloc %d : memref<f32>
  return
}
