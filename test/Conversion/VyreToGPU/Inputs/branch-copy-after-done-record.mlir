// A program of the property test (vyre-schedule-fuzz --print 131481) on
// which a copy in a branch, in a loop, depended only on main-stream
// progress the host had already waited for before the branch
// (awaited-tokens-done.test).


  gpu.module @k {
    gpu.func @r_w(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      memref.store %v, %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @r_r(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<16xf32>
      %w = memref.load %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @w_w(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %z = arith.constant 0.0 : f32
      memref.store %z, %a[%i] : memref<16xf32>
      memref.store %z, %b[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @rw_n(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%i] : memref<16xf32>
      %old = memref.atomic_rmw addf %v, %a[%c0] : (f32, memref<16xf32>) -> f32
      gpu.return
    }
    gpu.func @n_n(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      gpu.return
    }
    gpu.func @attr_w_r(%a: memref<16xf32>, %b: memref<16xf32>)
        workgroup(%s0: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s1: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s2: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s3: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s4: memref<4xf32, #gpu.address_space<workgroup>>,
                  %s5: memref<4xf32, #gpu.address_space<workgroup>>)
        private(%p0: memref<4xf32, #gpu.address_space<private>>,
                %p1: memref<4xf32, #gpu.address_space<private>>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %b[%i] : memref<16xf32>
      memref.store %v, %a[%i] : memref<16xf32>
      gpu.return
    }
    func.func private @opaque(%a: memref<16xf32>, %b: memref<16xf32>) attributes {gpu.kernel}
  }
  func.func private @host_call()
  func.func private @host_tick() attributes {vyre.effects = "none"}
  func.func @host_fill(%b: memref<16xf32>, %v: f32) {
    %c0 = arith.constant 0 : index
    memref.store %v, %b[%c0] : memref<16xf32>
    return
  }
  func.func @f(%h0: memref<16xf32> {llvm.noalias}, %h1: memref<16xf32> {llvm.noalias}, %h2: memref<16xf32>, %g: memref<16xf32>, %v: f32, %n: index, %c: i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %d0 = vyre.alloc : memref<16xf32>
    %d1 = vyre.alloc : memref<16xf32>
    %d2 = vyre.alloc : memref<16xf32>
    %d3 = vyre.alloc : memref<16xf32>
    %dead = vyre.alloc : memref<16xf32>
    %big = vyre.alloc : memref<32xf32>
    %lo = memref.subview %big[0] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1]>>
    %hi = memref.subview %big[16] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1], offset: 16>>
    %vlo = memref.cast %lo : memref<16xf32, strided<[1]>> to memref<16xf32>
    memref.store %v, %h2[%c0] : memref<16xf32>
    vyre.copy_d2h %g to %h0 : memref<16xf32> to memref<16xf32>
    vyre.copy_h2d %h2 to %d0 : memref<16xf32> to memref<16xf32>
    vyre.copy_h2d %h2 to %hi : memref<16xf32> to memref<16xf32, strided<[1], offset: 16>>
    vyre.dispatch @k::@w_w blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d2, %d2 : memref<16xf32>, memref<16xf32>)
    func.call @host_tick() : () -> ()
    vyre.copy_h2d %h0 to %hi : memref<16xf32> to memref<16xf32, strided<[1], offset: 16>>
    vyre.dispatch @k::@w_w blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d0, %g : memref<16xf32>, memref<16xf32>)
    func.call @host_call() : () -> ()
    vyre.copy_h2d %h2 to %g : memref<16xf32> to memref<16xf32>
    vyre.dispatch @k::@n_n blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%g, %d3 : memref<16xf32>, memref<16xf32>)
    vyre.dispatch @k::@w_w blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%vlo, %d1 : memref<16xf32>, memref<16xf32>)
    func.call @host_tick() : () -> ()
    vyre.dispatch @k::@rw_n blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d1, %d0 : memref<16xf32>, memref<16xf32>)
    vyre.dispatch @k::@w_w blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d0, %g : memref<16xf32>, memref<16xf32>)
    vyre.copy_h2d %h1 to %hi : memref<16xf32> to memref<16xf32, strided<[1], offset: 16>>
    func.call @host_call() : () -> ()
    scf.if %c {
      vyre.dispatch @k::@r_r blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d1, %vlo : memref<16xf32>, memref<16xf32>)
      vyre.copy_h2d %h0 to %hi : memref<16xf32> to memref<16xf32, strided<[1], offset: 16>>
      %s0 = vyre.alloc : memref<16xf32>
      %o0 = vyre.alloc : memref<16xf32>
      scf.for %i0 = %c0 to %c4 step %c1 {
        vyre.dispatch @k::@attr_w_r blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%g, %d1 : memref<16xf32>, memref<16xf32>)
        scf.if %c {
          %sv0 = memref.subview %h2[0] [16] [1] : memref<16xf32> to memref<16xf32, strided<[1]>>
          %sc0 = memref.cast %sv0 : memref<16xf32, strided<[1]>> to memref<16xf32>
          vyre.copy_h2d %sc0 to %s0 : memref<16xf32> to memref<16xf32>
        } else {
          vyre.copy_h2d %h0 to %s0 : memref<16xf32> to memref<16xf32>
        }
        vyre.dispatch @k::@r_w blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%s0, %d0 : memref<16xf32>, memref<16xf32>)
      }
      vyre.dealloc %s0 : memref<16xf32>
      vyre.dealloc %o0 : memref<16xf32>
    } else {
    }
    vyre.dispatch @k::@w_w blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%g, %d0 : memref<16xf32>, memref<16xf32>)
    vyre.dispatch @k::@r_r blocks(%c1, %c1, %c1) threads(%c16, %c1, %c1) args(%d2, %vlo : memref<16xf32>, memref<16xf32>)
    vyre.copy_d2h %g to %h0 : memref<16xf32> to memref<16xf32>
    vyre.copy_h2d %h2 to %d0 : memref<16xf32> to memref<16xf32>
    vyre.dealloc %d0 : memref<16xf32>
    vyre.dealloc %d1 : memref<16xf32>
    vyre.dealloc %d2 : memref<16xf32>
    vyre.dealloc %d3 : memref<16xf32>
    vyre.dealloc %dead : memref<16xf32>
    vyre.dealloc %big : memref<32xf32>
    return
  }
