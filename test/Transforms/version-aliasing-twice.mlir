// RUN: vyre-opt %s --vyre-version-aliasing --vyre-version-aliasing | FileCheck %s
// RUN: vyre-opt %s --vyre-version-aliasing | vyre-opt --vyre-to-gpu-pipeline --remarks-filter=version-aliasing -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE

// Tests that --vyre-version-aliasing, run again before --vyre-choose-versions
// (or a pipeline run on its output), versions neither the dispatcher nor its
// copies again, and that the choice is then made on the function's own two
// versions.
// CHECK-COUNT-3: func.func
// CHECK-NOT: func.func
// CHECK-NOT: _disjoint_disjoint
// CHECK-NOT: _may_alias_disjoint
// PIPELINE: VersioningDeclined | Category:version-aliasing | Remark="versioning @back_and_in on arguments 0, 1, 2 does not pay: simulated {{[0-9.]+}} us with them disjoint, {{[0-9.]+}} us as written
// PIPELINE-NOT: ArgumentsVersioned

func.func @back_and_in(%out: memref<16xf32> {vyre.pinned}, %in: memref<16xf32> {vyre.pinned}, %res: memref<16xf32> {vyre.pinned}) {
  %d = vyre.alloc : memref<16xf32>
  %e = vyre.alloc : memref<16xf32>
  vyre.copy_d2h %d to %out : memref<16xf32> to memref<16xf32>
  vyre.copy_h2d %in to %e : memref<16xf32> to memref<16xf32>
  vyre.copy_d2h %e to %res : memref<16xf32> to memref<16xf32>
  vyre.dealloc %d : memref<16xf32>
  vyre.dealloc %e : memref<16xf32>
  return
}
