// RUN: vyre-opt %s --split-input-file --vyre-gpu-async-pipeline | FileCheck %s
// RUN: vyre-opt %s --split-input-file --vyre-gpu-async-pipeline | mlir-opt --split-input-file --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | vyre-opt --split-input-file --test-vyre-stream-balance -o /dev/null

// Where the drop-in cannot tell which buffers a gpu op or a host op reaches,
// the host waits: the synchronous ops of a function left as written run on
// one stream that the host waits for only before an op that may need their
// work, and a host wait for one explicit token synchronizes its stream only
// where nothing may have destroyed it.

// Tests that a buffer chosen by a select may be either allocation: the
// host waits for the copy into it before it reads one of them.
// CHECK-LABEL: func.func @select_of_allocations
// CHECK:      %[[C:.+]] = gpu.memcpy async
// CHECK-NEXT: gpu.wait [%[[C]]]
// CHECK-NEXT: memref.load
module attributes {gpu.container_module} {
  func.func @select_of_allocations(%c: i1) -> f32 {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %a = memref.alloc () : memref<64xf32>
    %b = memref.alloc () : memref<64xf32>
    %sel = arith.select %c, %a, %b : memref<64xf32>
    %s = gpu.wait async
    gpu.wait [%s]
    %d = gpu.alloc () : memref<64xf32>
    gpu.memset %d, %zero : memref<64xf32>, f32
    gpu.memcpy %sel, %d : memref<64xf32>, memref<64xf32>
    %v = memref.load %a[%c0] : memref<64xf32>
    gpu.dealloc %d : memref<64xf32>
    memref.dealloc %a : memref<64xf32>
    memref.dealloc %b : memref<64xf32>
    return %v : f32
  }
}

// -----

// Tests that a kernel given an address taken from a buffer (not the memref)
// may touch that buffer: it is issued after the memset into it.
// CHECK-LABEL: func.func @address_argument
// CHECK:      %[[M:.+]] = gpu.memset async
// CHECK:      gpu.wait [%[[M]]]
// CHECK-NEXT: gpu.launch_func async
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @inc(%p: index) kernel {
      %i = arith.index_cast %p : index to i64
      %ptr = llvm.inttoptr %i : i64 to !llvm.ptr<1>
      %v = llvm.load %ptr : !llvm.ptr<1> -> f32
      %w = arith.addf %v, %v : f32
      llvm.store %w, %ptr : f32, !llvm.ptr<1>
      gpu.return
    }
  }
  func.func @address_argument(%h: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    %d = gpu.alloc () : memref<64xf32>
    gpu.memset %d, %one : memref<64xf32>, f32
    %p = memref.extract_aligned_pointer_as_index %d : memref<64xf32> -> index
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @k::@inc blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%p : index)
    gpu.wait [%t]
    gpu.memcpy %h, %d : memref<64xf32>, memref<64xf32>
    gpu.dealloc %d : memref<64xf32>
    return
  }
}

// -----

// Tests that a token whose stream a blocking wait in a branch may have
// destroyed is waited for through the join (events recorded after its op),
// not by synchronizing its stream.
// CHECK-LABEL: func.func @destroyed_in_branch
// CHECK:      scf.if
// CHECK:      %[[J:.+]] = gpu.wait async [%[[T:.+]], %[[T]]]
// CHECK-NEXT: gpu.wait [%[[J]]]
// CHECK-NOT:  mgpuStreamSynchronize
module attributes {gpu.container_module} {
  func.func private @use(memref<64xf32>)
  func.func @destroyed_in_branch(%c: i1, %h: memref<64xf32>) {
    %d = gpu.alloc () : memref<64xf32>
    %s = gpu.wait async
    %t = gpu.memcpy async [%s] %d, %h : memref<64xf32>, memref<64xf32>
    scf.if %c {
      gpu.wait [%t]
    } else {
      gpu.wait [%t]
    }
    gpu.memcpy %h, %d : memref<64xf32>, memref<64xf32>
    gpu.dealloc %d : memref<64xf32>
    return
  }
}

// -----

// Tests that sparse handles may reach any buffer: the host waits for the
// SpMV before it reads the vector the handle wraps.
// CHECK-LABEL: func.func @sparse_handles
// CHECK:      %[[S:.+]] = gpu.spmv async
// CHECK-NEXT: gpu.wait [%[[S]]]
// CHECK-NEXT: memref.load
module attributes {gpu.container_module} {
  func.func private @log()
  func.func @sparse_handles(%n: index, %rows: memref<?xindex>, %cols: memref<?xindex>, %vals: memref<?xf64>, %x: memref<?xf64>) -> f64 {
    %c0 = arith.constant 0 : index
    %y = gpu.alloc host_shared (%n) : memref<?xf64>
    %spmat = gpu.create_coo %n, %n, %n, %rows, %cols, %vals : memref<?xindex>, memref<?xindex>, memref<?xf64>
    %dnx = gpu.create_dn_tensor %x, %n : index into memref<?xf64>
    %dny = gpu.create_dn_tensor %y, %n : index into memref<?xf64>
    func.call @log() : () -> ()
    %bufsz = gpu.spmv_buffer_size %spmat, %dnx, %dny into f64
    %buf = gpu.alloc (%bufsz) : memref<?xi8>
    gpu.spmv %spmat, %dnx, %dny, %buf : memref<?xi8> into f64
    %v = memref.load %y[%c0] : memref<?xf64>
    gpu.destroy_sp_mat %spmat
    gpu.destroy_dn_tensor %dnx
    gpu.destroy_dn_tensor %dny
    gpu.dealloc %buf : memref<?xi8>
    gpu.dealloc %y : memref<?xf64>
    return %v : f64
  }
}
