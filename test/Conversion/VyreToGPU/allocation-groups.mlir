// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// The whole default pipeline, both referees, then upstream's lowering to
// LLVM (memref.view included) and the runtime calls' balance:
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true" | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null
// What the lowered program computes is what the input computes:
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="index=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.input0
// RUN: vyre-opt %s --split-input-file --vyre-to-gpu-pipeline | vyre-opt --split-input-file --test-vyre-value-digest="index=0 interleaving=random seed=7" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lowered0
// RUN: cat %t.input0 %t.lowered0 | FileCheck %s --check-prefix=VALUES

// Buffers freed one after another (a constant between the frees changes
// nothing) in the block that allocates them are one allocation, made where
// the first of them was: a gpu.alloc of bytes, each buffer a memref.view of
// it at its offset (each aligned to 256 bytes, as cuMemAlloc aligns a buffer
// of its own), freed once, where the last of them was. Scheduled, the copy into one runs
// beside the kernel on the other (their bytes do not meet), which the
// gpu-level referee accepts (verify=true below).
// CHECK-LABEL: func.func @together
// CHECK:         %[[BYTES:[^,]+]], %{{.+}} = gpu.alloc async [%{{.+}}] () : memref<320xi8>
// CHECK-NOT:     gpu.alloc
// CHECK:         %[[X:.+]] = memref.view %[[BYTES]][%{{.+}}][] : memref<320xi8> to memref<16xf32>
// CHECK:         %[[Y:.+]] = memref.view %[[BYTES]][%{{.+}}][] : memref<320xi8> to memref<4x4xf32>
// CHECK:         gpu.memcpy async [%{{.+}}] %[[X]], %arg0
// CHECK:         gpu.launch_func async {{.*}} args(%[[Y]] : memref<4x4xf32>)
// CHECK:         gpu.dealloc async [%{{.+}}] %[[BYTES]] : memref<320xi8>
// CHECK-NOT:     gpu.dealloc
// CHECK:         return
// VALUES: remark: digest [[A:0x[0-9a-f]+]]
// VALUES: remark: digest [[A]]
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<4x4xf32>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %z = arith.constant 2.0 : f32
      memref.store %z, %x[%c0, %i] : memref<4x4xf32>
      gpu.return
    }
  }
  func.func @together(%h: memref<16xf32> {vyre.pinned, llvm.noalias}, %o: memref<4x4xf32> {vyre.pinned, llvm.noalias}) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = vyre.alloc : memref<16xf32>
    vyre.copy_h2d %h to %x : memref<16xf32> to memref<16xf32>
    %y = vyre.alloc : memref<4x4xf32>
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c4, %c1, %c1) args(%y : memref<4x4xf32>) access [overwrite]
    vyre.copy_d2h %x to %h : memref<16xf32> to memref<16xf32>
    vyre.copy_d2h %y to %o : memref<4x4xf32> to memref<4x4xf32>
    vyre.dealloc %x : memref<16xf32>
    %c2 = arith.constant 2 : index
    vyre.dealloc %y : memref<4x4xf32>
    return
  }
}

// -----

// What keeps buffers apart: an op with effects between their frees, a
// dynamic size, a free in another block. Each is a gpu.alloc of its own,
// freed on its own.
// CHECK-LABEL: func.func @apart
// CHECK-COUNT-4: gpu.alloc async
// CHECK-NOT:     gpu.alloc
// CHECK-NOT:     memref.view
// CHECK-COUNT-4: gpu.dealloc async
// CHECK:         return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func @apart(%h: memref<16xf32> {vyre.pinned, llvm.noalias}, %n: index, %c: i1, %v: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = vyre.alloc : memref<16xf32>
    %b = vyre.alloc : memref<16xf32>
    %d = vyre.alloc(%n) : memref<?xf32>
    %e = vyre.alloc : memref<16xf32>
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>) access [overwrite]
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>) access [overwrite]
    vyre.dealloc %a : memref<16xf32>
    memref.store %v, %h[%c0] : memref<16xf32>
    vyre.dealloc %b : memref<16xf32>
    vyre.dealloc %d : memref<?xf32>
    scf.if %c {
      vyre.dealloc %e : memref<16xf32>
    }
    return
  }
}

// -----

// Elements of 3 bytes take 4 in LLVM's layout (its alloc size): buffers of
// such elements are not grouped, each is a gpu.alloc of its own.
// CHECK-LABEL: func.func @odd_elements
// CHECK-COUNT-2: gpu.alloc async {{.*}} : memref<256xi24>
// CHECK-NOT:     memref.view
// CHECK-COUNT-2: gpu.dealloc async
module attributes {gpu.container_module} {
  func.func @odd_elements(%h: memref<256xi24> {vyre.pinned, llvm.noalias}, %g: memref<256xi24> {vyre.pinned, llvm.noalias}) {
    %x = vyre.alloc : memref<256xi24>
    %y = vyre.alloc : memref<256xi24>
    vyre.copy_h2d %g to %y : memref<256xi24> to memref<256xi24>
    vyre.copy_h2d %h to %x : memref<256xi24> to memref<256xi24>
    vyre.copy_d2h %y to %g : memref<256xi24> to memref<256xi24>
    vyre.dealloc %x : memref<256xi24>
    vyre.dealloc %y : memref<256xi24>
    return
  }
}
