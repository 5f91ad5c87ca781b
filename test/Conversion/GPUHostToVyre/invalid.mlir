// RUN: vyre-opt %s --split-input-file --convert-gpu-host-to-vyre --verify-diagnostics

// Tests that a kernel written inline (gpu.launch) is an error naming the
// pass to run first.
func.func @inline_kernel(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch' op is not outlined: run --gpu-kernel-outlining before --convert-gpu-host-to-vyre}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
