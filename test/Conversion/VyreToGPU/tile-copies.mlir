// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// The whole default pipeline, both referees, moved copies or not:
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true cost-model=false" -o /dev/null
// Values: the lowered programs compute what the input computes, under three
// interleavings of their streams, for 3 tiles and for none.
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=3" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="cost-model=false" | vyre-opt --split-input-file --test-vyre-value-digest="index=3 interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lazy
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="cost-model=false" | vyre-opt --split-input-file --test-vyre-value-digest="index=3 interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.eager
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | vyre-opt --split-input-file --test-vyre-value-digest="index=3 interleaving=random seed=5" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.random
// RUN: cat %t.input %t.lazy | FileCheck %s --check-prefix=VALUES
// RUN: cat %t.input %t.eager | FileCheck %s --check-prefix=VALUES
// RUN: cat %t.input %t.random | FileCheck %s --check-prefix=VALUES
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input0
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="cost-model=false" | vyre-opt --split-input-file --test-vyre-value-digest="index=0 interleaving=random seed=3" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.random0
// RUN: cat %t.input0 %t.random0 | FileCheck %s --check-prefix=VALUES
// VALUES: remark: digest [[D1:0x[0-9a-f]+]]
// VALUES: remark: digest [[D2:0x[0-9a-f]+]]
// VALUES: remark: digest [[D3:0x[0-9a-f]+]]
// VALUES: remark: digest [[D1]]
// VALUES: remark: digest [[D2]]
// VALUES: remark: digest [[D3]]

// Tests that an async copy of a tile of a host array (4 rows of 32
// elements, 64 elements apart: not one contiguous range) becomes one call of
// vyreMemcpy2DAsync on its side stream: the first elements' addresses,
// pitches of 128 bytes on the device and 256 on the host, rows of 128 bytes,
// 4 rows. The kernel that waits for it waits for an event recorded after the
// call, on the stream the call returns; the copy back on the same side
// stream continues that stream.
// CHECK-LABEL: func.func @tile_in
// CHECK-SAME:    (%[[H:[^:]*]]: memref<4x64xf32>
// CHECK:         %[[DEV:.*]], %{{.*}} = gpu.alloc async
// CHECK:         %[[TILE:.*]] = memref.subview %[[H]][0, %{{.*}}] [4, 32] [1, 1]
// CHECK:         memref.extract_aligned_pointer_as_index %[[DEV]]
// CHECK:         %[[DST:.*]] = llvm.inttoptr
// CHECK:         %[[DST_PITCH:.*]] = arith.constant 128 : i64
// CHECK:         memref.extract_aligned_pointer_as_index %[[TILE]]
// CHECK:         %[[SRC:.*]] = llvm.inttoptr
// CHECK:         %[[SRC_PITCH:.*]] = arith.constant 256 : i64
// CHECK:         %[[ROWS:.*]] = arith.constant 4 : i64
// CHECK:         %[[ROW:.*]] = arith.constant 128 : i64
// CHECK:         %[[AFTER:.*]] = llvm.call @vyreMemcpy2DAsync(%[[DST]], %[[DST_PITCH]], %[[SRC]], %[[SRC_PITCH]], %[[ROW]], %[[ROWS]], %{{.*}}) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
// CHECK-NEXT:    builtin.unrealized_conversion_cast %[[AFTER]] : !llvm.ptr to !gpu.async.token
// CHECK-NEXT:    %[[EVENT:.*]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[EVENT]], %[[AFTER]])
// CHECK:         llvm.call @mgpuStreamWaitEvent(%{{.*}}, %[[EVENT]])
// CHECK:         gpu.launch_func async [%{{.*}}] @k::@scale
// CHECK:         llvm.call @vyreMemcpy2DAsync(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[AFTER]])
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<4x32xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i, %i] : memref<4x32xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i, %i] : memref<4x32xf32>
      gpu.return
    }
  }
  func.func @tile_in(%h: memref<4x64xf32> {vyre.pinned, llvm.noalias}, %out: memref<4x64xf32> {vyre.pinned, llvm.noalias}, %j: index) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %column = arith.muli %j, %c32 : index
    %d = vyre.alloc : memref<4x32xf32>
    %tile = memref.subview %h[0, %column] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: ?>>
    %in = vyre.copy_h2d_async %tile to %d on stream 1 : memref<4x32xf32, strided<[64, 1], offset: ?>> to memref<4x32xf32>
    vyre.wait %in
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4x32xf32>) access [readwrite]
    %done = vyre.record
    %back = memref.subview %out[0, %column] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: ?>>
    %out_done = vyre.copy_d2h_async %d to %back on stream 1 after [%done] : memref<4x32xf32> to memref<4x32xf32, strided<[64, 1], offset: ?>>
    vyre.sync %out_done
    vyre.dealloc %d : memref<4x32xf32>
    return
  }
}

// -----

// Tests a loop over the column tiles of a host array: each tile in, a
// kernel that rewrites it, the tile back into the same columns of another
// array. With copies moved (the loop pipelined, the tiles rotated), each tile
// copy is a call on a side stream.
// CHECK-LABEL: func.func @tile_loop
// CHECK:         scf.for
// CHECK:         llvm.call @vyreMemcpy2DAsync
// CHECK:         gpu.launch_func
// CHECK:         llvm.call @vyreMemcpy2DAsync
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<4x32xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i, %i] : memref<4x32xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i, %i] : memref<4x32xf32>
      gpu.return
    }
  }
  func.func @tile_loop(%h: memref<4x128xf32> {vyre.pinned, llvm.noalias}, %out: memref<4x128xf32> {vyre.pinned, llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %d = vyre.alloc : memref<4x32xf32>
    scf.for %j = %c0 to %n step %c1 {
      %column = arith.muli %j, %c32 : index
      %tile = memref.subview %h[0, %column] [4, 32] [1, 1] : memref<4x128xf32> to memref<4x32xf32, strided<[128, 1], offset: ?>>
      %back = memref.subview %out[0, %column] [4, 32] [1, 1] : memref<4x128xf32> to memref<4x32xf32, strided<[128, 1], offset: ?>>
      vyre.copy_h2d %tile to %d : memref<4x32xf32, strided<[128, 1], offset: ?>> to memref<4x32xf32>
      vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4x32xf32>) access [readwrite]
      vyre.copy_d2h %d to %back : memref<4x32xf32> to memref<4x32xf32, strided<[128, 1], offset: ?>>
    }
    vyre.dealloc %d : memref<4x32xf32>
    return
  }
}

// -----

// Tests a copy back into a tile of a host array whose rows are a dynamic
// number of elements apart: the pitch is read from the view's strides at
// run time (8 bytes per element), and the device side's pitch is its row.
// CHECK-LABEL: func.func @tile_out
// CHECK:         %[[BYTES:.*]] = arith.muli %{{.*}}#0, %{{.*}} : index
// CHECK-NEXT:    %[[PITCH:.*]] = arith.index_cast %[[BYTES]] : index to i64
// CHECK:         llvm.call @vyreMemcpy2DAsync(%{{.*}}, %c128_i64, %{{.*}}, %[[PITCH]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:         %[[BACK_BYTES:.*]] = arith.muli %{{.*}}#0, %{{.*}} : index
// CHECK-NEXT:    %[[BACK_PITCH:.*]] = arith.index_cast %[[BACK_BYTES]] : index to i64
// CHECK:         llvm.call @vyreMemcpy2DAsync(%{{.*}}, %[[BACK_PITCH]], %{{.*}}, %c128_i64{{(_[0-9]+)?}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @tile_out(%h: memref<4x?xf64> {vyre.pinned, llvm.noalias}, %i: index) {
  %d = vyre.alloc : memref<2x16xf64>
  %tile = memref.subview %h[%i, 0] [2, 16] [1, 1] : memref<4x?xf64> to memref<2x16xf64, strided<[?, 1], offset: ?>>
  vyre.copy_h2d %tile to %d : memref<2x16xf64, strided<[?, 1], offset: ?>> to memref<2x16xf64>
  vyre.copy_d2h %d to %tile : memref<2x16xf64> to memref<2x16xf64, strided<[?, 1], offset: ?>>
  vyre.dealloc %d : memref<2x16xf64>
  return
}

// -----

// Tests that a column of a host array (a strided 1-D view) is a tile of 16
// rows of one element, 64 bytes apart.
// CHECK-LABEL: func.func @column
// CHECK:         llvm.call @vyreMemcpy2DAsync(%{{.*}}, %c4_i64{{(_[0-9]+)?}}, %{{.*}}, %c64_i64{{(_[0-9]+)?}}, %c4_i64{{(_[0-9]+)?}}, %c16_i64{{(_[0-9]+)?}}, %{{.*}})
// CHECK:         llvm.call @vyreMemcpy2DAsync(%{{.*}}, %c64_i64{{(_[0-9]+)?}}, %{{.*}}, %c4_i64{{(_[0-9]+)?}}, %c4_i64{{(_[0-9]+)?}}, %c16_i64{{(_[0-9]+)?}}, %{{.*}})
func.func @column(%h: memref<16x16xf32> {vyre.pinned, llvm.noalias}, %j: index) {
  %d = vyre.alloc : memref<16xf32>
  %column = memref.subview %h[0, %j] [16, 1] [1, 1] : memref<16x16xf32> to memref<16xf32, strided<[16], offset: ?>>
  vyre.copy_h2d %column to %d : memref<16xf32, strided<[16], offset: ?>> to memref<16xf32>
  vyre.copy_d2h %d to %column : memref<16xf32> to memref<16xf32, strided<[16], offset: ?>>
  vyre.dealloc %d : memref<16xf32>
  return
}

// -----

// Tests that dimensions of size 1 do not count: a 1x4x32 view of rows 64
// elements apart is a tile of 4 rows. A copy between contiguous buffers
// stays a gpu.memcpy (no call).
// CHECK-LABEL: func.func @unit_dims
// CHECK:         llvm.call @vyreMemcpy2DAsync(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT:     vyreMemcpy2DAsync
// CHECK:         gpu.memcpy async
// CHECK-NOT:     vyreMemcpy2DAsync
// CHECK:         return
func.func @unit_dims(%h: memref<4x4x64xf32> {vyre.pinned, llvm.noalias}, %whole: memref<1x4x32xf32> {vyre.pinned, llvm.noalias}, %i: index) {
  %d = vyre.alloc : memref<1x4x32xf32>
  %tile = memref.subview %h[%i, 0, 32] [1, 4, 32] [1, 1, 1] : memref<4x4x64xf32> to memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>
  vyre.copy_h2d %tile to %d : memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>> to memref<1x4x32xf32>
  vyre.copy_d2h %d to %whole : memref<1x4x32xf32> to memref<1x4x32xf32>
  vyre.dealloc %d : memref<1x4x32xf32>
  return
}
