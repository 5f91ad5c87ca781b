// RUN: vyre-opt %s --overlap-copies="h2d-gbps=0" --verify-diagnostics
// RUN: vyre-opt %s --overlap-copies="event-us=-1" --verify-diagnostics
// Without the cost model its figures are not read.
// RUN: vyre-opt %s --overlap-copies="cost-model=false h2d-gbps=0" -o /dev/null

// Tests that the cost model refuses a bandwidth that is not positive and a
// negative time.
// expected-error @+1 {{'func.func' op cannot run --overlap-copies' cost model with a bandwidth that is not positive or a negative time}}
func.func @bad_model(%h: memref<16xf32>) {
  %d = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  vyre.dealloc %d : memref<16xf32>
  return
}
