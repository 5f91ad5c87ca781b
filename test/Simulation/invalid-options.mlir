// Tests that --vyre-simulate refuses meaningless options, naming the option
// and what it must be, at the module's location and without printing the
// module: a bandwidth of 0 or NaN, a time that is NaN or negative, no engine
// of a kind, a trace it cannot write.
// RUN: vyre-opt %s --vyre-simulate="h2d-gbps=0" --verify-diagnostics -o /dev/null
// RUN: not vyre-opt %s --vyre-simulate="d2h-gbps=nan" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAN --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-simulate="launch-us=nan" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAUNCH --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-simulate="event-us=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVENT --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-simulate="compute-engines=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENGINES --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-simulate="h2d-engines=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=H2D-ENGINES --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-simulate="trace=%t.missing/trace.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE --implicit-check-not="see current operation"
// NAN: invalid-options.mlir:{{[0-9]+}}:1: error: cannot run --vyre-simulate with d2h-gbps=nan: it must be a finite number above 0
// LAUNCH: error: cannot run --vyre-simulate with launch-us=nan: it must be a finite number of 0 or more
// EVENT: error: cannot run --vyre-simulate with event-us=-1: it must be a finite number of 0 or more
// ENGINES: error: cannot run --vyre-simulate with compute-engines=0: it must be at least 1: kernels need an engine
// H2D-ENGINES: error: cannot run --vyre-simulate with h2d-engines=0: it must be at least 1: copies to the device need an engine
// TRACE: error: cannot write the trace '{{.*}}trace.json': {{.+}}

// expected-error @+1 {{cannot run --vyre-simulate with h2d-gbps=0: it must be a finite number above 0}}
module {
  func.func @f() {
    return
  }
}
