// RUN: vyre-opt %s --vyre-kernel-access --vyre-simulate -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,STEADY
// RUN: vyre-opt %s --vyre-kernel-access --vyre-simulate=steady-state=false -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,EVERY

// A loop runs until two iterations in a row grow every time they write by
// the same amount and make the same choices, each won by a time that grows
// at least as fast as the others; the rest is added at once. Every figure
// is the one running each iteration gives (steady-state=false).

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // The host spends 4.25 us per iteration (the launch, and the events that
  // chain the iterations on the device) and the kernels take 15 us: the
  // host runs ahead of the device, and each time grows at its own rate.
  // CHECK: remark: makespan 15029.2 us, device time 15000.0 us, bound 15025.8 us (H2D copies 0.0 us, D2H copies 0.0 us, kernels 15000.0 us, longest path 15.0 us, engine with fill and drain 15000.0 us, device idle for the host 25.8 us; host 4278.3 us in runtime calls, 2 host synchronizations
  // STEADY-SAME: ; 997 loop iterations added from their steady state)
  // EVERY-SAME: {{^}}){{$}}
  func.func @host_ahead() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 1000 : index
    %d = vyre.alloc : memref<4xf32>
    scf.for %i = %c0 to %n step %c1 {
      vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>) {vyre.cost_us = 15.0 : f64}
    }
    vyre.dealloc %d : memref<4xf32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // The main stream waits for a 64 MiB copy (about 1,222 us) before the
  // loop: its kernels (0.5 us) start when the stream is free, which grows
  // 0.5 us per iteration, while the host, 1,222 us behind, grows 4.25 us.
  // Each iteration looks the same until the host catches up, after about
  // 330 iterations; from then on each kernel starts when the host issues
  // it. Extrapolating earlier would keep the stream's pace to the end
  // (about 6,222 us).
  // CHECK: remark: makespan 42534.2 us, device time 6222.2 us
  // STEADY-SAME: ; 9673 loop iterations added from their steady state)
  func.func @held_before_the_loop(%h: memref<16777216xf32> {vyre.pinned}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 10000 : index
    %big = vyre.alloc : memref<16777216xf32>
    %d = vyre.alloc : memref<4xf32>
    %t = vyre.copy_h2d_async %h to %big on stream 1 : memref<16777216xf32> to memref<16777216xf32>
    vyre.wait %t
    scf.for %i = %c0 to %n step %c1 {
      vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>) {vyre.cost_us = 0.5 : f64}
    }
    vyre.dealloc %d : memref<4xf32>
    vyre.dealloc %big : memref<16777216xf32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // A nest: each loop is extrapolated once the runs of the loop inside it
  // repeat.
  // CHECK: remark: makespan 270036.0 us, device time 270000.0 us, bound 270025.8 us (H2D copies 0.0 us, D2H copies 0.0 us, kernels 270000.0 us, longest path 10.0 us, engine with fill and drain 270000.0 us, device idle for the host 25.8 us; host 121102.3 us in runtime calls, 2 host synchronizations
  func.func @nest() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c30 = arith.constant 30 : index
    %d = vyre.alloc : memref<4xf32>
    scf.for %i = %c0 to %c30 step %c1 {
      scf.for %j = %c0 to %c30 step %c1 {
        scf.for %k = %c0 to %c30 step %c1 {
          vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>)
        }
      }
    }
    vyre.dealloc %d : memref<4xf32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  // Found by a helper: after a 10^10 us kernel the host waits for, the main
  // stream is 1,000 us ahead of side stream 1, whose 22 us copies it awaits
  // each iteration; its own kernels take 18.25 us, so the copies catch up
  // after about 267 iterations. An allowance in proportion to the times
  // (10 us at 10^10 us) took the 3.75 us per iteration the copies gain for
  // rounding and extrapolated after three iterations (87.8 us short of the
  // makespan).
  // CHECK: remark: makespan 10000220054.5 us
  func.func @catches_up_late(%o: memref<4xf32> {vyre.pinned}, %h: memref<275000xf32> {vyre.pinned}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 10000 : index
    %d = vyre.alloc : memref<4xf32>
    %e = vyre.alloc : memref<4xf32>
    %b = vyre.alloc : memref<275000xf32>
    vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%d : memref<4xf32>) {vyre.cost_us = 10000000000.0 : f64}
    vyre.copy_d2h %d to %o : memref<4xf32> to memref<4xf32>
    vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%e : memref<4xf32>) {vyre.cost_us = 1000.0 : f64}
    scf.for %i = %c0 to %n step %c1 {
      %t = vyre.copy_h2d_async %h to %b on stream 1 : memref<275000xf32> to memref<275000xf32>
      vyre.wait %t
      vyre.dispatch @k::@touch blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%e : memref<4xf32>) {vyre.cost_us = 18.25 : f64}
    }
    vyre.dealloc %b : memref<275000xf32>
    vyre.dealloc %e : memref<4xf32>
    vyre.dealloc %d : memref<4xf32>
    return
  }
}
