// RUN: vyre-opt %s --vyre-kernel-access --vyre-verify-schedule=max-branch-ifs=15 -o /dev/null
// RUN: vyre-opt %s --vyre-to-gpu-pipeline="verify=true max-branch-ifs=15" -o /dev/null
// RUN: not vyre-opt %s --vyre-verify-schedule=max-branch-ifs=0 -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-verify-schedule=max-branch-ifs=25 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOO-MANY --implicit-check-not="see current operation"
// CHECK: error: cannot run --vyre-verify-schedule with max-branch-ifs=0: it must be from 1 to 24
// TOO-MANY: error: cannot run --vyre-verify-schedule with max-branch-ifs=25: it must be from 1 to 24

// Tests that max-branch-ifs raises the checker's limit on scf.if ops on
// distinct conditions: with 15, the function of 15 that
// vyre-verify-schedule.mlir shows refused at the default is checked, by the
// pass and by the pipeline, which takes the option under the same name.
func.func @many_branches(%c0: i1, %c1: i1, %c2: i1, %c3: i1, %c4: i1, %c5: i1, %c6: i1, %c7: i1, %c8: i1, %c9: i1, %c10: i1, %c11: i1, %c12: i1, %c13: i1, %c14: i1) {
  %d = vyre.alloc : memref<16xf32>
  scf.if %c0 {
  }
  scf.if %c1 {
  }
  scf.if %c2 {
  }
  scf.if %c3 {
  }
  scf.if %c4 {
  }
  scf.if %c5 {
  }
  scf.if %c6 {
  }
  scf.if %c7 {
  }
  scf.if %c8 {
  }
  scf.if %c9 {
  }
  scf.if %c10 {
  }
  scf.if %c11 {
  }
  scf.if %c12 {
  }
  scf.if %c13 {
  }
  scf.if %c14 {
  }
  return
}
