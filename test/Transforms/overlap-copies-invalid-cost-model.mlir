// RUN: vyre-opt %s --overlap-copies="h2d-gbps=0" --verify-diagnostics
// RUN: not vyre-opt %s --overlap-copies="event-us=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVENT --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --overlap-copies="d2h-gbps=nan" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAN --implicit-check-not="see current operation"
// RUN: not vyre-opt %s --vyre-to-gpu-pipeline="copy-latency-us=inf" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE --implicit-check-not="see current operation"
// Without the cost model its figures are not read.
// RUN: vyre-opt %s --overlap-copies="cost-model=false h2d-gbps=0" -o /dev/null

// Tests that the cost model refuses a bandwidth that is not a positive
// number and a time that is negative or not a number, naming the option, at
// the function's location without printing it; the pipeline passes its
// options on, and the first pass that reads one refuses it.
// EVENT: error: cannot run --overlap-copies with event-us=-1: it must be a finite number of 0 or more
// NAN: error: cannot run --overlap-copies with d2h-gbps=nan: it must be a finite number above 0
// PIPELINE: error: cannot run --{{[a-z-]+}} with copy-latency-us=inf: it must be a finite number of 0 or more
// expected-error @+1 {{cannot run --overlap-copies with h2d-gbps=0: it must be a finite number above 0}}
func.func @bad_model(%h: memref<16xf32>) {
  %d = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %d : memref<16xf32> to memref<16xf32>
  vyre.dealloc %d : memref<16xf32>
  return
}
