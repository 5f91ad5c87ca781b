//===- Passes.td - vyre conversion passes ------------------*- tablegen -*-===//

#ifndef VYRE_CONVERSION_PASSES_TD
#define VYRE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertVyreToGPUPass : Pass<"convert-vyre-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower vyre host programs to asynchronous gpu dialect ops";
  let description = [{
    Lowers every vyre op to the upstream `gpu` dialect, so that upstream
    `--gpu-lower-to-nvvm-pipeline`, `mlir-translate --mlir-to-llvmir` and
    `llc` take the program to a CUDA executable:

    | vyre | gpu |
    | --- | --- |
    | `vyre.alloc` / `vyre.dealloc` | `gpu.alloc async` / `gpu.dealloc async` on the main stream; buffers freed one after another in the block that allocates them: one `gpu.alloc async` of bytes where the first was, a `memref.view` of it per buffer, one `gpu.dealloc async` where the last was (docs/Lowering.md) |
    | `vyre.dispatch` | `gpu.launch_func async` on the main stream |
    | `vyre.copy_h2d`, `vyre.copy_d2h` | `gpu.memcpy async` on the main stream, then the host waits for it |
    | `vyre.copy_h2d_async`, `vyre.copy_d2h_async` | `gpu.memcpy async` on its side stream, after a join of its dependencies |
    | `vyre.record` | the main stream's current token |
    | `vyre.wait` | a join (`gpu.wait async [...]`) that the main stream continues on |
    | `vyre.sync` | the host waits for, and destroys, the streams of its tokens (`gpu.wait [...]`) |

    Every stream the lowering creates is a chain of tokens. Only async forms
    are used, and every memcpy, alloc, dealloc and launch has exactly one
    dependency; several are joined first. The output is correct under the
    way upstream's `gpu-to-llvm` runs tokens (a join records its events right
    after each dependency's defining op), and stays so through upstream's
    pipeline:

    - A token lives in the block that created its stream. Before a region op
      holding vyre ops, the host waits for the main stream, for the streams
      of tokens the region uses and for the side streams it enqueues on
      (inside a region: for every stream of the block); each region run
      creates its own streams and destroys them before its terminator.
    - Except a device region (an `scf.for` or `scf.if` whose vyre ops are
      all directly in its blocks or in device regions nested in them),
      unless `carry-loop-streams=false`: it is chained on the device with
      events, without the host waiting before it or between a loop's
      iterations. A branch yields the event after its work as an
      `!llvm.ptr` result. The loop carries an event (an `!llvm.ptr` iter_arg)
      that every stream of an iteration waits for
      (`mgpuStreamWaitEvent`); the iteration records the next event on a
      join of its streams and destroys them without the host waiting
      (`mgpuStreamDestroy`). These are runtime calls, with a token cast to
      the `!llvm.ptr` upstream's gpu-to-llvm makes of it: the gpu dialect
      has no op for them. Unless `lend-streams=false`, the streams an
      iteration or a branch uses are not created there: each continues a
      stream retired before the op, or one made once before the loop (the
      `!llvm.ptr` cast back to a token); a join never names a token on such
      a stream, and waits for it through an event instead.
    - A join keeps two operands whatever `canonicalize` erases (it names a
      dependency twice where needed), so it never folds into another stream.
      At the end of each block, one blocking `gpu.wait` takes the tail token
      of every stream the block created and did not destroy yet: no stream
      leaks and none is destroyed twice.
    - A buffer from `gpu.alloc async` is used on another stream only after a
      join on its allocation's token.
    - A function without async vyre ops (not scheduled by `--overlap-copies`)
      keeps its sequential meaning: the host waits for the device before each
      host op that may touch memory.

    The kernels' `vyre.access` summaries (see `--vyre-kernel-access`) are
    dropped, since upstream's lowering changes the kernels' signatures.
    Functions' `vyre.effects` (see `--vyre-function-effects`) and
    `vyre.not_imported` (see `--convert-gpu-host-to-vyre`) are dropped too,
    unless `keep-effects=true`: `--vyre-verify-gpu-streams` reads them (what
    a call touches, and which functions vyre did not schedule), so a
    pipeline that runs it keeps them until after it and then runs this pass
    again to drop them.

    An op the lowering cannot handle (a kernel without a body, a copy of a
    strided or offset view, vyre ops in a region of several blocks, a wait on
    a token no vyre op of the function made) is an error naming it. So is a
    blocking `gpu.wait` in hand-written async code that waits on a token
    whose stream has later work it does not name: it relies on the token
    being its stream, and the `canonicalize` that follows in the pipeline
    would erase the wait and let that work run past it. A vyre op inside a
    `gpu.launch` body (device code) is an error too.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let options = [
    Option<"keepEffects", "keep-effects", "bool", /*default=*/"false",
           "Keep functions' vyre.effects and vyre.not_imported, for "
           "--vyre-verify-gpu-streams">,
    Option<"carryLoopStreams", "carry-loop-streams", "bool",
           /*default=*/"true",
           "An scf.for whose body holds vyre ops but no region with them "
           "carries each iteration's stream work to the next on the device "
           "(an event per iteration) instead of the host waiting for it "
           "(false: the host waits at the end of every iteration)">,
    Option<"lendStreams", "lend-streams", "bool", /*default=*/"true",
           "A stream a chained loop or branch makes without dependencies "
           "continues a stream retired before it, or one made once before "
           "the loop, instead of creating one in every iteration (false: "
           "each run of a block creates its own streams)">,
  ];
}

def ConvertGPUHostToVyrePass
    : Pass<"convert-gpu-host-to-vyre", "::mlir::func::FuncOp"> {
  let summary = "Import synchronous gpu-dialect host code into vyre";
  let description = [{
    Rewrites the synchronous host code that MLIR GPU compilers emit in the
    upstream `gpu` dialect into vyre, so that `--overlap-copies` can overlap
    its copies with its kernels:

    | gpu | vyre |
    | --- | --- |
    | `gpu.alloc` | `vyre.alloc` |
    | `gpu.dealloc` | `vyre.dealloc` |
    | `gpu.launch_func` | `vyre.dispatch` (same kernel, grid and arguments) |
    | `gpu.memcpy` into device memory | `vyre.copy_h2d` |
    | `gpu.memcpy` into host memory | `vyre.copy_d2h` |

    A copy's direction comes from where each side comes from, following
    views to their root:

    - device memory: a `gpu.alloc` result, or a memref in a gpu address
      space;
    - host memory: `memref.alloc`, `memref.alloca`, `memref.get_global`, or a
      buffer registered with `gpu.host_register` in the function;
    - a function argument may be either: it is host memory when the other
      side is device memory, and device memory when the other side is host
      memory.

    A function holding one synchronous gpu host op the pass cannot import
    is left as written, whole, with a `missed` remark
    (`--remarks-filter=convert-gpu-host-to-vyre`) at that op that says why:
    a copy whose direction cannot be decided, a launch with clusters,
    dynamic shared memory or a kernel that is not a `gpu.func` it can see,
    an allocation that takes symbol operands, a `gpu.memset`. A
    `host_shared` (managed) allocation stays as written, synchronous: host
    memory that kernels reach too, a slot whose host accesses count. The pass marks such a function `vyre.not_imported` with
    the reason, so that later vyre passes do not warn that it was not
    imported.

    A function whose gpu host ops all take or make tokens (or that holds an
    `async` dialect op) is left exactly as written: it may depend on
    concurrency, for example two kernels that each wait until the other has
    started, which serializing would hang. A remark says so. So is a
    function with gpu ops in a region of several blocks, which vyre's
    lowering does not take.

    A function that mixes the two is imported around its explicit ops,
    which keep their tokens as written (they are never ordered among
    themselves), provided every token is made and used by gpu host ops in
    the function's top block (else it is left as written, with the reason).
    The synchronous ops are imported; the host waits for explicit work still
    in flight (not yet covered by a blocking `gpu.wait`) before a top-level
    op holding a synchronous op that touches the same buffers (a write on
    either side), with `%j = gpu.wait async [%t, ...]` and `gpu.wait [%j]`,
    which leave the explicit streams to the function's own waits. To later
    passes an explicit op touches the buffers it names when the host issues
    it, and a blocking wait what the work it waits for touches, so vyre's
    work before an explicit op on the same buffers finishes before the host
    issues it, and after vyre's allocation of a buffer it names. A call
    counts as a synchronous op on the memrefs it passes. Buffers may overlap
    unless one is an allocation in the function or an `llvm.noalias`
    argument, or both have the same root. Each explicit op is marked
    `vyre.written_async`, which tells the gpu-level referee that it runs as
    its author ordered it. Remark `ImportedAroundExplicitAsync` counts the
    explicit ops and the waits inserted.

    A `gpu.launch` that is not outlined is an error: run
    `--gpu-kernel-outlining` first (`--vyre-gpu-async-pipeline` does).
    `gpu.host_register` stays; it marks its buffer pinned for
    `--overlap-copies`.

    ```mlir
    %d = gpu.alloc () : memref<256xf32>
    gpu.memcpy %d, %h : memref<256xf32>, memref<256xf32>
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%d : memref<256xf32>)
    ```

    becomes

    ```mlir
    %d = vyre.alloc : memref<256xf32>
    vyre.copy_h2d %h to %d : memref<256xf32> to memref<256xf32>
    vyre.dispatch @kernels::@scale blocks(%c1, %c1, %c1)
        threads(%c256, %c1, %c1) args(%d : memref<256xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::vyre::VyreDialect"];
}

def GPUAsyncRegionForSynchronousCodePass
    : Pass<"vyre-gpu-async-region-for-synchronous-code",
           "::mlir::func::FuncOp"> {
  let summary = "Run upstream's --gpu-async-region only on functions whose "
                "gpu host ops are all synchronous";
  let description = [{
    Upstream's `--gpu-async-region` threads one token through every gpu op
    of a function, also through ops that already take tokens. On a function
    written asynchronous by hand that breaks it: two kernels launched from
    separate streams (each spinning until the other has started, say) get
    chained, a hang on a GPU; a blocking wait on two tokens of one stream
    destroys it twice; a launch gets two dependencies, which `gpu-to-llvm`
    cannot lower.

    This pass runs upstream's pass on a function only where every gpu host
    op of the function is synchronous (takes no token and makes none), so
    must be made asynchronous before it lowers. A function whose gpu host
    ops all take or make tokens is left exactly as written, with an analysis
    remark `AsyncLeftAsWritten` (category
    `vyre-gpu-async-region-for-synchronous-code`).

    A function that mixes the two forms keeps its explicit tokens as
    written, and the synchronous ops of each block run in order on one
    stream, asynchronous to the host, as upstream's pass would run them
    (`%s = gpu.wait async` before the first, each with `async [%t]` of the
    one before). The host waits for that stream (`gpu.wait [%t]`, which
    `gpu-to-llvm` lowers to a synchronize and a destroy) only before the
    first later op of the block that may need its work: an explicit gpu op
    on the same buffers (a write on either side, buffers that may overlap)
    or whose buffers are unknown, a host op whose memory effects may touch
    them or are unknown (a call, an op with regions that has effects), and
    the block's terminator. A synchronous op after that wait starts a new
    stream. Before a synchronous op, the host waits for explicit work still
    in flight in its block on its buffers, as
    `--convert-gpu-host-to-vyre` makes it wait in the functions it imports.
    A `host_shared` allocation stays synchronous (`gpu-to-llvm` lowers no
    other form), so a function with one is treated so too, with no explicit
    token. Remark `SynchronousOpsOnOneStream`.

    `--vyre-gpu-async-pipeline` runs it, instead of upstream's pass, on the
    functions `--convert-gpu-host-to-vyre` did not import.
  }];
}

#endif // VYRE_CONVERSION_PASSES_TD
