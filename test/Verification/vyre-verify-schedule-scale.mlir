// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-verify-schedule=max-events=20 --verify-diagnostics
// RUN: not vyre-opt %s --split-input-file --vyre-kernel-access --vyre-verify-schedule=max-events=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not vyre-opt %s --split-input-file --vyre-to-gpu-pipeline="verify=true max-events=20" 2>&1 | FileCheck %s --check-prefix=PIPELINE

// Tests the bound on a trace's length: a loop body is checked over two
// iterations, so a nest of three loops around two ops holds 16 events. With
// max-events=20, three such nests in a row are refused at the third, by
// location (the error does not print the nest), before anything is
// unfolded; two are checked.

// The pipeline passes its max-events on to the referee.
// PIPELINE: error: '{{.*}}' op {{.*}} events, more than max-events=20 of --vyre-verify-schedule

// ZERO: error: max-events=0 of --vyre-verify-schedule: the bound on a trace's events must be at least 1

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

func.func @two_nests(%h: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.for %k = %c0 to %n step %c1 {
        vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
        vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.for %k = %c0 to %n step %c1 {
        vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
        vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
    }
  }
  return
}

func.func @three_nests(%h: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.for %k = %c0 to %n step %c1 {
        vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
        vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.for %k = %c0 to %n step %c1 {
        vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
        vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
    }
  }
  // expected-error @+1 {{'scf.for' op brings the trace to 28 events, more than max-events=20 of --vyre-verify-schedule (each loop body is checked over two iterations, the loops nested in the second over one)}}
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.for %k = %c0 to %n step %c1 {
        vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
        vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
      }
    }
  }
  return
}

func.func @deep_nest(%h: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // A nest of 10 loops: 11 copies of its body.
  // expected-error @+1 {{'scf.for' op unfolds to 22 events, more than max-events=20}}
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.for %k = %c0 to %n step %c1 {
        scf.for %l = %c0 to %n step %c1 {
          scf.for %m = %c0 to %n step %c1 {
            scf.for %i8 = %c0 to %n step %c1 {
              scf.for %o = %c0 to %n step %c1 {
                scf.for %p = %c0 to %n step %c1 {
                  scf.for %q = %c0 to %n step %c1 {
                    scf.for %r = %c0 to %n step %c1 {
                      vyre.copy_h2d %h to %a : memref<16xf32> to memref<16xf32>
                      vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return
}

// -----

// Tests the reports where the quick check over-approximates: a host read
// of a buffer of unknown origin is taken for a write to every buffer, so
// the quick check sees the copy still in flight; the pair-by-pair check
// finds that the two only read the host buffers, and that the copy's slot
// is not the global, so there is no race. The same read, as a write, races.

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}
memref.global "private" @table : memref<16xf32> = dense<0.0>

func.func @unknown_origin_read(%h: memref<16xf32> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  %g = memref.get_global @table : memref<16xf32>
  %v = memref.load %g[%c0] : memref<16xf32>
  vyre.wait %t
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}

func.func @unknown_origin_write(%h: memref<16xf32> {llvm.noalias}, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // expected-note @+1 {{the earlier op}}
  %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
  %g = memref.get_global @table : memref<16xf32>
  // expected-error @+1 {{race on slot 0: 'memref.store' and the earlier 'vyre.copy_h2d_async' are not ordered}}
  memref.store %x, %g[%c0] : memref<16xf32>
  vyre.wait %t
  vyre.dispatch @k::@read blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a : memref<16xf32>)
  return
}
