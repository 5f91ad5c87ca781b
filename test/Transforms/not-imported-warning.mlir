// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --overlap-copies=cost-model=false --verify-diagnostics -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-verify-schedule --verify-diagnostics -o /dev/null
// The simulator reports on every function it runs: check its warning alone.
// RUN: vyre-opt %s --split-input-file --vyre-simulate -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIM
// SIM: warning: holds gpu host ops and no vyre ops, so --vyre-simulate does nothing to it
// SIM-NOT: warning:

// Tests that a vyre pass on a function holding upstream gpu host ops and no
// vyre ops warns, naming the import pass, rather than doing nothing in
// silence.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  // expected-warning-re @+1 {{holds gpu host ops and no vyre ops, so --{{(overlap-copies|vyre-verify-schedule|vyre-simulate)}} does nothing to it: import them first with --convert-gpu-host-to-vyre (or use --vyre-gpu-async-pipeline)}}
  func.func @upstream_host_code(%h: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %d = gpu.alloc () : memref<16xf32>
    gpu.memcpy %d, %h : memref<16xf32>, memref<16xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.dealloc %d : memref<16xf32>
    return
  }
}

// -----

// Tests that a function --convert-gpu-host-to-vyre left as written (and said
// why), or one without gpu host ops, gets no warning.
func.func @left_as_written(%a: memref<16xf32>, %b: memref<16xf32>) attributes {vyre.not_imported = "its 'gpu.memcpy' cannot be imported"} {
  gpu.memcpy %a, %b : memref<16xf32>, memref<16xf32>
  return
}
func.func @no_gpu_ops() {
  return
}
