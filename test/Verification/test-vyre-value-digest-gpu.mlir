// The value interpreter on gpu-dialect host code: what runs under each
// interleaving, and the faults it reports. A right program leaves one digest
// under every interleaving.
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=EAGER
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAZY
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="interleaving=eager" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.eager
// RUN: vyre-opt %s --split-input-file --test-vyre-value-digest="interleaving=lazy" --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.lazy
// RUN: cat %t.eager %t.lazy | FileCheck %s --check-prefix=CMP

// Eagerly, then lazily: @right leaves one digest, @read_before_wait two.
// CMP: remark: digest [[RIGHT:0x[0-9a-f]+]]
// CMP: remark: digest [[EARLY:0x[0-9a-f]+]]
// CMP: remark: digest [[RIGHT]]
// CMP-NOT: remark: digest [[EARLY]]
// CMP: remark: digest

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @copy(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<4xf32>
      memref.store %v, %y[%i] : memref<4xf32>
      gpu.return
    }
  }

  // A right program: the host waits for the copy back before it reads the
  // result; every interleaving leaves one digest.
  // EAGER: remark: digest
  // LAZY: remark: digest
  func.func @right(%in: memref<4xf32>, %out: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %t0 = gpu.wait async
    %x, %t1 = gpu.alloc async [%t0] () : memref<4xf32>
    %y, %t2 = gpu.alloc async [%t1] () : memref<4xf32>
    %t3 = gpu.memcpy async [%t2] %x, %in : memref<4xf32>, memref<4xf32>
    %t4 = gpu.launch_func async [%t3] @k::@copy blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%x : memref<4xf32>, %y : memref<4xf32>)
    %t5 = gpu.memcpy async [%t4] %out, %y : memref<4xf32>, memref<4xf32>
    %t6 = gpu.dealloc async [%t5] %x : memref<4xf32>
    %t7 = gpu.dealloc async [%t6] %y : memref<4xf32>
    gpu.wait [%t7]
    %v = memref.load %out[%c0] : memref<4xf32>
    memref.store %v, %out[%c1] : memref<4xf32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @copy(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<4xf32>
      memref.store %v, %y[%i] : memref<4xf32>
      gpu.return
    }
  }

  // The host reads the result before it waits for the copy back: run
  // eagerly it sees the copied value, run lazily the old one, and the caller
  // sees different values.
  // EAGER: remark: digest
  // LAZY: remark: digest
  func.func @read_before_wait(%in: memref<4xf32>, %out: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %t0 = gpu.wait async
    %x, %t1 = gpu.alloc async [%t0] () : memref<4xf32>
    %t3 = gpu.memcpy async [%t1] %x, %in : memref<4xf32>, memref<4xf32>
    %t5 = gpu.memcpy async [%t3] %out, %x : memref<4xf32>, memref<4xf32>
    %v = memref.load %out[%c0] : memref<4xf32>
    memref.store %v, %out[%c1] : memref<4xf32>
    %t6 = gpu.dealloc async [%t5] %x : memref<4xf32>
    gpu.wait [%t6]
    return
  }
}

// -----

module attributes {gpu.container_module} {
  // A copy the host never waits for: lazily, it is still queued at the
  // return.
  // EAGER: remark: digest
  // LAZY: remark: fault: device work is still queued at the return: 'gpu.memcpy'
  func.func @no_wait(%in: memref<4xf32>, %out: memref<4xf32>) {
    %t0 = gpu.wait async
    %t1 = gpu.memcpy async [%t0] %out, %in : memref<4xf32>, memref<4xf32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  // A buffer freed before a copy from it has run.
  // EAGER: remark: fault: 'gpu.memcpy' at {{.*}}: uses a buffer after it was freed
  func.func @use_after_free(%out: memref<4xf32>) {
    %t0 = gpu.wait async
    %x, %t1 = gpu.alloc async [%t0] () : memref<4xf32>
    %t2 = gpu.dealloc async [%t1] %x : memref<4xf32>
    %t3 = gpu.memcpy async [%t2] %out, %x : memref<4xf32>, memref<4xf32>
    gpu.wait [%t3]
    return
  }
}

// -----

module attributes {gpu.container_module} {
  // Joins: a new stream waits for each dependency's work up to the op that
  // made the token. A blocking wait on a stream already destroyed is a
  // fault.
  // EAGER: remark: fault: 'gpu.wait' at {{.*}}: waits for a stream that was destroyed
  func.func @destroyed_twice(%in: memref<4xf32>, %out: memref<4xf32>) {
    %t0 = gpu.wait async
    %t1 = gpu.memcpy async [%t0] %out, %in : memref<4xf32>, memref<4xf32>
    gpu.wait [%t1]
    gpu.wait [%t0]
    return
  }
}

// -----

// What the interpreter does not model is said, not guessed.
// EAGER: remark: no digest: 'memref.alloc' at {{.*}}: of dynamic shape or with a layout
func.func @dynamic(%n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  return
}
