// RUN: vyre-opt %s --verify-diagnostics --vyre-verify-gpu-streams

// Tests a nest of 20 loops under the default options: each loop body runs
// twice in a trace, so the trace passes max-trace-nodes long before its
// 2^20 launches; the referee stops there with an error that names the
// option and the outermost loop by location.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @nest(%a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'scf.for' op unfolds to more than max-trace-nodes=50000 nodes of --vyre-verify-gpu-streams (a loop body runs twice in a trace, so each level of nesting doubles it)}}
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
                                            %s = gpu.wait async
                                            %t = gpu.launch_func async [%s] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
                                            gpu.wait [%t]
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
}
