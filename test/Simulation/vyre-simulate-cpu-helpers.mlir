// RUN: vyre-opt %s --vyre-kernel-access --vyre-simulate -o /dev/null 2>&1 | FileCheck %s
// RUN: sed -e 's|^// HIDDEN-||' %s | not vyre-opt --vyre-kernel-access --vyre-simulate -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKS

// Tests that a CPU helper of several blocks without vyre ops is left out of
// the simulation (it has no device work, and blocks the simulator does not
// run), while the function that calls it is simulated; a function of several
// blocks that holds vyre ops (uncommented by the second run) is refused.

// CHECK-NOT: error
// CHECK-NOT: cpu_helper
// CHECK: remark: makespan
// CHECK-NEXT: func.func @calls_the_helper
// CHECK-NOT: error

// BLOCKS: error: 'func.func' op has a region of several blocks, which --vyre-simulate cannot run
// BLOCKS-NEXT: {{^}}func.func @vyre_ops_in_blocks

func.func @cpu_helper(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %a : i32
^bb2:
  return %b : i32
}

func.func @calls_the_helper(%h: memref<16xf32>, %c: i1, %a: i32) -> i32 {
  %d = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  %r = func.call @cpu_helper(%c, %a, %a) : (i1, i32, i32) -> i32
  return %r : i32
}

// HIDDEN-func.func @vyre_ops_in_blocks(%h: memref<16xf32>, %c: i1) {
// HIDDEN-  %d = vyre.alloc : memref<16xf32>
// HIDDEN-  cf.cond_br %c, ^bb1, ^bb2
// HIDDEN-^bb1:
// HIDDEN-  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
// HIDDEN-  return
// HIDDEN-^bb2:
// HIDDEN-  return
// HIDDEN-}
