// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-async-in-place | FileCheck %s
// Both referees accept every output: the vyre schedule, and the gpu dialect
// it lowers to.
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-async-in-place --vyre-verify-schedule --convert-vyre-to-gpu=keep-effects=true --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-async-in-place=wait-before-any-effect=true --vyre-verify-schedule --convert-vyre-to-gpu=keep-effects=true --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-async-in-place=wait-before-any-effect=true | FileCheck %s --check-prefix=UPSTREAM
// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-async-in-place --remarks-filter=async-in-place -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Copies that run on the main stream stop making the host wait after each;
// the host waits only before what touches their buffers.

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that the host waits for a copy into the host before it reads the
// destination, and not before it reads another buffer: the kernel after the
// copy is issued before the wait. (The function has no asynchronous op:
// as lowered, its host would wait for all the main stream's work before a
// host op that may touch it, so the kernel counts too; the wait is on the
// main stream's progress after it, which a blocking wait on the stream
// waits for anyway.)
// CHECK-LABEL: func.func @read_back
// CHECK:      vyre.copy_d2h_async %{{.+}} to %arg0 on stream 0 :
// CHECK-NEXT: vyre.dispatch @k::@read
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: memref.load %arg1[
// CHECK-NEXT: vyre.sync %[[R]]
// CHECK-NEXT: memref.load %arg0[
// REMARK: Function=read_back | Remark="copy stays on the main stream, and the host goes on: it waits for the copy before 'memref.load'"
// UPSTREAM-LABEL: func.func @read_back
// UPSTREAM:      vyre.dispatch @k::@read
// UPSTREAM-NEXT: %[[R:.+]] = vyre.record
// UPSTREAM-NEXT: vyre.sync %[[R]]
// UPSTREAM-NEXT: memref.load
func.func @read_back(%out: memref<16xf32> {llvm.noalias}, %other: memref<16xf32> {llvm.noalias}) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  %x = memref.load %other[%c0] : memref<16xf32>
  %y = memref.load %out[%c0] : memref<16xf32>
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// -----

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that the host waits for a copy into the device before it writes the
// source, and not before it reads it; nothing waits before the return, which
// waits for the main stream.
// CHECK-LABEL: func.func @refill_source
// CHECK:      vyre.copy_h2d_async %arg0 to %{{.+}} on stream 0 :
// CHECK-NEXT: vyre.dispatch @k::@read
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: memref.load %arg0[
// CHECK-NEXT: vyre.sync %[[R]]
// CHECK-NEXT: memref.store %{{.+}}, %arg0[
// CHECK-NEXT: return
// CHECK-LABEL: func.func @nothing_touches
// CHECK:      vyre.copy_h2d_async %{{.+}} on stream 0 :
// CHECK-NOT:  vyre.sync
// CHECK:      return
// REMARK: Function=nothing_touches | Remark="copy stays on the main stream, and the host goes on: it waits for the copy at the function's return"
func.func @refill_source(%in: memref<16xf32> {llvm.noalias}, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %in to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  %x = memref.load %in[%c0] : memref<16xf32>
  memref.store %v, %in[%c0] : memref<16xf32>
  return %x : f32
}

func.func @nothing_touches(%in: memref<16xf32> {llvm.noalias}, %other: memref<16xf32> {llvm.noalias}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %in to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  memref.store %v, %other[%c0] : memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests that the host still waits for what a copy it used to wait for
// covered: here a copy on a side stream, which the main stream waited for
// before the copy back. The host write of that copy's source needs it done;
// a write of another buffer does not.
// CHECK-LABEL: func.func @covered_side_copy
// CHECK:      vyre.wait
// CHECK-NEXT: vyre.dispatch @k::@read
// CHECK-NEXT: %[[T:.+]] = vyre.copy_d2h_async %{{.+}} on stream 0 :
// CHECK-NEXT: memref.store %{{.+}}, %arg2[
// CHECK-NEXT: vyre.sync %[[T]]
// CHECK-NEXT: memref.store %{{.+}}, %arg0[
func.func @covered_side_copy(%in: memref<16xf32> {llvm.noalias, vyre.pinned}, %out: memref<16xf32> {llvm.noalias},
                             %other: memref<16xf32> {llvm.noalias}, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %in to %a on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.wait %t
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  memref.store %v, %other[%c0] : memref<16xf32>
  memref.store %v, %in[%c0] : memref<16xf32>
  return
}

// Tests that a copy on a side stream after a copy back that it conflicts
// with depends on it (the host used to issue it once the copy back was
// done); one that conflicts with nothing the copy back covered does not.
// CHECK-LABEL: func.func @side_copy_after
// CHECK:      %[[T:.+]] = vyre.copy_d2h_async %{{.+}} to %arg0 on stream 0 :
// CHECK-NEXT: vyre.copy_h2d_async %arg0 to %{{.+}} on stream 1 after [%[[T]]] :
// CHECK-NEXT: vyre.copy_h2d_async %{{.+}} to %{{.+}} on stream 1 :
func.func @side_copy_after(%out: memref<16xf32> {llvm.noalias, vyre.pinned}, %in: memref<16xf32> {llvm.noalias, vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %b = vyre.alloc : memref<16xf32>
  %c = vyre.alloc : memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  %t1 = vyre.copy_h2d_async %out to %b on stream 1 : memref<16xf32> to memref<16xf32>
  %t2 = vyre.copy_h2d_async %in to %c on stream 1 : memref<16xf32> to memref<16xf32>
  vyre.wait %t1, %t2
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<16xf32>)
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%c : memref<16xf32>)
  return
}

// -----

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests a loop whose body fills a staging buffer on the host, then copies
// it in: the fill of the next iteration waits for the copy of this one, on
// a record at the top of the body. The loop that only copies in gets no
// wait and no record.
// CHECK-LABEL: func.func @staging_loop
// CHECK:      scf.for
// CHECK-NEXT:   %[[R:.+]] = vyre.record
// CHECK-NEXT:   vyre.sync %[[R]]
// CHECK-NEXT:   memref.store
// CHECK-NEXT:   vyre.copy_h2d_async %{{.+}} on stream 0 :
// CHECK-NEXT:   vyre.dispatch
// CHECK-NEXT: }
// CHECK-LABEL: func.func @copy_loop
// CHECK:      scf.for
// CHECK-NEXT:   memref.subview
// CHECK-NEXT:   vyre.copy_h2d_async %{{.+}} on stream 0 :
// CHECK-NEXT:   vyre.dispatch
// CHECK-NEXT: }
// CHECK-NOT:  vyre.sync
// CHECK:      return
// REMARK: Function=staging_loop | Remark="copy stays on the main stream, and the host goes on: nothing in the copy's block makes it wait for the copy"
func.func @staging_loop(%staging: memref<16xf32> {llvm.noalias}, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %staging[%c0] : memref<16xf32>
    vyre.copy_h2d %staging to %a : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}

func.func @copy_loop(%in: memref<4x16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    %row = memref.subview %in[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_h2d %row to %a : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32>
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  }
  return
}

// -----

gpu.module @k {
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests copies back in a loop and in one branch of an scf.if: a host read
// after the op waits on a record just after it, which covers every run of
// the copies inside; a read of another buffer does not wait.
// CHECK-LABEL: func.func @after_the_loop
// CHECK:      scf.for
// CHECK:        vyre.copy_d2h_async %{{.+}} on stream 0 :
// CHECK:      }
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: memref.load %arg1[
// CHECK-NEXT: vyre.sync %[[R]]
// CHECK-NEXT: memref.load
// CHECK-LABEL: func.func @after_the_branch
// CHECK:      scf.if
// CHECK-NEXT:   vyre.dispatch
// CHECK-NEXT:   vyre.copy_d2h_async %{{.+}} on stream 0 :
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: vyre.sync %[[R]]
// CHECK-NEXT: memref.load
// UPSTREAM-LABEL: func.func @after_the_loop
// UPSTREAM:      vyre.copy_d2h_async %{{.+}} on stream 0 :
// UPSTREAM-NEXT: %[[R:.+]] = vyre.record
// UPSTREAM-NEXT: vyre.sync %[[R]]
// UPSTREAM-NEXT: }
func.func @after_the_loop(%out: memref<4x16xf32> {llvm.noalias}, %other: memref<16xf32> {llvm.noalias}, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    %row = memref.subview %out[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    vyre.copy_d2h %a to %row : memref<16xf32> to memref<16xf32, strided<[1], offset: ?>>
  }
  %x = memref.load %other[%c0] : memref<16xf32>
  %y = memref.load %out[%c0, %c0] : memref<4x16xf32>
  %s = arith.addf %x, %y : f32
  return %s : f32
}

func.func @after_the_branch(%out: memref<16xf32> {llvm.noalias}, %cond: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.if %cond {
    vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
    vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  }
  %y = memref.load %out[%c0] : memref<16xf32>
  return %y : f32
}

// -----

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

func.func private @opaque()
func.func private @pure() attributes {vyre.effects = "none"}

// Tests that a call of unknown effect waits for the copy, and a call known
// to touch no memory does not.
// CHECK-LABEL: func.func @calls
// CHECK:      %[[T:.+]] = vyre.copy_h2d_async %{{.+}} on stream 0 :
// CHECK-NEXT: call @pure()
// CHECK-NEXT: vyre.sync %[[T]]
// CHECK-NEXT: call @opaque()
func.func @calls(%in: memref<16xf32> {llvm.noalias}) {
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %in to %a : memref<16xf32> to memref<16xf32>
  call @pure() : () -> ()
  call @opaque() : () -> ()
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

// Tests that two arguments without llvm.noalias may alias: writing one
// waits for a copy that reads the other.
// CHECK-LABEL: func.func @may_alias
// CHECK:      %[[T:.+]] = vyre.copy_h2d_async %{{.+}} on stream 0 :
// CHECK-NEXT: vyre.sync %[[T]]
// CHECK-NEXT: memref.store
func.func @may_alias(%in: memref<16xf32>, %other: memref<16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %in to %a : memref<16xf32> to memref<16xf32>
  memref.store %v, %other[%c0] : memref<16xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @write(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    memref.store %z, %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests a function without asynchronous ops (not scheduled): as lowered,
// the host waits for the main stream before each host op that may touch
// memory, so a kernel that writes an argument is waited for before the host
// reads it, even though no copy covers that kernel; a read of another
// buffer waits for nothing.
// CHECK-LABEL: func.func @sequential_kernel
// CHECK:      vyre.dispatch @k::@write
// CHECK-NEXT: %[[R:.+]] = vyre.record
// CHECK-NEXT: memref.load %arg1[
// CHECK-NEXT: vyre.sync %[[R]]
// CHECK-NEXT: memref.load %arg0[
func.func @sequential_kernel(%out: memref<16xf32> {llvm.noalias}, %other: memref<16xf32> {llvm.noalias},
                             %in: memref<16xf32> {llvm.noalias}) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %in to %a : memref<16xf32> to memref<16xf32>
  vyre.dispatch @k::@write blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%out : memref<16xf32>)
  %x = memref.load %other[%c0] : memref<16xf32>
  %y = memref.load %out[%c0] : memref<16xf32>
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// Tests that registering a buffer a copy reads waits for the copy (it
// counts as a write of the buffer, and of the slot an argument may be).
// CHECK-LABEL: func.func @register_after_copy
// CHECK:      %[[T:.+]] = vyre.copy_h2d_async %arg0 to %{{.+}} on stream 0 :
// CHECK-NEXT: memref.cast
// CHECK-NEXT: vyre.sync %[[T]]
// CHECK-NEXT: gpu.host_register
func.func @register_after_copy(%in: memref<16xf32>) {
  %a = vyre.alloc : memref<16xf32>
  vyre.copy_h2d %in to %a : memref<16xf32> to memref<16xf32>
  %u = memref.cast %in : memref<16xf32> to memref<*xf32>
  gpu.host_register %u : memref<*xf32>
  return
}

// -----

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

// Tests a wait of the main stream, inside a branch, for a copy on a side
// stream issued before it: a copy back after the branch covers that copy too,
// so the host waits for it before it writes the side copy's source.
// CHECK-LABEL: func.func @wait_inside_a_branch
// CHECK:      scf.if
// CHECK:      } else {
// CHECK:      }
// CHECK-NEXT: %[[T:.+]] = vyre.copy_d2h_async %{{.+}} on stream 0 :
// CHECK-NEXT: vyre.sync %{{.+}}
// CHECK-NEXT: memref.store %{{.+}}, %arg0[
func.func @wait_inside_a_branch(%in: memref<16xf32> {llvm.noalias, vyre.pinned}, %out: memref<16xf32> {llvm.noalias},
                                %cond: i1, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %in to %a on stream 1 : memref<16xf32> to memref<16xf32>
  scf.if %cond {
    vyre.wait %t
    vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  } else {
    vyre.wait %t
  }
  vyre.copy_d2h %a to %out : memref<16xf32> to memref<16xf32>
  memref.store %v, %in[%c0] : memref<16xf32>
  return
}
