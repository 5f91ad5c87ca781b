// RUN: vyre-opt %s --split-input-file --vyre-gpu-async-pipeline="verify=true" | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-gpu-host-to-vyre | FileCheck %s --check-prefix=IMPORT
// RUN: vyre-opt %s --split-input-file --vyre-gpu-async-pipeline | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance | FileCheck %s --check-prefix=LLVM
// LLVM-COUNT-2: llvm.call @mgpuMemAlloc
// LLVM-NOT: gpu.alloc

// Managed memory (gpu.alloc host_shared), which the host and kernels both
// touch, in host code the drop-in imports. The allocation stays
// synchronous (gpu-to-llvm lowers no other form); to vyre the buffer is a
// slot whose host accesses count as well, so the host waits for a kernel
// writing it before reading it, and not for work on other buffers.

// Tests that the host writes the managed buffer before the kernel on it,
// reads it only once the kernel is done, and that copies to and from
// device memory are imported as host-to-device and device-to-host.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<1024xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i] : memref<1024xf32>
      gpu.return
    }
  }
  // IMPORT-LABEL: func.func @managed
  // IMPORT: gpu.alloc host_shared ()
  // IMPORT: vyre.copy_h2d %{{.+}} to %[[D:.+]] :
  // IMPORT: vyre.copy_d2h %[[D]] to
  // CHECK-LABEL: func.func @managed
  func.func @managed(%h: memref<1024xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    // CHECK: %[[M:.+]] = gpu.alloc host_shared () : memref<1024xf32>
    %m = gpu.alloc host_shared () : memref<1024xf32>
    %d = gpu.alloc () : memref<1024xf32>
    // CHECK: memref.store %{{.+}}, %[[M]]
    memref.store %one, %m[%c0] : memref<1024xf32>
    gpu.memcpy %d, %m : memref<1024xf32>, memref<1024xf32>
    // CHECK: %[[K:.+]] = gpu.launch_func async {{.+}} args(%[[M]]
    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<1024xf32>)
    // CHECK: gpu.wait [%[[K]]]
    // CHECK-NEXT: memref.load %[[M]]
    %v = memref.load %m[%c0] : memref<1024xf32>
    gpu.memcpy %h, %d : memref<1024xf32>, memref<1024xf32>
    gpu.dealloc %d : memref<1024xf32>
    gpu.dealloc %m : memref<1024xf32>
    return %v : f32
  }
}

// -----

// Tests that the host reads a managed buffer no kernel writes without
// waiting for the kernel on another buffer.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<1024xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<1024xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i] : memref<1024xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @managed_untouched
  func.func @managed_untouched(%h: memref<1024xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = gpu.alloc host_shared () : memref<1024xf32>
    %d = gpu.alloc () : memref<1024xf32>
    gpu.memcpy %d, %h : memref<1024xf32>, memref<1024xf32>
    // CHECK: gpu.launch_func async
    // CHECK-NOT: gpu.wait [
    // CHECK: memref.load
    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<1024xf32>)
    %v = memref.load %m[%c0] : memref<1024xf32>
    gpu.memcpy %h, %d : memref<1024xf32>, memref<1024xf32>
    gpu.dealloc %d : memref<1024xf32>
    gpu.dealloc %m : memref<1024xf32>
    return %v : f32
  }
}
