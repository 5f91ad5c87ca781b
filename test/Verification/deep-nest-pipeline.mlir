// RUN: vyre-opt %s --vyre-kernel-access --vyre-function-effects --vyre-pipeline-loops --overlap-copies --vyre-verify-schedule | FileCheck %s --check-prefix=SCHEDULE
// RUN: vyre-opt %s --vyre-to-gpu-pipeline | FileCheck %s
// RUN: vyre-opt %s --vyre-to-gpu-pipeline | FileCheck %s --check-prefix=CHAINED
// RUN: vyre-opt %s --vyre-to-gpu-pipeline=verify=true 2>&1 | FileCheck %s --check-prefix=GPU

// Tests the referees on a nest of 20 loops, each level with a copy and a
// launch, through the default passes: --vyre-pipeline-loops pipelines the
// loops (198 of them come out: two loops whose copies moved out have their
// first iteration, inner loops included, written out in front of them),
// --overlap-copies makes the copies async, and the schedule referee checks the result at once: it holds two
// iterations of each loop and one of each loop nested in a second
// iteration, where two of every loop would be 2^20 bodies. At the gpu
// level, where the lowering chains every loop with an event it makes anew
// in each iteration, the referee runs two iterations of a loop's first run
// and one of each later run that repeats it (docs/Verification.md says why
// that is sound), and checks the whole nest in a fraction of a second.

// SCHEDULE: vyre.copy_h2d_async

// CHECK-COUNT-20: scf.for {{.*}} iter_args({{.*}}) -> (!llvm.ptr)
// Every loop is chained:
// CHAINED-NOT: step %c1 {

// GPU-NOT: error
// GPU: gpu.launch_func async

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%x: memref<256xf32>, %y: memref<256xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<256xf32>
      memref.store %v, %y[%i] : memref<256xf32>
      gpu.return
    }
  }
  func.func @nest(%h0: memref<256xf32> {vyre.pinned, llvm.noalias}, %h1: memref<256xf32> {vyre.pinned, llvm.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %a = vyre.alloc : memref<256xf32>
    %b = vyre.alloc : memref<256xf32>
    %out = vyre.alloc : memref<256xf32>
    vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
    scf.for %i0 = %c0 to %c3 step %c1 {
      vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
      vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
      scf.for %i1 = %c0 to %c3 step %c1 {
        vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
        vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
        scf.for %i2 = %c0 to %c3 step %c1 {
          vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
          vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
          scf.for %i3 = %c0 to %c3 step %c1 {
            vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
            vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
            scf.for %i4 = %c0 to %c3 step %c1 {
              vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
              vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
              scf.for %i5 = %c0 to %c3 step %c1 {
                vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
                vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
                scf.for %i6 = %c0 to %c3 step %c1 {
                  vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
                  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
                  scf.for %i7 = %c0 to %c3 step %c1 {
                    vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
                    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
                    scf.for %i8 = %c0 to %c3 step %c1 {
                      vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
                      vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
                      scf.for %i9 = %c0 to %c3 step %c1 {
                        vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
                        vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
                        scf.for %i10 = %c0 to %c3 step %c1 {
                          vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
                          vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
                          scf.for %i11 = %c0 to %c3 step %c1 {
                            vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
                            vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
                            scf.for %i12 = %c0 to %c3 step %c1 {
                              vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
                              vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
                              scf.for %i13 = %c0 to %c3 step %c1 {
                                vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
                                vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
                                scf.for %i14 = %c0 to %c3 step %c1 {
                                  vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
                                  vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
                                  scf.for %i15 = %c0 to %c3 step %c1 {
                                    vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
                                    vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
                                    scf.for %i16 = %c0 to %c3 step %c1 {
                                      vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
                                      vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
                                      scf.for %i17 = %c0 to %c3 step %c1 {
                                        vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
                                        vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
                                        scf.for %i18 = %c0 to %c3 step %c1 {
                                          vyre.copy_h2d %h1 to %b : memref<256xf32> to memref<256xf32>
                                          vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b, %out : memref<256xf32>, memref<256xf32>)
                                          scf.for %i19 = %c0 to %c3 step %c1 {
                                            vyre.copy_h2d %h0 to %a : memref<256xf32> to memref<256xf32>
                                            vyre.dispatch @k::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%a, %out : memref<256xf32>, memref<256xf32>)
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
    vyre.copy_d2h %out to %h1 : memref<256xf32> to memref<256xf32>
    vyre.dealloc %a : memref<256xf32>
    vyre.dealloc %b : memref<256xf32>
    vyre.dealloc %out : memref<256xf32>
    return
  }
}
