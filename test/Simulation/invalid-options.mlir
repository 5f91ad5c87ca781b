// RUN: vyre-opt %s --vyre-simulate="h2d-gbps=0" --verify-diagnostics -o /dev/null

// Tests that a bandwidth of zero is refused.
// expected-error @+1 {{'builtin.module' op cannot run --vyre-simulate with a bandwidth of 0 GB/s or less}}
module {
  func.func @f() {
    return
  }
}
