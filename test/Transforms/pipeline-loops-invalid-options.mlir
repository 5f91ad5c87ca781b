// RUN: vyre-opt %s --vyre-pipeline-loops="h2d-gbps=0" --verify-diagnostics -o /dev/null
// RUN: not vyre-opt %s --vyre-pipeline-loops="copy-latency-us=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LATENCY --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-pipeline-loops="default-kernel-us=nan" -o /dev/null 2>&1 | FileCheck %s --check-prefix=KERNEL --implicit-check-not="see current operation"

// The cost model's figures are checked before any loop is looked at: a
// bandwidth of 0, a negative latency or a kernel time that is not a number
// would make its decisions meaningless. The error is at the function's
// location, and does not print the function.
// LATENCY: error: cannot run --vyre-pipeline-loops with copy-latency-us=-1{{.*}}: it must be a finite number of 0 or more
// KERNEL: error: cannot run --vyre-pipeline-loops with default-kernel-us=nan: it must be a finite number of 0 or more

// expected-error @+1 {{cannot run --vyre-pipeline-loops with h2d-gbps=0: it must be a finite number above 0}}
func.func @f() {
  return
}
