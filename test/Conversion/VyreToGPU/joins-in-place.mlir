// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu | FileCheck %s
// RUN: vyre-opt %s --split-input-file --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null

// Tests that an op waiting for another stream's token continues its own
// stream, which waits for an event recorded right after that token's op (as
// upstream's gpu-to-llvm lowers a join), instead of a join that makes a new
// stream: a stream create saved per wait.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @kernel_waits_for_copy
// CHECK:         %[[T:.+]] = gpu.memcpy async
// CHECK-NEXT:    %[[TP:.+]] = builtin.unrealized_conversion_cast %[[T]]
// CHECK-NEXT:    %[[E:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[E]], %[[TP]])
// CHECK:         %[[M:.+]] = gpu.launch_func async
// CHECK-NEXT:    %[[MP:.+]] = builtin.unrealized_conversion_cast %[[M]]
// CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[MP]], %[[E]])
// CHECK-NEXT:    llvm.call @mgpuEventDestroy(%[[E]])
// CHECK-NEXT:    gpu.launch_func async [%[[M]]]
// CHECK-NOT:     gpu.wait async [
// CHECK:         return
func.func @kernel_waits_for_copy(%h: memref<16xf32> {llvm.noalias},
                                 %b: memref<16xf32> {llvm.noalias},
                                 %a: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.wait %t
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Where the main stream's token is named right after the wait (a record),
// that token must stand for the wait: a join, a new stream.
// CHECK-LABEL: func.func @record_after_wait
// CHECK:         %[[T:.+]] = gpu.memcpy async
// CHECK:         %[[M:.+]] = gpu.launch_func async
// CHECK-NEXT:    %[[J:.+]] = gpu.wait async [%[[M]], %[[T]]]
// CHECK-NEXT:    gpu.launch_func async [%[[J]]]
func.func @record_after_wait(%h: memref<16xf32> {llvm.noalias},
                             %b: memref<16xf32> {llvm.noalias},
                             %a: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.wait %t
  %r = vyre.record
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.sync %r
  return
}

// Where the op after the wait is a copy canonicalize may erase (into an
// allocation that nothing but the free uses), its token could not stand for
// the wait: a join, a new stream.
// CHECK-LABEL: func.func @erasable_copy_after_wait
// CHECK:         %[[T:.+]] = gpu.memcpy async
// CHECK:         %[[M:.+]] = gpu.launch_func async
// CHECK-NEXT:    %[[J:.+]] = gpu.wait async [%[[M]], %[[T]]]
// CHECK-NEXT:    gpu.memcpy async [%[[J]]]
func.func @erasable_copy_after_wait(%h: memref<16xf32> {llvm.noalias},
                                    %b: memref<16xf32> {llvm.noalias},
                                    %a: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %d = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.wait %t
  %u = vyre.copy_h2d_async %h to %d on stream 0 : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.dealloc %d : memref<16xf32>
  return
}

// A copy on a side stream that waits for a kernel (the kernel reads the
// copy's target) waits on its own stream too.
// CHECK-LABEL: func.func @copy_waits_for_kernel
// CHECK:         %[[T1:.+]] = gpu.memcpy async
// CHECK-NEXT:    %[[T1P:.+]] = builtin.unrealized_conversion_cast %[[T1]]
// CHECK:         %[[M:.+]] = gpu.launch_func async
// CHECK-NEXT:    %[[MP:.+]] = builtin.unrealized_conversion_cast %[[M]]
// CHECK-NEXT:    %[[E:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[E]], %[[MP]])
// CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[T1P]], %[[E]])
// CHECK-NEXT:    llvm.call @mgpuEventDestroy(%[[E]])
// CHECK-NEXT:    gpu.memcpy async [%[[T1]]]
func.func @copy_waits_for_kernel(%h: memref<16xf32> {llvm.noalias},
                                 %a: memref<16xf32> {llvm.noalias},
                                 %b: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %t1 = vyre.copy_h2d_async %h to %b on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  %r = vyre.record
  %t2 = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
  vyre.wait %t1, %t2
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  return
}

// -----

// Tests that the event before a chained loop is recorded on the main stream
// after it waits, in place, for the copy it was to wait for next: no stream
// is made to record it.
gpu.module @k {
  gpu.func @scale(%x: memref<16xf32>) kernel {
    gpu.return
  }
}
// CHECK-LABEL: func.func @event_before_loop
// CHECK:         %[[T:.+]] = gpu.memcpy async
// CHECK-NEXT:    %[[TP:.+]] = builtin.unrealized_conversion_cast %[[T]]
// CHECK:         %[[M:.+]] = gpu.launch_func async
// CHECK-NEXT:    %[[MP:.+]] = builtin.unrealized_conversion_cast %[[M]]
// CHECK-NEXT:    %[[START:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:    %[[E:.+]] = llvm.call @mgpuEventCreate()
// CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[E]], %[[TP]])
// CHECK-NEXT:    llvm.call @mgpuStreamWaitEvent(%[[MP]], %[[E]])
// CHECK-NEXT:    llvm.call @mgpuEventDestroy(%[[E]])
// CHECK-NEXT:    llvm.call @mgpuEventRecord(%[[START]], %[[MP]])
// CHECK-NEXT:    scf.for {{.*}} iter_args(%{{.+}} = %[[START]])
func.func @event_before_loop(%h: memref<16xf32> {llvm.noalias},
                             %a: memref<16xf32> {llvm.noalias},
                             %b: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.wait %t
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}
