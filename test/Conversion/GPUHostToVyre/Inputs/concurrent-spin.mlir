// Two kernels launched on streams of their own, each spinning until the
// other has started (after upstream's CUDA integration test of concurrent
// kernels): they must run at the same time, or the program hangs.
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
  func.func @concurrent(%flags: memref<2xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s0 = gpu.wait async
    %a = gpu.launch_func async [%s0] @k::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>, %c0 : index, %c1 : index)
    %s1 = gpu.wait async
    %b = gpu.launch_func async [%s1] @k::@spin blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<2xi32>, %c1 : index, %c0 : index)
    gpu.wait [%a]
    gpu.wait [%b]
    return
  }
}
