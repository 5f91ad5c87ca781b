// RUN: vyre-opt %s --split-input-file --convert-gpu-host-to-vyre | FileCheck %s
// Imported programs are race-free once overlapped, at both levels, through
// the drop-in pipeline.
// RUN: vyre-opt %s --split-input-file --vyre-gpu-async-pipeline="cost-model=false verify=true" -o /dev/null

// Tests the patterns of upstream's GPU integration tests: a host buffer from
// memref.alloc registered with gpu.host_register, a device buffer from
// gpu.alloc, synchronous copies both ways and a launch, all imported.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<256xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<256xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i] : memref<256xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @registered_host_buffer
  func.func @registered_host_buffer() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    // CHECK: %[[H:.+]] = memref.alloc()
    %h = memref.alloc() : memref<256xf32>
    %hu = memref.cast %h : memref<256xf32> to memref<*xf32>
    // CHECK: gpu.host_register
    gpu.host_register %hu : memref<*xf32>
    // CHECK: %[[D:.+]] = vyre.alloc : memref<256xf32>
    %d = gpu.alloc () : memref<256xf32>
    // CHECK: vyre.copy_h2d %[[H]] to %[[D]]
    gpu.memcpy %d, %h : memref<256xf32>, memref<256xf32>
    // CHECK: vyre.dispatch @kernels::@scale blocks(%{{.+}}, %{{.+}}, %{{.+}}) threads(%{{.+}}, %{{.+}}, %{{.+}}) args(%[[D]] : memref<256xf32>)
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%d : memref<256xf32>)
    // CHECK: vyre.copy_d2h %[[D]] to %[[H]]
    gpu.memcpy %h, %d : memref<256xf32>, memref<256xf32>
    // CHECK: vyre.dealloc %[[D]]
    gpu.dealloc %d : memref<256xf32>
    // CHECK-NOT: gpu.memcpy
    // CHECK-NOT: gpu.launch_func
    return
  }
}

// -----

// Tests that an argument facing device memory is host memory, and one facing
// host memory is device memory; views, globals and allocas are followed.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<256xf32>) kernel {
      gpu.return
    }
  }
  memref.global "private" @weights : memref<256xf32> = dense<1.0>
  // CHECK-LABEL: func.func @arguments_and_views
  func.func @arguments_and_views(%in: memref<256xf32>, %out: memref<256xf32>, %dev: memref<128xf32>) {
    %d = gpu.alloc () : memref<256xf32>
    // CHECK: vyre.copy_h2d %{{.+}} to
    gpu.memcpy %d, %in : memref<256xf32>, memref<256xf32>
    // CHECK: vyre.copy_d2h %{{.+}} to %{{.+}} : memref<256xf32> to memref<256xf32>
    gpu.memcpy %out, %d : memref<256xf32>, memref<256xf32>
    %w = memref.get_global @weights : memref<256xf32>
    // CHECK: vyre.copy_h2d %{{.+}} to
    gpu.memcpy %d, %w : memref<256xf32>, memref<256xf32>
    %stage = memref.alloca() : memref<256xf32>
    %half = memref.subview %stage[0] [128] [1] : memref<256xf32> to memref<128xf32, strided<[1]>>
    %halfc = memref.cast %half : memref<128xf32, strided<[1]>> to memref<128xf32>
    // The alloca's half is host memory, so the argument is the device side.
    // CHECK: vyre.copy_h2d %{{.+}} to %{{.+}} : memref<128xf32> to memref<128xf32>
    gpu.memcpy %dev, %halfc : memref<128xf32>, memref<128xf32>
    gpu.dealloc %d : memref<256xf32>
    return
  }
}

// -----

// Tests that a loop over layers is imported inside the loop (weight
// streaming), and that a host write between two copies of one buffer stays
// between them.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @layer(%w: memref<64xf32>, %act: memref<64xf32>) kernel {
      %i = gpu.thread_id x
      %a = memref.load %w[%i] : memref<64xf32>
      %b = memref.load %act[%i] : memref<64xf32>
      %c = arith.mulf %a, %b : f32
      memref.store %c, %act[%i] : memref<64xf32>
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @layers
  func.func @layers(%weights: memref<64xf32>, %n: index, %v: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %stage = memref.alloc() : memref<64xf32>
    %w = gpu.alloc () : memref<64xf32>
    %act = gpu.alloc () : memref<64xf32>
    // CHECK: scf.for
    scf.for %i = %c0 to %n step %c1 {
      // CHECK-NEXT: vyre.copy_h2d
      gpu.memcpy %w, %stage : memref<64xf32>, memref<64xf32>
      // CHECK-NEXT: memref.store
      memref.store %v, %stage[%c0] : memref<64xf32>
      // CHECK-NEXT: vyre.copy_h2d
      gpu.memcpy %act, %stage : memref<64xf32>, memref<64xf32>
      // CHECK-NEXT: vyre.dispatch @kernels::@layer
      gpu.launch_func @kernels::@layer blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%w : memref<64xf32>, %act : memref<64xf32>)
    }
    gpu.dealloc %w : memref<64xf32>
    gpu.dealloc %act : memref<64xf32>
    return
  }
}

// -----

// Tests that a function without gpu host ops is left alone, silently.
// CHECK-LABEL: func.func @no_gpu
// CHECK-NEXT: arith.constant
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  func.func @no_gpu() {
    %c1 = arith.constant 1 : index
    return
  }
}
