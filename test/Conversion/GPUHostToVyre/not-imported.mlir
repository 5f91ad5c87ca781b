// RUN: vyre-opt %s --split-input-file --convert-gpu-host-to-vyre | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-gpu-host-to-vyre --remarks-filter=convert-gpu-host-to-vyre --verify-diagnostics -o /dev/null


// Tests that a copy between two arguments, whose direction cannot be
// decided, keeps the whole function as written (a synchronous gpu op among
// vyre's asynchronous ones would be threaded onto vyre's streams later), and
// that the function says why.
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @undecidable_direction
  // CHECK-SAME: vyre.not_imported = "its 'gpu.memcpy' cannot be imported: its direction cannot be decided
  func.func @undecidable_direction(%a: memref<16xf32>, %b: memref<16xf32>) {
    // CHECK: gpu.memcpy
    // expected-warning @+2 {{holds gpu ops and was not imported, so vyre schedules none of them}}
    // expected-remark @+1 {{function not imported: its 'gpu.memcpy' cannot be imported: its direction cannot be decided}}
    gpu.memcpy %a, %b : memref<16xf32>, memref<16xf32>
    // CHECK: gpu.alloc
    %d = gpu.alloc () : memref<16xf32>
    // CHECK: gpu.memcpy
    gpu.memcpy %d, %b : memref<16xf32>, memref<16xf32>
    gpu.dealloc %d : memref<16xf32>
    return
  }
}

// -----

// Tests that a launch with dynamic shared memory, which vyre.dispatch cannot
// express, keeps its function as written.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @dynamic_shared_memory
  func.func @dynamic_shared_memory() {
    %c1 = arith.constant 1 : index
    %shmem = arith.constant 64 : i32
    // CHECK: gpu.alloc ()
    %d = gpu.alloc () : memref<16xf32>
    // CHECK: gpu.launch_func @kernels::@scale {{.*}} dynamic_shared_memory_size
    // expected-warning @+2 {{holds gpu ops and was not imported, so vyre schedules none of them}}
    // expected-remark @+1 {{function not imported: its 'gpu.launch_func' cannot be imported: vyre.dispatch has no dynamic shared memory}}
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %shmem args(%d : memref<16xf32>)
    return
  }
}

// -----

// Tests that a launch with i32 sizes keeps its function as written.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @i32_sizes
  func.func @i32_sizes() {
    %c1 = arith.constant 1 : i32
    %d = gpu.alloc () : memref<16xf32>
    // CHECK: gpu.launch_func @kernels::@scale blocks in (%{{.+}}, %{{.+}}, %{{.+}}) : i32
    // expected-warning @+2 {{holds gpu ops and was not imported, so vyre schedules none of them}}
    // expected-remark @+1 {{its 'gpu.launch_func' cannot be imported: its grid and block sizes are not of type index}}
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i32 args(%d : memref<16xf32>)
    return
  }
}

// -----

// Tests that a gpu.memset keeps its function as written.
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @memset
  func.func @memset(%v: f32) {
    // CHECK: gpu.alloc ()
    %d = gpu.alloc () : memref<16xf32>
    // expected-warning @+2 {{holds gpu ops and was not imported, so vyre schedules none of them}}
    // expected-remark @+1 {{its 'gpu.memset' cannot be imported: vyre has no memset}}
    gpu.memset %d, %v : memref<16xf32>, f32
    return
  }
}

// -----

// Tests that gpu ops in a region of several blocks keep their function as
// written.
module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @several_blocks
  // expected-warning @+2 {{holds gpu ops and was not imported, so vyre schedules none of them}}
  // expected-remark @+1 {{function not imported: it has several blocks, which vyre does not take}}
  func.func @several_blocks(%h: memref<16xf32>, %c: i1) {
    // CHECK: gpu.alloc ()
    %d = gpu.alloc () : memref<16xf32>
    cf.cond_br %c, ^copy, ^done
  ^copy:
    gpu.memcpy %d, %h : memref<16xf32>, memref<16xf32>
    cf.br ^done
  ^done:
    return
  }
}

// -----

// Tests that two explicitly asynchronous kernels, which may need to run
// concurrently (each may wait for the other to start), keep their tokens
// exactly as written, while the function's synchronous ops are imported
// around them.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @spin(%flag: memref<2xi32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @concurrent_kernels
  // CHECK-NOT: vyre.not_imported
  // expected-remark @+1 {{synchronous gpu ops imported; 5 gpu op(s) written with tokens left as written; 0 host wait(s) inserted}}
  func.func @concurrent_kernels(%h: memref<2xi32>) {
    %c1 = arith.constant 1 : index
    // CHECK: %[[FLAGS:.+]] = vyre.alloc
    %flags = gpu.alloc () : memref<2xi32>
    // CHECK-NEXT: vyre.copy_h2d
    gpu.memcpy %flags, %h : memref<2xi32>, memref<2xi32>
    // CHECK-NEXT: %[[T0:.+]] = gpu.wait async
    // CHECK-NEXT: %[[T1:.+]] = gpu.wait async
    %t0 = gpu.wait async
    %t1 = gpu.wait async
    // CHECK-NEXT: %[[K0:.+]] = gpu.launch_func async [%[[T0]]] {{.+}} args(%[[FLAGS]]
    %k0 = gpu.launch_func async [%t0] @kernels::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>)
    // CHECK-NEXT: %[[K1:.+]] = gpu.launch_func async [%[[T1]]] {{.+}} args(%[[FLAGS]]
    %k1 = gpu.launch_func async [%t1] @kernels::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>)
    // CHECK-NEXT: gpu.wait [%[[K0]], %[[K1]]]
    gpu.wait [%k0, %k1]
    // CHECK-NEXT: vyre.dealloc %[[FLAGS]]
    gpu.dealloc %flags : memref<2xi32>
    return
  }
}

// -----

// Tests that a single-token asynchronous fork keeps its two kernels on the
// copy's token, and its synchronous dealloc is imported.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @fork
  // expected-remark @+1 {{synchronous gpu ops imported; 6 gpu op(s) written with tokens left as written; 0 host wait(s) inserted}}
  func.func @fork(%h: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    %d, %ta = gpu.alloc async [%t] () : memref<16xf32>
    // CHECK: %[[C:.+]] = gpu.memcpy async
    %tc = gpu.memcpy async [%ta] %d, %h : memref<16xf32>, memref<16xf32>
    // CHECK-NEXT: gpu.launch_func async [%[[C]]]
    %k0 = gpu.launch_func async [%tc] @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    // CHECK-NEXT: gpu.launch_func async [%[[C]]]
    %k1 = gpu.launch_func async [%tc] @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    gpu.wait [%k0, %k1]
    // CHECK: vyre.dealloc
    gpu.dealloc %d : memref<16xf32>
    return
  }
}

// -----

// Tests that the same fork written asynchronous throughout (its free on the
// kernels' tokens too) is left exactly as written.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @async_fork
  // CHECK-SAME: vyre.not_imported = "it is already asynchronous
  // expected-warning @+2 {{holds gpu ops and was not imported, so vyre schedules none of them}}
  // expected-remark @+1 {{function not imported: it is already asynchronous (gpu async tokens or async ops), and may depend on its ops running concurrently: it is left exactly as written}}
  func.func @async_fork(%h: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    %d, %ta = gpu.alloc async [%t] () : memref<16xf32>
    %tc = gpu.memcpy async [%ta] %d, %h : memref<16xf32>, memref<16xf32>
    // CHECK: gpu.launch_func async
    %k0 = gpu.launch_func async [%tc] @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    %k1 = gpu.launch_func async [%tc] @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
    %j = gpu.wait async [%k0, %k1]
    %tf = gpu.dealloc async [%j] %d : memref<16xf32>
    gpu.wait [%tf]
    return
  }
}

// -----

// Tests that a function whose tokens are carried through a loop, beside a
// synchronous op, is left as written: the import orders the two kinds of
// work in the top block only.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @token_through_loop
  // CHECK-SAME: vyre.not_imported
  // expected-warning @+2 {{holds gpu ops and was not imported, so vyre schedules none of them}}
  // expected-remark @+1 {{function not imported: its gpu tokens are made or used outside its top block, or by an op other than a gpu host op}}
  func.func @token_through_loop(%h: memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %d = gpu.alloc () : memref<16xf32>
    // CHECK: gpu.memcpy %
    gpu.memcpy %d, %h : memref<16xf32>, memref<16xf32>
    %t = gpu.wait async
    %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%tok = %t) -> (!gpu.async.token) {
      %k = gpu.launch_func async [%tok] @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<16xf32>)
      scf.yield %k : !gpu.async.token
    }
    gpu.wait [%last]
    gpu.dealloc %d : memref<16xf32>
    return
  }
}
