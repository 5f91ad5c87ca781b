// RUN: vyre-opt %s --vyre-kernel-access --vyre-pipeline-loops="cost-model=false" --overlap-copies="cost-model=false" --vyre-simulate="trace=%t.json" --remarks-filter="pipeline-loops|overlap-copies|simulate" --remark-format=yaml --remarks-output-file=%t.yaml -o /dev/null
// RUN: FileCheck %s --input-file=%t.yaml --implicit-check-not="<unknown file>"
// RUN: FileCheck %s --input-file=%t.json --check-prefix=TRACE --implicit-check-not="loc(fused"

// Tests that remarks on ops --vyre-pipeline-loops wrote out keep their
// source position in a YAML remarks file (their locations are fused with
// the pipeline's tag; YAML takes one file, line and column), that the
// simulator's result reaches the file as a remark too, and that the
// simulator's trace names each op's position as file:line:col, and the loop
// a pipelined op stands for, and ends with the makespan (an instant event).
// CHECK-LABEL: Name: LoopPipelined
// CHECK:       Line: 35, Column: 5
// CHECK-LABEL: Name: {{CopyOverlapped|CopyNotOverlapped}}
// CHECK:       Line: 37, Column: 7
// CHECK-LABEL: Name: Simulated
// CHECK:       Line: 30, Column: 3
// CHECK:       'makespan {{[0-9.]+}} us, device time {{[0-9.]+}} us, bound
// TRACE:      "location": "{{.*}}remarks-yaml.mlir:37:7",
// TRACE-NEXT: "pipelined from the loop at": "{{.*}}remarks-yaml.mlir:35:5"
// TRACE:      "makespan_us": {{[0-9.]+}}
// TRACE:      "name": "@stream_rows end: makespan {{[0-9.]+}} us"
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @use(%x: memref<256xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<256xf32>
      gpu.return
    }
  }
  func.func @stream_rows(%h: memref<4x256xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %d = vyre.alloc : memref<256xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %row = memref.subview %h[%i, 0] [1, 256] [1, 1] : memref<4x256xf32> to memref<256xf32, strided<[1], offset: ?>>
      vyre.copy_h2d %row to %d : memref<256xf32, strided<[1], offset: ?>> to memref<256xf32>
      vyre.dispatch @k::@use blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<256xf32>) access [read] {vyre.cost_us = 10.0}
    }
    vyre.dealloc %d : memref<256xf32>
    return
  }
}
