// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false" --remarks-filter=overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=ASYNC
// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies="cost-model=false async-d2h=false async-in-place=false" --remarks-filter=overlap-copies -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKING

// Tests the kernels issued before a copy that it may overlap, after a copy
// left on the main stream (async-d2h=false keeps the copy back there). With
// async-in-place (the default) that copy does not make the host wait: the
// copy into slot 3, issued after it, may still run beside both kernels
// issued before it. With async-in-place=false the host waits for the main
// stream at the copy back, and only the kernel after it may still run.

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
}

func.func @after_in_place_copy(%h: memref<16xf32> {vyre.pinned, llvm.noalias},
                               %out: memref<16xf32> {vyre.pinned, llvm.noalias},
                               %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c : memref<16xf32>)
  // The host writes the source: the copy below cannot move above it.
  memref.store %v, %h[%c0] : memref<16xf32>
  vyre.copy_h2d %h to %b : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// ASYNC: remark: {{.*}}Remark="copy into slot 3 may overlap 2 kernel(s) (2 issued before it); first wait at 'vyre.dispatch' (read-after-write); it cannot move above 'memref.store' (host-buffer)"
// BLOCKING: remark: {{.*}}Remark="copy into slot 3 may overlap 1 kernel(s) (1 issued before it); first wait at 'vyre.dispatch' (read-after-write); it cannot move above 'memref.store' (host-buffer)"
