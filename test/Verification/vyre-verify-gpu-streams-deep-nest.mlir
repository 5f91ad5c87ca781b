// RUN: vyre-opt %s --split-input-file --verify-diagnostics --vyre-verify-gpu-streams
// RUN: not vyre-opt %s --split-input-file --vyre-verify-gpu-streams=repeats-once=false 2>&1 | FileCheck %s --check-prefix=FULL

// Tests nests of 20 loops. A loop body runs twice in a trace, but a run of a
// loop that repeats an earlier run in full (the same buffers and streams
// from outside, nothing carried but events it makes, no branch) runs once,
// where the earlier run showed each op's second iteration ordered after its
// first. The trace then holds about 20 * 20 bodies, not 2^20. With
// repeats-once=false, every nest stops at the bound on the trace.

// FULL-COUNT-3: error: 'scf.for' op unfolds to more than max-trace-nodes=50000 nodes of --vyre-verify-gpu-streams

// A launch and a blocking wait at the bottom: checked, nothing to report.
module attributes {gpu.container_module} {
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
  func.func @nest(%a: memref<16xf32>, %n: index) {
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

// Writes at the bottom on one stream, and a read after the nest on another
// stream that does not wait for them: the race is found.
module attributes {gpu.container_module} {
  llvm.func @mgpuStreamSynchronize(!llvm.ptr)
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
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
  func.func @nest(%a: memref<16xf32> {llvm.noalias}, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = gpu.wait async
    %ps = builtin.unrealized_conversion_cast %s : !gpu.async.token to !llvm.ptr
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
                                            // expected-note @+1 {{the earlier op}}
                                            %t = gpu.launch_func async [%s] @k::@write blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
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
    %u = gpu.wait async
    // expected-error @+1 {{race on argument #0: 'gpu.launch_func' and the earlier 'gpu.launch_func' are not ordered}}
    %r = gpu.launch_func async [%u] @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    gpu.wait [%r]
    llvm.call @mgpuStreamSynchronize(%ps) : (!llvm.ptr) -> ()
    llvm.call @mgpuStreamDestroy(%ps) : (!llvm.ptr) -> ()
    return
  }
}

// -----

// Reads at the bottom on streams destroyed without a wait: the instances of
// the read are not ordered with each other, so no run counts as a repeat,
// and the whole nest unfolds until the bound stops it.
module attributes {gpu.container_module} {
  llvm.func @mgpuStreamDestroy(!llvm.ptr)
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
  func.func @nest(%a: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'scf.for' op unfolds to more than max-trace-nodes=50000 nodes of --vyre-verify-gpu-streams}}
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
                                            %p = builtin.unrealized_conversion_cast %t : !gpu.async.token to !llvm.ptr
                                            llvm.call @mgpuStreamDestroy(%p) : (!llvm.ptr) -> ()
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
