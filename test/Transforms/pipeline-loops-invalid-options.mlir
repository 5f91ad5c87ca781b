// RUN: vyre-opt %s --vyre-pipeline-loops="h2d-gbps=0" --verify-diagnostics -o /dev/null
// RUN: not vyre-opt %s --vyre-pipeline-loops="copy-latency-us=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LATENCY --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-pipeline-loops="default-kernel-us=nan" -o /dev/null 2>&1 | FileCheck %s --check-prefix=KERNEL --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-pipeline-loops="launch-us=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAUNCH --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-pipeline-loops="d2h-gbps=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=D2H --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-pipeline-loops="side-streams=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIDE --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-pipeline-loops="d2h-streams=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=D2HSTREAMS --implicit-check-not="see current operation"
// RUN: vyre-opt %s --vyre-pipeline-loops="d2h-streams=0 async-d2h=false" -o /dev/null

// The cost model's figures are checked before any loop is looked at: a
// bandwidth of 0, a negative latency or a kernel time that is not a number
// would make its decisions meaningless. The error is at the function's
// location, and does not print the function.
// LATENCY: error: cannot run --vyre-pipeline-loops with copy-latency-us=-1{{.*}}: it must be a finite number of 0 or more
// KERNEL: error: cannot run --vyre-pipeline-loops with default-kernel-us=nan: it must be a finite number of 0 or more
// So are the options the depth trials schedule and simulate with (those of
// --overlap-copies): d2h-streams only where device-to-host copies are
// asynchronous.
// LAUNCH: error: cannot run --vyre-pipeline-loops with launch-us=-1{{.*}}: it must be a finite number of 0 or more
// D2H: error: cannot run --vyre-pipeline-loops with d2h-gbps=0: it must be a finite number above 0
// SIDE: error: cannot run --vyre-pipeline-loops with side-streams=0: it must be at least 1: copies need at least one side stream
// D2HSTREAMS: error: cannot run --vyre-pipeline-loops with d2h-streams=0: it must be at least 1: asynchronous device-to-host copies (async-d2h=true) need at least one stream

// expected-error @+1 {{cannot run --vyre-pipeline-loops with h2d-gbps=0: it must be a finite number above 0}}
func.func @f() {
  return
}
