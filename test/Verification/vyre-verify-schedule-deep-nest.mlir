// RUN: vyre-opt %s --vyre-kernel-access --vyre-verify-schedule --verify-diagnostics

// Tests a nest of 20 loops under the default options: its trace would hold
// 2^20 copies of the body (each loop body is checked over two iterations),
// so the referee refuses it at once, before unfolding anything, with an
// error that names the option and the outermost loop by location.

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

func.func @nest(%h: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
  // expected-error @+1 {{'scf.for' op unfolds to 2097152 events, more than max-events=500000 of --vyre-verify-schedule (each loop body is checked over two iterations, so each level of nesting doubles the trace)}}
  scf.for %i0 = %c0 to %n step %c1 {
    scf.for %i1 = %c0 to %n step %c1 {
      scf.for %i2 = %c0 to %n step %c1 {
        scf.for %i3 = %c0 to %n step %c1 {
          scf.for %i4 = %c0 to %n step %c1 {
            scf.for %i5 = %c0 to %n step %c1 {
              scf.for %i6 = %c0 to %n step %c1 {
                scf.for %i7 = %c0 to %n step %c1 {
                  scf.for %i8 = %c0 to %n step %c1 {
                    scf.for %i9 = %c0 to %n step %c1 {
                      scf.for %i10 = %c0 to %n step %c1 {
                        scf.for %i11 = %c0 to %n step %c1 {
                          scf.for %i12 = %c0 to %n step %c1 {
                            scf.for %i13 = %c0 to %n step %c1 {
                              scf.for %i14 = %c0 to %n step %c1 {
                                scf.for %i15 = %c0 to %n step %c1 {
                                  scf.for %i16 = %c0 to %n step %c1 {
                                    scf.for %i17 = %c0 to %n step %c1 {
                                      scf.for %i18 = %c0 to %n step %c1 {
                                        scf.for %i19 = %c0 to %n step %c1 {
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
