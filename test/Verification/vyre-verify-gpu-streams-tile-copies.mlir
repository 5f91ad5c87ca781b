// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams

// Tests that a tile copy (vyreMemcpy2DAsync) is device work on the stream it
// is given, ordered as CUDA orders it: a kernel on another stream that waits
// for an event recorded after the call reads the copied tile without a race,
// and an op on the token cast from the pointer the call returns runs after
// the copy on its stream.
module attributes {gpu.container_module} {
  llvm.func @vyreMemcpy2DAsync(!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  gpu.module @k {
    gpu.func @read(%x: memref<4x32xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i, %i] : memref<4x32xf32>
      gpu.return
    }
  }
  func.func @ordered(%h: memref<4x64xf32>, %out: memref<4x64xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %pitch = arith.constant 256 : i64
    %row = arith.constant 128 : i64
    %rows = arith.constant 4 : i64
    %m = gpu.wait async
    %d, %ta = gpu.alloc async [%m] () : memref<4x32xf32>
    %s = gpu.wait async [%ta, %ta]
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    %tile = memref.subview %h[0, 32] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: 32>>
    %src = memref.extract_aligned_pointer_as_index %tile : memref<4x32xf32, strided<[64, 1], offset: 32>> -> index
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %tile : memref<4x32xf32, strided<[64, 1], offset: 32>> -> memref<f32>, index, index, index, index, index
    %offsetBytes = arith.muli %offset, %c4 : index
    %srcAddress = arith.addi %src, %offsetBytes : index
    %srcAddress64 = arith.index_cast %srcAddress : index to i64
    %srcPointer = llvm.inttoptr %srcAddress64 : i64 to !llvm.ptr
    %dst = memref.extract_aligned_pointer_as_index %d : memref<4x32xf32> -> index
    %dst64 = arith.index_cast %dst : index to i64
    %dstPointer = llvm.inttoptr %dst64 : i64 to !llvm.ptr
    %after = llvm.call @vyreMemcpy2DAsync(%dstPointer, %row, %srcPointer, %pitch, %row, %rows, %sp) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    %copied = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    llvm.call @mgpuEventRecord(%copied, %after) : (!llvm.ptr, !llvm.ptr) -> ()
    %mp = builtin.unrealized_conversion_cast %ta : !gpu.async.token to !llvm.ptr
    llvm.call @mgpuStreamWaitEvent(%mp, %copied) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%copied) : (!llvm.ptr) -> ()
    %k = gpu.launch_func async [%ta] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<4x32xf32>)
    %t = builtin.unrealized_conversion_cast %after : !llvm.ptr to !gpu.async.token
    %k2 = gpu.launch_func async [%t] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<4x32xf32>)
    %k2p = builtin.unrealized_conversion_cast %k2 : !gpu.async.token to !llvm.ptr
    llvm.call @mgpuStreamSynchronize(%k2p) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%k2p) : (!llvm.ptr) -> ()
    %f = gpu.dealloc async [%k] %d : memref<4x32xf32>
    gpu.wait [%f]
    return
  }
}

// -----

// Tests that a kernel that does not wait for the tile copy races with it.
module attributes {gpu.container_module} {
  llvm.func @vyreMemcpy2DAsync(!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  gpu.module @k {
    gpu.func @read(%x: memref<4x32xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i, %i] : memref<4x32xf32>
      gpu.return
    }
  }
  func.func @unordered(%h: memref<4x64xf32>, %out: memref<4x64xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %pitch = arith.constant 256 : i64
    %row = arith.constant 128 : i64
    %rows = arith.constant 4 : i64
    %m = gpu.wait async
    %d, %ta = gpu.alloc async [%m] () : memref<4x32xf32>
    %s = gpu.wait async [%ta, %ta]
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    %tile = memref.subview %h[0, 32] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: 32>>
    %src = memref.extract_aligned_pointer_as_index %tile : memref<4x32xf32, strided<[64, 1], offset: 32>> -> index
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %tile : memref<4x32xf32, strided<[64, 1], offset: 32>> -> memref<f32>, index, index, index, index, index
    %offsetBytes = arith.muli %offset, %c4 : index
    %srcAddress = arith.addi %src, %offsetBytes : index
    %srcAddress64 = arith.index_cast %srcAddress : index to i64
    %srcPointer = llvm.inttoptr %srcAddress64 : i64 to !llvm.ptr
    %dst = memref.extract_aligned_pointer_as_index %d : memref<4x32xf32> -> index
    %dst64 = arith.index_cast %dst : index to i64
    %dstPointer = llvm.inttoptr %dst64 : i64 to !llvm.ptr
    // expected-note @+1 {{the earlier op}}
    %after = llvm.call @vyreMemcpy2DAsync(%dstPointer, %row, %srcPointer, %pitch, %row, %rows, %sp) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    %copied = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    llvm.call @mgpuEventRecord(%copied, %after) : (!llvm.ptr, !llvm.ptr) -> ()
    %mp = builtin.unrealized_conversion_cast %ta : !gpu.async.token to !llvm.ptr
    llvm.call @mgpuEventDestroy(%copied) : (!llvm.ptr) -> ()
    // expected-error @+1 {{race on the buffer of 'gpu.alloc': 'gpu.launch_func' and the earlier 'llvm.call' are not ordered}}
    %k = gpu.launch_func async [%ta] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<4x32xf32>)
    %t = builtin.unrealized_conversion_cast %after : !llvm.ptr to !gpu.async.token
    %k2 = gpu.launch_func async [%t] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<4x32xf32>)
    %k2p = builtin.unrealized_conversion_cast %k2 : !gpu.async.token to !llvm.ptr
    llvm.call @mgpuStreamSynchronize(%k2p) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%k2p) : (!llvm.ptr) -> ()
    %f = gpu.dealloc async [%k] %d : memref<4x32xf32>
    gpu.wait [%f]
    return
  }
}

// -----

// Tests that a tile copy from a pointer the referee cannot trace to a view
// is refused.
module attributes {gpu.container_module} {
  llvm.func @vyreMemcpy2DAsync(!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuEventCreate() -> !llvm.ptr
  llvm.func @mgpuEventRecord(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuStreamWaitEvent(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuEventDestroy(!llvm.ptr)
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  gpu.module @k {
    gpu.func @read(%x: memref<4x32xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i, %i] : memref<4x32xf32>
      gpu.return
    }
  }
  func.func @untraced(%h: memref<4x64xf32>, %out: memref<4x64xf32>, %p: !llvm.ptr) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %pitch = arith.constant 256 : i64
    %row = arith.constant 128 : i64
    %rows = arith.constant 4 : i64
    %m = gpu.wait async
    %d, %ta = gpu.alloc async [%m] () : memref<4x32xf32>
    %s = gpu.wait async [%ta, %ta]
    %sp = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
    %tile = memref.subview %h[0, 32] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: 32>>
    %src = memref.extract_aligned_pointer_as_index %tile : memref<4x32xf32, strided<[64, 1], offset: 32>> -> index
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %tile : memref<4x32xf32, strided<[64, 1], offset: 32>> -> memref<f32>, index, index, index, index, index
    %offsetBytes = arith.muli %offset, %c4 : index
    %srcAddress = arith.addi %src, %offsetBytes : index
    %srcAddress64 = arith.index_cast %srcAddress : index to i64
    %srcPointer = llvm.inttoptr %srcAddress64 : i64 to !llvm.ptr
    %dst = memref.extract_aligned_pointer_as_index %d : memref<4x32xf32> -> index
    %dst64 = arith.index_cast %dst : index to i64
    %dstPointer = llvm.inttoptr %dst64 : i64 to !llvm.ptr
    // expected-error @+1 {{copies a tile from or to a pointer --vyre-verify-gpu-streams cannot trace to a memref's first element}}
    %after = llvm.call @vyreMemcpy2DAsync(%dstPointer, %row, %p, %pitch, %row, %rows, %sp) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    %copied = llvm.call @mgpuEventCreate() : () -> !llvm.ptr
    llvm.call @mgpuEventRecord(%copied, %after) : (!llvm.ptr, !llvm.ptr) -> ()
    %mp = builtin.unrealized_conversion_cast %ta : !gpu.async.token to !llvm.ptr
    llvm.call @mgpuStreamWaitEvent(%mp, %copied) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.call @mgpuEventDestroy(%copied) : (!llvm.ptr) -> ()
    %k = gpu.launch_func async [%ta] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<4x32xf32>)
    %t = builtin.unrealized_conversion_cast %after : !llvm.ptr to !gpu.async.token
    %k2 = gpu.launch_func async [%t] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : memref<4x32xf32>)
    %k2p = builtin.unrealized_conversion_cast %k2 : !gpu.async.token to !llvm.ptr
    llvm.call @mgpuStreamSynchronize(%k2p) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%k2p) : (!llvm.ptr) -> ()
    %f = gpu.dealloc async [%k] %d : memref<4x32xf32>
    gpu.wait [%f]
    return
  }
}

// -----

// Tests that tile copies on two streams into disjoint tiles of one host
// array (columns 0..31 and 32..63) do not race.
module attributes {gpu.container_module} {
  llvm.func @vyreMemcpy2DAsync(!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  func.func @two_tiles(%out: memref<4x64xf32> {llvm.noalias}, %d: memref<4x32xf32> {llvm.noalias}) {
    %c4 = arith.constant 4 : index
    %pitch = arith.constant 256 : i64
    %row = arith.constant 128 : i64
    %rows = arith.constant 4 : i64
    %left = memref.subview %out[0, 0] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1]>>
    %right = memref.subview %out[0, 32] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: 32>>
    %la = memref.extract_aligned_pointer_as_index %left : memref<4x32xf32, strided<[64, 1]>> -> index
    %lb, %lo, %ls:2, %lt:2 = memref.extract_strided_metadata %left : memref<4x32xf32, strided<[64, 1]>> -> memref<f32>, index, index, index, index, index
    %lm = arith.muli %lo, %c4 : index
    %lx = arith.addi %la, %lm : index
    %ly = arith.index_cast %lx : index to i64
    %l = llvm.inttoptr %ly : i64 to !llvm.ptr
    %ra = memref.extract_aligned_pointer_as_index %right : memref<4x32xf32, strided<[64, 1], offset: 32>> -> index
    %rb, %ro, %rs:2, %rt:2 = memref.extract_strided_metadata %right : memref<4x32xf32, strided<[64, 1], offset: 32>> -> memref<f32>, index, index, index, index, index
    %rm = arith.muli %ro, %c4 : index
    %rx = arith.addi %ra, %rm : index
    %ry = arith.index_cast %rx : index to i64
    %r = llvm.inttoptr %ry : i64 to !llvm.ptr
    %sa = memref.extract_aligned_pointer_as_index %d : memref<4x32xf32> -> index
    %sb, %so, %ss:2, %st:2 = memref.extract_strided_metadata %d : memref<4x32xf32> -> memref<f32>, index, index, index, index, index
    %sm = arith.muli %so, %c4 : index
    %sx = arith.addi %sa, %sm : index
    %sy = arith.index_cast %sx : index to i64
    %s = llvm.inttoptr %sy : i64 to !llvm.ptr
    %one = gpu.wait async
    %onep = builtin.unrealized_conversion_cast %one : !gpu.async.token to !llvm.ptr
    %two = gpu.wait async
    %twop = builtin.unrealized_conversion_cast %two : !gpu.async.token to !llvm.ptr
    %a = llvm.call @vyreMemcpy2DAsync(%l, %pitch, %s, %row, %row, %rows, %onep) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    %b = llvm.call @vyreMemcpy2DAsync(%r, %pitch, %s, %row, %row, %rows, %twop) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> ()
    return
  }
}

// -----

// Tests that tile copies on two streams into tiles that share columns
// (0..31 and 16..47) race.
module attributes {gpu.container_module} {
  llvm.func @vyreMemcpy2DAsync(!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  func.func @two_tiles(%out: memref<4x64xf32> {llvm.noalias}, %d: memref<4x32xf32> {llvm.noalias}) {
    %c4 = arith.constant 4 : index
    %pitch = arith.constant 256 : i64
    %row = arith.constant 128 : i64
    %rows = arith.constant 4 : i64
    %left = memref.subview %out[0, 0] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1]>>
    %right = memref.subview %out[0, 16] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: 16>>
    %la = memref.extract_aligned_pointer_as_index %left : memref<4x32xf32, strided<[64, 1]>> -> index
    %lb, %lo, %ls:2, %lt:2 = memref.extract_strided_metadata %left : memref<4x32xf32, strided<[64, 1]>> -> memref<f32>, index, index, index, index, index
    %lm = arith.muli %lo, %c4 : index
    %lx = arith.addi %la, %lm : index
    %ly = arith.index_cast %lx : index to i64
    %l = llvm.inttoptr %ly : i64 to !llvm.ptr
    %ra = memref.extract_aligned_pointer_as_index %right : memref<4x32xf32, strided<[64, 1], offset: 16>> -> index
    %rb, %ro, %rs:2, %rt:2 = memref.extract_strided_metadata %right : memref<4x32xf32, strided<[64, 1], offset: 16>> -> memref<f32>, index, index, index, index, index
    %rm = arith.muli %ro, %c4 : index
    %rx = arith.addi %ra, %rm : index
    %ry = arith.index_cast %rx : index to i64
    %r = llvm.inttoptr %ry : i64 to !llvm.ptr
    %sa = memref.extract_aligned_pointer_as_index %d : memref<4x32xf32> -> index
    %sb, %so, %ss:2, %st:2 = memref.extract_strided_metadata %d : memref<4x32xf32> -> memref<f32>, index, index, index, index, index
    %sm = arith.muli %so, %c4 : index
    %sx = arith.addi %sa, %sm : index
    %sy = arith.index_cast %sx : index to i64
    %s = llvm.inttoptr %sy : i64 to !llvm.ptr
    %one = gpu.wait async
    %onep = builtin.unrealized_conversion_cast %one : !gpu.async.token to !llvm.ptr
    %two = gpu.wait async
    %twop = builtin.unrealized_conversion_cast %two : !gpu.async.token to !llvm.ptr
    // expected-note @+1 {{the earlier op}}
    %a = llvm.call @vyreMemcpy2DAsync(%l, %pitch, %s, %row, %row, %rows, %onep) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    // expected-error @+1 {{race on argument #0: 'llvm.call' and the earlier 'llvm.call' are not ordered}}
    %b = llvm.call @vyreMemcpy2DAsync(%r, %pitch, %s, %row, %row, %rows, %twop) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamSynchronize(%b) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> ()
    return
  }
}

// -----

// Tests that a tile copy whose stream the host never waits for may still be
// running at the return.
module attributes {gpu.container_module} {
  llvm.func @vyreMemcpy2DAsync(!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
  func.func @unsynchronized(%out: memref<4x64xf32> {llvm.noalias}, %d: memref<4x32xf32> {llvm.noalias}) {
    %c4 = arith.constant 4 : index
    %pitch = arith.constant 256 : i64
    %row = arith.constant 128 : i64
    %rows = arith.constant 4 : i64
    %left = memref.subview %out[0, 0] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1]>>
    %right = memref.subview %out[0, 32] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1], offset: 32>>
    %la = memref.extract_aligned_pointer_as_index %left : memref<4x32xf32, strided<[64, 1]>> -> index
    %lb, %lo, %ls:2, %lt:2 = memref.extract_strided_metadata %left : memref<4x32xf32, strided<[64, 1]>> -> memref<f32>, index, index, index, index, index
    %lm = arith.muli %lo, %c4 : index
    %lx = arith.addi %la, %lm : index
    %ly = arith.index_cast %lx : index to i64
    %l = llvm.inttoptr %ly : i64 to !llvm.ptr
    %ra = memref.extract_aligned_pointer_as_index %right : memref<4x32xf32, strided<[64, 1], offset: 32>> -> index
    %rb, %ro, %rs:2, %rt:2 = memref.extract_strided_metadata %right : memref<4x32xf32, strided<[64, 1], offset: 32>> -> memref<f32>, index, index, index, index, index
    %rm = arith.muli %ro, %c4 : index
    %rx = arith.addi %ra, %rm : index
    %ry = arith.index_cast %rx : index to i64
    %r = llvm.inttoptr %ry : i64 to !llvm.ptr
    %sa = memref.extract_aligned_pointer_as_index %d : memref<4x32xf32> -> index
    %sb, %so, %ss:2, %st:2 = memref.extract_strided_metadata %d : memref<4x32xf32> -> memref<f32>, index, index, index, index, index
    %sm = arith.muli %so, %c4 : index
    %sx = arith.addi %sa, %sm : index
    %sy = arith.index_cast %sx : index to i64
    %s = llvm.inttoptr %sy : i64 to !llvm.ptr
    %one = gpu.wait async
    %onep = builtin.unrealized_conversion_cast %one : !gpu.async.token to !llvm.ptr
    %two = gpu.wait async
    %twop = builtin.unrealized_conversion_cast %two : !gpu.async.token to !llvm.ptr
    %a = llvm.call @vyreMemcpy2DAsync(%l, %pitch, %s, %row, %row, %rows, %onep) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    // expected-error @+1 {{may still be running at the return: no blocking gpu.wait synchronizes its stream after it}}
    %b = llvm.call @vyreMemcpy2DAsync(%r, %pitch, %s, %row, %row, %rows, %twop) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    llvm.call @mgpuStreamSynchronize(%a) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%a) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%b) : (!llvm.ptr) -> ()
    // expected-note @+1 {{the return}}
    return
  }
}

