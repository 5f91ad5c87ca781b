// RUN: vyre-opt %s --vyre-simulate="trace=%t.missing/dir/trace.json" --verify-diagnostics -o /dev/null

// Tests that a trace file that cannot be written is an error.
// expected-error @+1 {{cannot write the trace}}
module {
  // expected-remark @+1 {{makespan 0.0 us}}
  func.func @f() {
    return
  }
}
