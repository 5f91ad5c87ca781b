// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --test-vyre-slot-access --verify-diagnostics

// Tests that loads are reads and stores are writes, per argument.
gpu.module @kernels {
  gpu.func @copy(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %in[%i] : memref<16xf32>
    memref.store %v, %out[%i] : memref<16xf32>
    gpu.return
  }
}
func.func @loads_and_stores() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{reads [0] writes [1]}}
  vyre.dispatch @kernels::@copy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>)
  // expected-remark @+1 {{reads [1] writes [0]}}
  vyre.dispatch @kernels::@copy blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %a : memref<16xf32>, memref<16xf32>)
  return
}

// -----

// Tests that an atomic read-modify-write is both a read and a write, next to
// a plain load that is only a read.
gpu.module @kernels {
  gpu.func @accumulate(%in: memref<16xf32>, %sum: memref<1xf32>) kernel {
    %i = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %v = memref.load %in[%i] : memref<16xf32>
    %old = memref.atomic_rmw addf %v, %sum[%c0] : (f32, memref<1xf32>) -> f32
    gpu.return
  }
}
func.func @atomics() {
  %c1 = arith.constant 1 : index
  %in = vyre.alloc : memref<16xf32>
  %sum = vyre.alloc : memref<1xf32>
  // expected-remark @+1 {{reads [0, 1] writes [1]}}
  vyre.dispatch @kernels::@accumulate blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%in, %sum : memref<16xf32>, memref<1xf32>)
  return
}

// -----

// Tests that views on the host resolve to their root slot.
gpu.module @kernels {
  gpu.func @fill(%out: memref<4xf32, strided<[1], offset: ?>>) kernel {
    %i = gpu.thread_id x
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %out[%i] : memref<4xf32, strided<[1], offset: ?>>
    gpu.return
  }
  gpu.func @read2d(%in: memref<2x8xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %in[%i, %i] : memref<2x8xf32>
    gpu.return
  }
}
func.func @host_views(%offset: index) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %view = memref.subview %b[%offset] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
  // expected-remark @+1 {{reads [] writes [1]}}
  vyre.dispatch @kernels::@fill blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%view : memref<4xf32, strided<[1], offset: ?>>)
  %shaped = memref.expand_shape %a [[0, 1]] output_shape [2, 8] : memref<16xf32> into memref<2x8xf32>
  // expected-remark @+1 {{reads [0] writes []}}
  vyre.dispatch @kernels::@read2d blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%shaped : memref<2x8xf32>)
  return
}

// -----

// Tests that views inside the kernel resolve to the argument, and that loops
// in the kernel are looked into.
gpu.module @kernels {
  gpu.func @windowed(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %window = memref.subview %in[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
    %flat = memref.cast %out : memref<16xf32> to memref<?xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %window[%i] : memref<4xf32, strided<[1], offset: 4>>
      memref.store %v, %flat[%i] : memref<?xf32>
    }
    gpu.return
  }
}
func.func @kernel_views() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{reads [0] writes [1]}}
  vyre.dispatch @kernels::@windowed blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>)
  return
}

// -----

// Tests that a kernel without a body and without an access list may read and
// write every memref argument, and that scalars are not slots.
gpu.module @kernels {
  func.func private @opaque(%x: memref<16xf32>, %n: i32, %y: memref<16xf32>) attributes {gpu.kernel}
}
func.func @opaque_callee(%n: i32) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{reads [0, 1] writes [0, 1]}}
  vyre.dispatch @kernels::@opaque blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %n, %b : memref<16xf32>, i32, memref<16xf32>)
  return
}

// -----

// Tests that an explicit access list decides for a kernel without a body, and
// can only add to what a body says.
gpu.module @kernels {
  func.func private @declared(%x: memref<16xf32>, %y: memref<16xf32>) attributes {gpu.kernel}
  gpu.func @reads_only(%x: memref<16xf32>, %y: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    %w = memref.load %y[%i] : memref<16xf32>
    gpu.return
  }
  gpu.func @writes_second(%x: memref<16xf32>, %y: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %y[%i] : memref<16xf32>
    gpu.return
  }
}
func.func @access_lists() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{reads [0] writes [1]}}
  vyre.dispatch @kernels::@declared blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>) access [read, write]
  // The list claims both are read; the body also reads both: exact.
  // expected-remark @+1 {{reads [0, 1] writes []}}
  vyre.dispatch @kernels::@reads_only blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>) access [read, read]
  // The list claims only reads, but the body writes %b: the body wins.
  // expected-remark @+1 {{reads [0, 1] writes [1]}}
  vyre.dispatch @kernels::@writes_second blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>) access [read, read]
  // `none` promises the bodiless kernel leaves %a alone.
  // expected-remark @+1 {{reads [] writes [1]}}
  vyre.dispatch @kernels::@declared blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>) access [none, write]
  // Without a list, the bodiless kernel may read and write both.
  // expected-remark @+1 {{reads [0, 1] writes [0, 1]}}
  vyre.dispatch @kernels::@declared blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>)
  return
}

// -----

// Tests that two function arguments may alias unless one is noalias, and that
// an allocation aliases no argument.
gpu.module @kernels {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}
func.func @aliasing_arguments(%x: memref<16xf32>, %y: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{reads [0, 1] writes []}}
  vyre.dispatch @kernels::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
  // expected-remark @+1 {{reads [2] writes []}}
  vyre.dispatch @kernels::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}
func.func @noalias_arguments(%x: memref<16xf32> {llvm.noalias}, %y: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{reads [0] writes []}}
  vyre.dispatch @kernels::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>)
  // expected-remark @+1 {{reads [1] writes []}}
  vyre.dispatch @kernels::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%y : memref<16xf32>)
  return
}

// -----

// Tests that one kernel dispatched many times gets each dispatch's own slots.
gpu.module @kernels {
  gpu.func @scale(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %in[%i] : memref<16xf32>
    %d = arith.addf %v, %v : f32
    memref.store %d, %out[%i] : memref<16xf32>
    gpu.return
  }
}
func.func @many_dispatches() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{reads [0] writes [1]}}
  vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>)
  // expected-remark @+1 {{reads [1] writes [2]}}
  vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %c : memref<16xf32>, memref<16xf32>)
  // expected-remark @+1 {{reads [2] writes [0]}}
  vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c, %a : memref<16xf32>, memref<16xf32>)
  // expected-remark @+1 {{reads [0] writes [0]}}
  vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %a : memref<16xf32>, memref<16xf32>)
  return
}

// -----

// Tests that an empty kernel, and one that only asks a buffer's size, access
// nothing.
gpu.module @kernels {
  gpu.func @empty(%x: memref<16xf32>) kernel {
    gpu.return
  }
  gpu.func @size_only(%x: memref<?xf32>, %n: memref<1xindex>) kernel {
    %c0 = arith.constant 0 : index
    %size = memref.dim %x, %c0 : memref<?xf32>
    memref.store %size, %n[%c0] : memref<1xindex>
    gpu.return
  }
}
func.func @empty_kernel(%size: index) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %d = vyre.alloc(%size) : memref<?xf32>
  %n = vyre.alloc : memref<1xindex>
  // expected-remark @+1 {{reads [] writes []}}
  vyre.dispatch @kernels::@empty blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  // expected-remark @+1 {{reads [] writes [2]}}
  vyre.dispatch @kernels::@size_only blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d, %n : memref<?xf32>, memref<1xindex>)
  return
}

// -----

// Tests that a kernel passing its argument to a call, or letting its address
// escape, may read and write it.
gpu.module @kernels {
  func.func @helper(%x: memref<16xf32>) {
    return
  }
  gpu.func @calls(%x: memref<16xf32>, %y: memref<16xf32>) kernel {
    func.call @helper(%x) : (memref<16xf32>) -> ()
    %i = gpu.thread_id x
    %v = memref.load %y[%i] : memref<16xf32>
    gpu.return
  }
  gpu.func @escapes(%x: memref<16xf32>) kernel {
    %address = memref.extract_aligned_pointer_as_index %x : memref<16xf32> -> index
    gpu.return
  }
}
func.func @calls_and_escapes() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{reads [0, 1] writes [0]}}
  vyre.dispatch @kernels::@calls blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>)
  // expected-remark @+1 {{reads [1] writes [1]}}
  vyre.dispatch @kernels::@escapes blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// -----

// Tests that vector and affine accesses are classified by their effects.
gpu.module @kernels {
  gpu.func @vectors(%x: memref<16xf32>, %y: memref<16xf32>, %z: memref<16xf32>) kernel {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f32
    %v = vector.transfer_read %x[%c0], %pad : memref<16xf32>, vector<4xf32>
    %w = affine.load %y[%c0] : memref<16xf32>
    vector.store %v, %z[%c0] : memref<16xf32>, vector<4xf32>
    gpu.return
  }
}
func.func @vector_and_affine() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{reads [0, 1] writes [2]}}
  vyre.dispatch @kernels::@vectors blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b, %c : memref<16xf32>, memref<16xf32>, memref<16xf32>)
  return
}

// -----

// Tests that a buffer whose root is not a slot may be any slot.
gpu.module @kernels {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}
func.func private @make_buffer() -> memref<16xf32>
func.func @unknown_root() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %unknown = func.call @make_buffer() : () -> memref<16xf32>
  // expected-remark @+1 {{reads [0, 1] writes []}}
  vyre.dispatch @kernels::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%unknown : memref<16xf32>)
  return
}

// -----

// Tests that a kernel with many workgroup and private attributions is judged
// by its parameters only: the attributions follow the parameters among the
// entry block's arguments, and must not be taken for them.
gpu.module @kernels {
  gpu.func @attributions(%in: memref<16xf32>, %out: memref<16xf32>)
      workgroup(%w0: memref<4xf32, #gpu.address_space<workgroup>>, %w1: memref<4xf32, #gpu.address_space<workgroup>>, %w2: memref<4xf32, #gpu.address_space<workgroup>>, %w3: memref<4xf32, #gpu.address_space<workgroup>>, %w4: memref<4xf32, #gpu.address_space<workgroup>>, %w5: memref<4xf32, #gpu.address_space<workgroup>>, %w6: memref<4xf32, #gpu.address_space<workgroup>>, %w7: memref<4xf32, #gpu.address_space<workgroup>>, %w8: memref<4xf32, #gpu.address_space<workgroup>>, %w9: memref<4xf32, #gpu.address_space<workgroup>>, %w10: memref<4xf32, #gpu.address_space<workgroup>>, %w11: memref<4xf32, #gpu.address_space<workgroup>>, %w12: memref<4xf32, #gpu.address_space<workgroup>>, %w13: memref<4xf32, #gpu.address_space<workgroup>>, %w14: memref<4xf32, #gpu.address_space<workgroup>>, %w15: memref<4xf32, #gpu.address_space<workgroup>>, %w16: memref<4xf32, #gpu.address_space<workgroup>>, %w17: memref<4xf32, #gpu.address_space<workgroup>>, %w18: memref<4xf32, #gpu.address_space<workgroup>>, %w19: memref<4xf32, #gpu.address_space<workgroup>>, %w20: memref<4xf32, #gpu.address_space<workgroup>>, %w21: memref<4xf32, #gpu.address_space<workgroup>>, %w22: memref<4xf32, #gpu.address_space<workgroup>>, %w23: memref<4xf32, #gpu.address_space<workgroup>>)
      private(%p: memref<4xf32, #gpu.address_space<private>>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %in[%i] : memref<16xf32>
    memref.store %v, %out[%i] : memref<16xf32>
    gpu.return
  }
}
func.func @many_attributions() {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  // expected-remark @+1 {{reads [0] writes [1]}}
  vyre.dispatch @kernels::@attributions blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %b : memref<16xf32>, memref<16xf32>)
  return
}
