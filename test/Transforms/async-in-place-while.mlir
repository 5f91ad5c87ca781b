// RUN: vyre-opt %s --vyre-kernel-access --vyre-async-in-place | FileCheck %s
// The gpu-level referee accepts the output (the vyre-level one does not
// unfold scf.while).
// RUN: vyre-opt %s --vyre-kernel-access --vyre-async-in-place --convert-vyre-to-gpu=keep-effects=true --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null

// Tests an scf.while, whose two regions run in turn in ways the step does
// not follow: the host waits at the end of each region for the copies in
// it, and not in an scf.for (copy_loop in async-in-place.mlir).
// CHECK-LABEL: func.func @while_loop
// CHECK:      scf.while
// CHECK-NEXT:   %[[T:.+]] = vyre.copy_d2h_async %{{.+}} on stream 0 :
// CHECK-NEXT:   vyre.sync %[[T]]
// CHECK-NEXT:   scf.condition
func.func @while_loop(%out: memref<16xf32> {llvm.noalias}, %go: i1) {
  %a = vyre.alloc : memref<16xf32>
  scf.while : () -> () {
    vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
    scf.condition(%go)
  } do {
    scf.yield
  }
  return
}
