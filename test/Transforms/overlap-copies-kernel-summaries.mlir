// RUN: vyre-opt %s --vyre-kernel-access --overlap-copies=cost-model=false --remarks-filter=overlap-copies 2>&1 | FileCheck %s --check-prefix=SUMMARIZED
// RUN: vyre-opt %s --overlap-copies=cost-model=false --remarks-filter=overlap-copies 2>&1 | FileCheck %s --check-prefix=UNSUMMARIZED

// Tests that --overlap-copies judges kernels by their `vyre.access` summaries
// and never looks into their bodies. @k::@read only reads %h, so the copy
// from %h may move above it, but only once --vyre-kernel-access has said so:
// without a summary the kernel may write %h, the copy's source, and the pass
// says why.
gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
  // A summary written by hand is believed as it stands.
  gpu.func @declared(%x: memref<16xf32>) kernel attributes {vyre.access = [#vyre.access<read>]} {
    gpu.return
  }
}
func.func @host_buffer_read_by_kernel(%h: memref<16xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%h : memref<16xf32>)
  vyre.dispatch @k::@declared blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%h : memref<16xf32>)
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@declared blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// SUMMARIZED-NOT: has no 'vyre.access' summary
// SUMMARIZED: remark: [Passed] CopyOverlapped {{.*}} Remark="copy into slot 1 may overlap 2 kernel(s); first wait at 'vyre.dispatch' (read-after-write)"
// SUMMARIZED: gpu.func @read(%{{.*}}: memref<16xf32>) kernel attributes {vyre.access = [#vyre.access<read>]}
// SUMMARIZED: gpu.func @declared(%{{.*}}: memref<16xf32>) kernel attributes {vyre.access = [#vyre.access<read>]}
// SUMMARIZED-LABEL: func.func @host_buffer_read_by_kernel(%arg0
// SUMMARIZED: vyre.alloc
// SUMMARIZED-NEXT: %[[T:.+]] = vyre.copy_h2d_async
// SUMMARIZED-NEXT: vyre.dispatch @k::@read
// SUMMARIZED-NEXT: vyre.dispatch @k::@declared
// SUMMARIZED-NEXT: vyre.wait %[[T]]

// UNSUMMARIZED: remark: [Missed] KernelNotSummarized | Category:overlap-copies | Function=host_buffer_read_by_kernel | Remark="kernel @k::@read has no 'vyre.access' summary (run --vyre-kernel-access first): it is taken to read and write every argument"
// UNSUMMARIZED-NOT: kernel @k::@declared has no
// UNSUMMARIZED: remark: [Passed] CopyOverlapped {{.*}} Remark="copy into slot 1 may overlap 1 kernel(s); first wait at 'vyre.dispatch' (read-after-write); it cannot move above 'vyre.dispatch' (host-buffer)"
// UNSUMMARIZED: gpu.func @read(%{{.*}}: memref<16xf32>) kernel {
// UNSUMMARIZED-LABEL: func.func @host_buffer_read_by_kernel(%arg0
// UNSUMMARIZED: vyre.dispatch @k::@read
// UNSUMMARIZED-NEXT: vyre.record
// UNSUMMARIZED-NEXT: vyre.copy_h2d_async
// UNSUMMARIZED-NEXT: vyre.dispatch @k::@declared
