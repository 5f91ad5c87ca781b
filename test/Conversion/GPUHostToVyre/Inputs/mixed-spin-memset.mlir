// Two kernels that each spin until the other has started, on streams of
// their own, in a function that also clears a buffer with a synchronous
// gpu.memset (which vyre does not import).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @spin(%flags: memref<2xi32>, %me: index, %other: index) kernel {
      %one = arith.constant 1 : i32
      memref.store %one, %flags[%me] : memref<2xi32>
      scf.while : () -> () {
        %v = memref.load %flags[%other] : memref<2xi32>
        %waiting = arith.cmpi ne, %v, %one : i32
        scf.condition(%waiting)
      } do {
        scf.yield
      }
      gpu.return
    }
  }
  func.func @spin_and_clear(%flags: memref<2xi32>, %out: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %d = gpu.alloc () : memref<64xf32>
    gpu.memset %d, %zero : memref<64xf32>, f32
    %s0 = gpu.wait async
    %a = gpu.launch_func async [%s0] @k::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>, %c0 : index, %c1 : index)
    %s1 = gpu.wait async
    %b = gpu.launch_func async [%s1] @k::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>, %c1 : index, %c0 : index)
    gpu.memcpy %out, %d : memref<64xf32>, memref<64xf32>
    gpu.wait [%a]
    gpu.wait [%b]
    gpu.dealloc %d : memref<64xf32>
    return
  }
}
