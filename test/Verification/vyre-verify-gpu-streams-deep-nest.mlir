// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams

// Tests nests of 20 loops under the default options. A loop body runs twice
// in a trace, and the loops nested in its second iteration run once when
// what the loop carries into each iteration is made anew by the one before
// (here: nothing), so the trace holds 21 copies of the innermost body, not
// 2^20: a clean nest checks at once, and a race in a racy one is found.

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @clean_nest(%a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
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

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @racy_nest(%a: memref<16xf32>, %h: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
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
                                            // expected-note @+1 {{the earlier op}}
                                            %m = gpu.memcpy async [%s] %a, %h : memref<16xf32>, memref<16xf32>
                                            %s2 = gpu.wait async
                                            // expected-error @+1 {{race on argument #0: 'gpu.launch_func' and the earlier 'gpu.memcpy' are not ordered}}
                                            %t = gpu.launch_func async [%s2] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
                                            gpu.wait [%m, %t]
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

// -----

// A loop that carries the stream it was given into every iteration: its
// iterations are not alike (the second starts from what the first did on
// that stream), so the loops in its second iteration run twice too, and
// the trace doubles per level, past max-trace-nodes: an error that names
// the option and the outermost loop by location.

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @read(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @carried_nest(%a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s0 = gpu.wait async
    // expected-error @+1 {{'scf.for' op unfolds to more than max-trace-nodes=50000 nodes of --vyre-verify-gpu-streams (a loop body runs twice in a trace, and the loops nested in its second run once only where what it carries is made anew each iteration)}}
    %r0 = scf.for %i0 = %c0 to %n step %c1 iter_args(%k0 = %s0) -> (!gpu.async.token) {
      %r1 = scf.for %i1 = %c0 to %n step %c1 iter_args(%k1 = %k0) -> (!gpu.async.token) {
        %r2 = scf.for %i2 = %c0 to %n step %c1 iter_args(%k2 = %k1) -> (!gpu.async.token) {
          %r3 = scf.for %i3 = %c0 to %n step %c1 iter_args(%k3 = %k2) -> (!gpu.async.token) {
            %r4 = scf.for %i4 = %c0 to %n step %c1 iter_args(%k4 = %k3) -> (!gpu.async.token) {
              %r5 = scf.for %i5 = %c0 to %n step %c1 iter_args(%k5 = %k4) -> (!gpu.async.token) {
                %r6 = scf.for %i6 = %c0 to %n step %c1 iter_args(%k6 = %k5) -> (!gpu.async.token) {
                  %r7 = scf.for %i7 = %c0 to %n step %c1 iter_args(%k7 = %k6) -> (!gpu.async.token) {
                    %r8 = scf.for %i8 = %c0 to %n step %c1 iter_args(%k8 = %k7) -> (!gpu.async.token) {
                      %r9 = scf.for %i9 = %c0 to %n step %c1 iter_args(%k9 = %k8) -> (!gpu.async.token) {
                        %r10 = scf.for %i10 = %c0 to %n step %c1 iter_args(%k10 = %k9) -> (!gpu.async.token) {
                          %r11 = scf.for %i11 = %c0 to %n step %c1 iter_args(%k11 = %k10) -> (!gpu.async.token) {
                            %r12 = scf.for %i12 = %c0 to %n step %c1 iter_args(%k12 = %k11) -> (!gpu.async.token) {
                              %r13 = scf.for %i13 = %c0 to %n step %c1 iter_args(%k13 = %k12) -> (!gpu.async.token) {
                                %r14 = scf.for %i14 = %c0 to %n step %c1 iter_args(%k14 = %k13) -> (!gpu.async.token) {
                                  %r15 = scf.for %i15 = %c0 to %n step %c1 iter_args(%k15 = %k14) -> (!gpu.async.token) {
                                    %r16 = scf.for %i16 = %c0 to %n step %c1 iter_args(%k16 = %k15) -> (!gpu.async.token) {
                                      %r17 = scf.for %i17 = %c0 to %n step %c1 iter_args(%k17 = %k16) -> (!gpu.async.token) {
                                        %r18 = scf.for %i18 = %c0 to %n step %c1 iter_args(%k18 = %k17) -> (!gpu.async.token) {
                                          %r19 = scf.for %i19 = %c0 to %n step %c1 iter_args(%k19 = %k18) -> (!gpu.async.token) {
                                            %t = gpu.launch_func async [%k19] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
                                            scf.yield %t : !gpu.async.token
                                          }
                                          scf.yield %k18 : !gpu.async.token
                                        }
                                        scf.yield %k17 : !gpu.async.token
                                      }
                                      scf.yield %k16 : !gpu.async.token
                                    }
                                    scf.yield %k15 : !gpu.async.token
                                  }
                                  scf.yield %k14 : !gpu.async.token
                                }
                                scf.yield %k13 : !gpu.async.token
                              }
                              scf.yield %k12 : !gpu.async.token
                            }
                            scf.yield %k11 : !gpu.async.token
                          }
                          scf.yield %k10 : !gpu.async.token
                        }
                        scf.yield %k9 : !gpu.async.token
                      }
                      scf.yield %k8 : !gpu.async.token
                    }
                    scf.yield %k7 : !gpu.async.token
                  }
                  scf.yield %k6 : !gpu.async.token
                }
                scf.yield %k5 : !gpu.async.token
              }
              scf.yield %k4 : !gpu.async.token
            }
            scf.yield %k3 : !gpu.async.token
          }
          scf.yield %k2 : !gpu.async.token
        }
        scf.yield %k1 : !gpu.async.token
      }
      scf.yield %k0 : !gpu.async.token
    }
    gpu.wait [%r0]
    return
  }
}
