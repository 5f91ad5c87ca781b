// RUN: vyre-opt %s --split-input-file --overlap-copies=cost-model=false --verify-diagnostics
// The schedule's referee refuses the same programs:
// RUN: vyre-opt %s --split-input-file --vyre-verify-schedule --verify-diagnostics

// Tests that a host op reading a device buffer, through a view, is refused:
// on a GPU, the host would dereference a device pointer.
func.func @host_reads_device_memory(%h: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  %sub = memref.subview %a[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  // expected-error @below {{'memref.load' op reads device memory on the host: the buffer is a vyre.alloc buffer which only kernels and copies may touch (copy it to a host buffer first)}}
  %v = memref.load %sub[%c0] : memref<8xf32, strided<[1]>>
  memref.store %v, %out[%c0] : memref<16xf32>
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that a host store into a device buffer is refused too.
func.func @host_writes_device_memory(%h: memref<16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %a = vyre.alloc : memref<16xf32>
  // expected-error @below {{'memref.store' op writes device memory on the host: the buffer is a vyre.alloc buffer}}
  memref.store %v, %a[%c0] : memref<16xf32>
  vyre.copy_d2h %a to %h : memref<16xf32> to memref<16xf32>
  vyre.dealloc %a : memref<16xf32>
  return
}

// -----

// Tests that a vyre op in device code (the body of a gpu.launch) is refused:
// it would become host stream calls inside a kernel.
func.func @vyre_op_in_launch_body(%h: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    // expected-error @below {{'vyre.copy_d2h' op is in device code (the body of a 'gpu.launch'): vyre ops are host code that drives the device}}
    vyre.copy_d2h %a to %h : memref<16xf32> to memref<16xf32>
    gpu.terminator
  }
  vyre.dealloc %a : memref<16xf32>
  return
}
