// RUN: vyre-opt %s --split-input-file --verify-diagnostics

// Tests that an alloc needs one size per dynamic dimension.
func.func @alloc_missing_dynamic_size() {
  // expected-error @+1 {{'vyre.alloc' op 'dynamicSizes' has 0 operand(s) but result type 'memref<?x4xf32>' has 1 dynamic dimension(s): it needs one size per dynamic dimension}}
  %d = vyre.alloc : memref<?x4xf32>
  return
}

// -----

// Tests that an alloc with too many sizes is rejected too.
func.func @alloc_extra_dynamic_size(%n: index) {
  // expected-error @+1 {{'dynamicSizes' has 1 operand(s) but result type 'memref<4xf32>' has 0 dynamic dimension(s)}}
  %d = vyre.alloc(%n) : memref<4xf32>
  return
}

// -----

// Tests that a device buffer must be contiguous.
func.func @alloc_strided() {
  // expected-error @+1 {{'vyre.alloc' op result type 'memref<4xf32, strided<[2]>>' must have an identity layout: a device buffer is one contiguous allocation}}
  %d = vyre.alloc : memref<4xf32, strided<[2]>>
  return
}

// -----

// Tests that a copy's element types must match.
func.func @copy_h2d_element_type(%h: memref<4xf32>) {
  %d = vyre.alloc : memref<4xf16>
  // expected-error @+1 {{'vyre.copy_h2d' op element type of 'source' ('f32') must match that of 'target' ('f16')}}
  vyre.copy_h2d %h to %d : memref<4xf32> to memref<4xf16>
  return
}

// -----

// Tests that a copy's ranks must match.
func.func @copy_h2d_rank(%h: memref<4xf32>) {
  %d = vyre.alloc : memref<2x2xf32>
  // expected-error @+1 {{'vyre.copy_h2d' op shape of 'source' ('memref<4xf32>') must match that of 'target' ('memref<2x2xf32>'): ranks 1 and 2 differ}}
  vyre.copy_h2d %h to %d : memref<4xf32> to memref<2x2xf32>
  return
}

// -----

// Tests that a copy's static dimensions must match.
func.func @copy_d2h_shape(%h: memref<8xf32>) {
  %d = vyre.alloc : memref<4xf32>
  // expected-error @+1 {{'vyre.copy_d2h' op shape of 'source' ('memref<4xf32>') must match that of 'target' ('memref<8xf32>'): dimension 0 is 4 in 'source' but 8 in 'target'}}
  vyre.copy_d2h %d to %h : memref<4xf32> to memref<8xf32>
  return
}

// -----

// Tests that a copy takes memrefs only.
func.func @copy_not_memref(%h: tensor<4xf32>) {
  %d = vyre.alloc : memref<4xf32>
  // expected-error @+1 {{'vyre.copy_h2d' op operand #0 must be memref of any type values, but got 'tensor<4xf32>'}}
  "vyre.copy_h2d"(%h, %d) : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// Tests that an async copy runs on a stream that exists: 0 (the main stream)
// or a side stream.
func.func @copy_async_negative_stream(%h: memref<4xf32>) {
  %d = vyre.alloc : memref<4xf32>
  // expected-error @+1 {{'vyre.copy_h2d_async' op 'stream' is -1 but must be 0 (the main stream) or a side stream, 1 or more}}
  %t = vyre.copy_h2d_async %h to %d on stream -1 : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Tests that an async copy into the host runs on a stream that exists too.
func.func @copy_d2h_async_negative_stream(%h: memref<4xf32>) {
  %d = vyre.alloc : memref<4xf32>
  // expected-error @+1 {{'vyre.copy_d2h_async' op 'stream' is -2 but must be 0 (the main stream) or a side stream, 1 or more}}
  %t = vyre.copy_d2h_async %d to %h on stream -2 : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Tests that an async copy's shapes are checked like a copy's.
func.func @copy_async_shape(%h: memref<8xf32>) {
  %d = vyre.alloc : memref<4xf32>
  // expected-error @+1 {{'vyre.copy_h2d_async' op shape of 'source' ('memref<8xf32>') must match that of 'target' ('memref<4xf32>'): dimension 0 is 8 in 'source' but 4 in 'target'}}
  %t = vyre.copy_h2d_async %h to %d on stream 1 : memref<8xf32> to memref<4xf32>
  return
}

// -----

// Tests that an async copy names each dependency once.
func.func @copy_async_duplicate_dependency(%h: memref<4xf32>) {
  %d = vyre.alloc : memref<4xf32>
  %r = vyre.record
  // expected-error @+1 {{'vyre.copy_h2d_async' op 'dependencies' names a token twice: token #1 repeats an earlier one}}
  %t = vyre.copy_h2d_async %h to %d on stream 1 after [%r, %r] : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Tests that a wait needs a token.
func.func @wait_nothing() {
  // expected-error @+1 {{'vyre.wait' op 'tokens' needs at least one token}}
  vyre.wait
  return
}

// -----

// Tests that a wait names each token once.
func.func @wait_duplicate() {
  %r = vyre.record
  // expected-error @+1 {{'vyre.wait' op 'tokens' names a token twice: token #1 repeats an earlier one}}
  vyre.wait %r, %r
  return
}

// -----

// Tests that a sync needs a token.
func.func @sync_nothing() {
  // expected-error @+1 {{'vyre.sync' op 'tokens' needs at least one token}}
  vyre.sync
  return
}

// -----

// Tests that a sync names each token once.
func.func @sync_duplicate() {
  %r = vyre.record
  // expected-error @+1 {{'vyre.sync' op 'tokens' names a token twice: token #1 repeats an earlier one}}
  vyre.sync %r, %r
  return
}

// -----

// Tests that a token must be defined before it is used.
func.func @token_used_before_defined() {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  vyre.wait %r
  // expected-note @+1 {{operand defined here}}
  %r = vyre.record
  return
}

// -----

// Tests that only tokens can be waited for.
// expected-note @+1 {{prior use here}}
func.func @wait_not_token(%i: index) {
  // expected-error @+1 {{use of value '%i' expects different type than prior uses: '!vyre.token' vs 'index'}}
  vyre.wait %i
  return
}

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<4xf32>) kernel {
    gpu.return
  }
}

// Tests that a dispatch must name an existing kernel.
func.func @dispatch_missing_kernel(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'kernel' @kernels::@missing does not resolve: it must name a kernel in a gpu.module, as @module::@kernel}}
  vyre.dispatch @kernels::@missing blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4xf32>)
  return
}

// -----

func.func private @host_function(%x: memref<4xf32>)

// Tests that a dispatch cannot call a host function.
func.func @dispatch_host_function(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'kernel' @host_function resolves to 'func.func', which is not a function in a gpu.module}}
  vyre.dispatch @host_function blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4xf32>)
  return
}

// -----

gpu.module @kernels {
  gpu.func @device_function(%x: memref<4xf32>) {
    gpu.return
  }
}

// Tests that a dispatch cannot call a device function that is not a kernel.
func.func @dispatch_not_kernel(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'kernel' @kernels::@device_function is a gpu.func without the 'kernel' attribute: only kernels can be dispatched}}
  vyre.dispatch @kernels::@device_function blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4xf32>)
  return
}

// -----

gpu.module @kernels {
  func.func @with_body(%x: memref<4xf32>) attributes {gpu.kernel} {
    return
  }
}

// Tests that a func.func kernel must be a declaration.
func.func @dispatch_func_with_body(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'kernel' @kernels::@with_body must be a gpu.func kernel, or a function declaration without a body that carries the 'gpu.kernel' attribute}}
  vyre.dispatch @kernels::@with_body blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4xf32>)
  return
}

// -----

gpu.module @kernels {
  func.func private @returns(%x: memref<4xf32>) -> f32 attributes {gpu.kernel}
}

// Tests that a kernel returns nothing.
func.func @dispatch_kernel_returns(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'kernel' @kernels::@returns returns values: a kernel returns nothing}}
  vyre.dispatch @kernels::@returns blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4xf32>)
  return
}

// -----

gpu.module @kernels {
  gpu.func @two(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    gpu.return
  }
}

// Tests that a dispatch passes as many arguments as the kernel takes.
func.func @dispatch_arity(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'args' has 1 argument(s) but kernel @kernels::@two takes 2}}
  vyre.dispatch @kernels::@two blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4xf32>)
  return
}

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<8xf32>) kernel {
    gpu.return
  }
}

// Tests that a dispatch's argument types match the kernel's.
func.func @dispatch_argument_type(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'args' argument #0 has type 'memref<4xf32>' but kernel @kernels::@k expects 'memref<8xf32>'}}
  vyre.dispatch @kernels::@k blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4xf32>)
  return
}

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    gpu.return
  }
}

// Tests that an access list has one entry per argument.
func.func @dispatch_access_length(%x: memref<4xf32>, %y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'access' has 1 entries but the dispatch has 2 argument(s): it needs one entry per argument}}
  vyre.dispatch @kernels::@k blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y : memref<4xf32>, memref<4xf32>) access [read]
  return
}

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<4xf32>, %a: f32) kernel {
    gpu.return
  }
}

// Tests that a scalar argument cannot be written.
func.func @dispatch_access_scalar_write(%x: memref<4xf32>, %a: f32) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'access' entry #1 is 'write' but argument #1 has type 'f32': only a memref argument can be written}}
  vyre.dispatch @kernels::@k blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %a : memref<4xf32>, f32) access [read, write]
  return
}

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    gpu.return
  }
}

// Tests that a launch cannot promise to overwrite a buffer it also passes
// as another argument.
func.func @dispatch_overwrite_twice(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.dispatch' op 'access' entry #1 is 'overwrite' but argument #0 passes the same buffer}}
  vyre.dispatch @kernels::@k blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %x : memref<4xf32>, memref<4xf32>) access [read, overwrite]
  return
}

// -----

// Tests that 'overwrite' is a promise of one launch, not of a kernel.
gpu.module @kernels {
  // expected-error @+1 {{'vyre.access' entry #0 is 'overwrite', a promise of one launch: declare it in the dispatch's 'access' list}}
  gpu.func @k(%x: memref<4xf32>) kernel attributes {vyre.access = [#vyre.access<overwrite>]} {
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @k(%x: memref<4xf32>) kernel {
    gpu.return
  }
}

// Tests that an access kind is one of the five keywords.
func.func @dispatch_access_unknown_kind(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{access kind must be 'read', 'write', 'readwrite', 'none' or 'overwrite', got 'modify'}}
  vyre.dispatch @kernels::@k blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4xf32>) access [modify]
  return
}

// -----

// Tests that grid sizes are indices.
// expected-note @+1 {{prior use here}}
func.func @dispatch_grid_type(%x: memref<4xf32>, %i: i32) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{use of value '%i' expects different type than prior uses: 'index' vs 'i32'}}
  vyre.dispatch @kernels::@k blocks(%i, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<4xf32>)
  return
}

// -----

// Tests that an unknown vyre op is rejected.
func.func @unknown_op() {
  // expected-error @+1 {{custom op 'vyre.frobnicate' is unknown}}
  vyre.frobnicate
  return
}

// -----

// Tests that vyre.pinned is a unit attribute.
// expected-error @+1 {{'vyre.pinned' on argument #0 must be a unit attribute}}
func.func @pinned_not_unit(%h: memref<4xf32> {vyre.pinned = 1 : i32}) {
  return
}

// -----

// Tests that only a memref argument can be pinned.
// expected-error @+1 {{'vyre.pinned' on argument #0 of type 'i32': only a memref argument can be pinned}}
func.func @pinned_scalar(%n: i32 {vyre.pinned}) {
  return
}

// -----

// Tests that an unknown vyre argument attribute is rejected.
// expected-error @+1 {{unknown vyre argument attribute 'vyre.pinnned' on argument #0}}
func.func @pinned_misspelled(%h: memref<4xf32> {vyre.pinnned}) {
  return
}

// -----

// Tests that a kernel summary needs one entry per argument.
gpu.module @k {
  // expected-error @+1 {{'vyre.access' has 1 entries but the kernel has 2 argument(s): it needs one entry per argument}}
  gpu.func @two(%a: memref<4xf32>, %b: memref<4xf32>) kernel attributes {vyre.access = [#vyre.access<read>]} {
    gpu.return
  }
}

// -----

// Tests that a kernel summary writes only memref arguments.
gpu.module @k {
  // expected-error @+1 {{'vyre.access' entry #1 is 'write' but argument #1 has type 'f32': only a memref can be written}}
  gpu.func @scalar(%a: memref<4xf32>, %s: f32) kernel attributes {vyre.access = [#vyre.access<read>, #vyre.access<write>]} {
    gpu.return
  }
}

// -----

// Tests that a kernel summary is a list of access kinds.
gpu.module @k {
  // expected-error @+1 {{'vyre.access' must be a list of access kinds}}
  gpu.func @not_kinds(%a: memref<4xf32>) kernel attributes {vyre.access = [1 : i32]} {
    gpu.return
  }
}

// -----

// Tests that a kernel summary belongs on a function.
// expected-error @+1 {{'vyre.access' must be on a kernel function}}
gpu.module @k attributes {vyre.access = []} {
}

// -----

// Tests that vyre.host_wait_join marks only a join of tokens.
func.func @host_wait_join_without_tokens() {
  // expected-error @+1 {{'vyre.host_wait_join' is a unit attribute of a gpu.wait async on tokens}}
  %s = gpu.wait async {vyre.host_wait_join}
  gpu.wait [%s]
  return
}

// -----

// Tests that vyre.host_wait_join is a unit attribute.
func.func @host_wait_join_not_unit() {
  %s = gpu.wait async
  // expected-error @+1 {{'vyre.host_wait_join' is a unit attribute of a gpu.wait async on tokens}}
  %j = gpu.wait async [%s, %s] {vyre.host_wait_join = 1 : i32}
  gpu.wait [%j]
  return
}

// -----

// Tests that a kernel's time is a float: microseconds.
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @integer_cost(%x: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.cost_us' must be a float number of microseconds (30.0, not 30), not 5 : i64}}
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>) access [read] {vyre.cost_us = 5}
  return
}

// -----

// Tests that a kernel's time is not negative (the cost model and the
// simulator would take it for time saved).
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @negative_cost(%x: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.cost_us' must be a finite number of microseconds, 0 or more, not -1.000000e+00 : f64}}
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>) access [read] {vyre.cost_us = -1.0}
  return
}

// -----

// Tests that a kernel's time is a number.
gpu.module @k {
  func.func private @kernel(%x: memref<16xf32>) attributes {gpu.kernel}
}
func.func @nan_cost(%x: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'vyre.cost_us' must be a finite number of microseconds, 0 or more}}
  vyre.dispatch @k::@kernel blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<16xf32>) access [read] {vyre.cost_us = 0x7FF8000000000000 : f64}
  return
}

// -----

// Tests that a kernel's time belongs on a dispatch.
func.func @cost_elsewhere() {
  // expected-error @+1 {{'vyre.cost_us' belongs on a vyre.dispatch: it is a kernel launch's time}}
  %d = vyre.alloc {vyre.cost_us = 1.0} : memref<16xf32>
  vyre.dealloc %d : memref<16xf32>
  return
}

// -----

// Tests that vyre.effects is "none" or "arguments", on a function.
// expected-error @+1 {{'vyre.effects' must be "none" or "arguments", not "some"}}
func.func private @host_call() attributes {vyre.effects = "some"}
