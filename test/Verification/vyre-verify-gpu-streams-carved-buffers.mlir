// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams

// The lowering allocates buffers allocated and freed together as one
// gpu.alloc of bytes, and carves each out of it with a memref.view at a
// constant offset (docs/Lowering.md). The referee tells their bytes apart:
// a copy into one buffer beside a kernel on another is no race, and a free
// of the allocation still comes after every use of each.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @apart(%h: memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %s = gpu.wait async
    %bytes, %a = gpu.alloc async [%s] () : memref<320xi8>
    %x = memref.view %bytes[%c0][] : memref<320xi8> to memref<16xf32>
    %y = memref.view %bytes[%c256][] : memref<320xi8> to memref<16xf32>
    %side = gpu.wait async [%a]
    %t = gpu.memcpy async [%side] %x, %h : memref<16xf32>, memref<16xf32>
    %k = gpu.launch_func async [%a] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<16xf32>)
    %j = gpu.wait async [%k, %t]
    %f = gpu.dealloc async [%j] %bytes : memref<320xi8>
    gpu.wait [%f, %k, %t]
    return
  }
}

// -----

// Views whose bytes meet (the second starts 32 bytes into the first): the
// same copy and kernel race.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @overlapping(%h: memref<16xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %s = gpu.wait async
    %bytes, %a = gpu.alloc async [%s] () : memref<320xi8>
    %x = memref.view %bytes[%c0][] : memref<320xi8> to memref<16xf32>
    %y = memref.view %bytes[%c32][] : memref<320xi8> to memref<16xf32>
    %side = gpu.wait async [%a]
    // expected-note @+1 {{the earlier op}}
    %t = gpu.memcpy async [%side] %x, %h : memref<16xf32>, memref<16xf32>
    // expected-error @+1 {{race on the buffer of 'gpu.alloc': 'gpu.launch_func' and the earlier 'gpu.memcpy' are not ordered}}
    %k = gpu.launch_func async [%a] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<16xf32>)
    %j = gpu.wait async [%k, %t]
    %f = gpu.dealloc async [%j] %bytes : memref<320xi8>
    gpu.wait [%f, %k, %t]
    return
  }
}

// -----

// A free of the allocation before a kernel on one of its buffers is done:
// a use after free, whichever bytes the kernel touches.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @freed_early() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %s = gpu.wait async
    %bytes, %a = gpu.alloc async [%s] () : memref<320xi8>
    %y = memref.view %bytes[%c256][] : memref<320xi8> to memref<16xf32>
    %side = gpu.wait async [%a]
    // expected-note @+1 {{the earlier op}}
    %k = gpu.launch_func async [%side] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<16xf32>)
    // expected-error @+1 {{race on the buffer of 'gpu.alloc'}}
    %f = gpu.dealloc async [%a] %bytes : memref<320xi8>
    gpu.wait [%f, %k]
    return
  }
}

// -----

// A view at an offset the referee cannot read (a dynamic one) may touch any
// byte of the allocation: the same copy and kernel race.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @dynamic_offset(%h: memref<16xf32> {llvm.noalias}, %o: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %bytes, %a = gpu.alloc async [%s] () : memref<320xi8>
    %x = memref.view %bytes[%c0][] : memref<320xi8> to memref<16xf32>
    %y = memref.view %bytes[%o][] : memref<320xi8> to memref<16xf32>
    %side = gpu.wait async [%a]
    // expected-note @+1 {{the earlier op}}
    %t = gpu.memcpy async [%side] %x, %h : memref<16xf32>, memref<16xf32>
    // expected-error @+1 {{race on the buffer of 'gpu.alloc': 'gpu.launch_func' and the earlier 'gpu.memcpy' are not ordered}}
    %k = gpu.launch_func async [%a] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<16xf32>)
    %j = gpu.wait async [%k, %t]
    %f = gpu.dealloc async [%j] %bytes : memref<320xi8>
    gpu.wait [%f, %k, %t]
    return
  }
}

// -----

// A view of a buffer whose elements are the buffer's (a reinterpret_cast as
// a 4 x 4 matrix) stays within its bytes; one that reaches past them (32
// elements of a buffer of 16) may touch the next buffer, and races with
// the kernel on it.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @reinterpreted(%h: memref<4x4xf32> {llvm.noalias}, %w: memref<32xf32> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %s = gpu.wait async
    %bytes, %a = gpu.alloc async [%s] () : memref<320xi8>
    %x = memref.view %bytes[%c0][] : memref<320xi8> to memref<16xf32>
    %y = memref.view %bytes[%c64][] : memref<320xi8> to memref<16xf32>
    %square = memref.reinterpret_cast %x to offset: [0], sizes: [4, 4], strides: [4, 1] : memref<16xf32> to memref<4x4xf32>
    %wide = memref.reinterpret_cast %x to offset: [0], sizes: [32], strides: [1] : memref<16xf32> to memref<32xf32>
    %side = gpu.wait async [%a]
    %t = gpu.memcpy async [%side] %square, %h : memref<4x4xf32>, memref<4x4xf32>
    %k = gpu.launch_func async [%a] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<16xf32>)
    %j = gpu.wait async [%k, %t]
    // expected-note @+1 {{the earlier op}}
    %t2 = gpu.memcpy async [%j] %wide, %w : memref<32xf32>, memref<32xf32>
    %side2 = gpu.wait async [%j, %j]
    // expected-error @+1 {{race on the buffer of 'gpu.alloc': 'gpu.launch_func' and the earlier 'gpu.memcpy' are not ordered}}
    %k2 = gpu.launch_func async [%side2] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<16xf32>)
    %j2 = gpu.wait async [%k2, %t2]
    %f = gpu.dealloc async [%j2] %bytes : memref<320xi8>
    gpu.wait [%f, %k2, %t2, %k, %t]
    return
  }
}

// -----

// Bytes of the allocation named otherwise than through a memref.view at a
// constant offset (a reinterpret_cast of the whole): the referee cannot
// place them, and takes them for any byte.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @write(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @unplaced(%h: memref<16xf32> {llvm.noalias}, %hb: memref<16xi8> {llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %s = gpu.wait async
    %bytes, %a = gpu.alloc async [%s] () : memref<320xi8>
    %x = memref.view %bytes[%c128][] : memref<320xi8> to memref<16xf32>
    %y = memref.view %bytes[%c0][] : memref<320xi8> to memref<16xf32>
    %z = memref.reinterpret_cast %bytes to offset: [256], sizes: [16], strides: [1] : memref<320xi8> to memref<16xi8, strided<[1], offset: 256>>
    %side = gpu.wait async [%a]
    // expected-note @+1 {{the earlier op}}
    %t = gpu.memcpy async [%side] %x, %h : memref<16xf32>, memref<16xf32>
    // Bytes 0..63 beside the copy's 128..191: no race.
    %k = gpu.launch_func async [%a] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<16xf32>)
    // expected-error @+1 {{race on the buffer of 'gpu.alloc': 'gpu.memcpy' and the earlier 'gpu.memcpy' are not ordered}}
    %m = gpu.memcpy async [%k] %hb, %z : memref<16xi8>, memref<16xi8, strided<[1], offset: 256>>
    %j = gpu.wait async [%m, %t]
    %f = gpu.dealloc async [%j] %bytes : memref<320xi8>
    gpu.wait [%f, %m, %t]
    return
  }
}
