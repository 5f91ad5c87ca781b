// RUN: vyre-opt %s --split-input-file --vyre-kernel-access --vyre-verify-schedule --verify-diagnostics

// Tests a nest of 20 loops with async copies and launches under the default
// options. Each loop body is checked over two iterations and the loops
// nested in the second over one, so the trace holds 21 copies of the
// innermost body, not 2^20: it checks at once. A schedule that waits for
// each copy before its launch and records after the launch is clean; the
// same one without the record races across iterations of the innermost
// loop, and the race is found.

gpu.module @k {
  gpu.func @read(%x: memref<16xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<16xf32>
    gpu.return
  }
}

func.func @clean_nest(%h: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
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
                                          %r = vyre.record
                                          %t = vyre.copy_h2d_async %h to %a on stream 1 after [%r] : memref<16xf32> to memref<16xf32>
                                          vyre.wait %t
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
  %end = vyre.record
  vyre.sync %end
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

func.func @racy_nest(%h: memref<16xf32> {llvm.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = vyre.alloc : memref<16xf32>
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
                                          // expected-error @+1 {{race on slot 1: 'vyre.copy_h2d_async' and the earlier 'vyre.dispatch' are not ordered}}
                                          %t = vyre.copy_h2d_async %h to %a on stream 1 : memref<16xf32> to memref<16xf32>
                                          vyre.wait %t
                                          // expected-note @+1 {{the earlier op}}
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
  %end = vyre.record
  vyre.sync %end
  return
}
