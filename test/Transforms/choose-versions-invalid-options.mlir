// RUN: not vyre-opt %s --vyre-choose-versions="h2d-gbps=-1" -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-choose-versions="launch-us=nan" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAUNCH --implicit-check-not="see current operation"
// Without only-if-faster the figures are not read.
// RUN: vyre-opt %s --vyre-choose-versions="only-if-faster=false h2d-gbps=-1" -o /dev/null

// Tests that the simulator figures --vyre-choose-versions times versions with
// are checked like --vyre-simulate's, at the module's location, without
// printing the module.
// CHECK: error: cannot run --vyre-choose-versions with h2d-gbps=-1: it must be a finite number above 0
// LAUNCH: error: cannot run --vyre-choose-versions with launch-us=nan: it must be a finite number of 0 or more
module {
  func.func @f() {
    return
  }
}
