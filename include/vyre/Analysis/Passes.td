//===- Passes.td - vyre analysis passes --------------------*- tablegen -*-===//

#ifndef VYRE_ANALYSIS_PASSES_TD
#define VYRE_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KernelAccessPass : Pass<"vyre-kernel-access", "::mlir::ModuleOp"> {
  let summary = "Record on each kernel how it reads and writes its arguments";
  let description = [{
    Computes, once per kernel and from its body, whether the kernel reads and
    whether it writes each argument, and records it on the kernel as a
    `vyre.access` list in the vocabulary of a dispatch's `access` list
    (`read`, `write`, `readwrite`, `none`). Loads are reads, stores are
    writes, atomic read-modify-writes are both; a view of an argument counts
    as the argument; a use the analysis does not model (a call, an op without
    declared memory effects, the buffer escaping into a value) is both. An
    argument that is not a memref is `none`.

    Every `gpu.func` kernel, and every `func.func` with the `gpu.kernel`
    attribute, in a `gpu.module` is summarized. The pass runs on the whole
    module, not on each `gpu.module`: passes on host functions read the
    summaries, and the pass manager would run a `gpu.module` pass
    concurrently with the `func.func` passes after it. A summary the kernel already
    carries is kept and widened to cover what the body does, never narrowed.
    A kernel declared without a body keeps its declared list, or gets none.

    The slot access analysis, and so `--overlap-copies`, the referee and the
    simulator, read these summaries and never look into kernel bodies. A
    dispatched kernel with a body but without a summary is taken to read and
    write every argument; `--overlap-copies` says so in a remark. The
    pipelines run this pass first.

    ```mlir
    gpu.func @scale(%in: memref<64xf32>, %out: memref<64xf32>, %s: f32) kernel
        attributes {vyre.access = [#vyre.access<read>, #vyre.access<write>,
                                   #vyre.access<none>]} { ... }
    ```

    The summary describes the body as it was when the pass ran: run it again
    after a pass that changes kernel bodies.
  }];
  let dependentDialects = ["::mlir::vyre::VyreDialect"];
}

def FunctionEffectsPass : Pass<"vyre-function-effects", "::mlir::ModuleOp"> {
  let summary = "Record on each host function what a call to it may touch";
  let description = [{
    Computes, for every `func.func` with a body outside `gpu.module`s, what a
    call to it may touch, and records it as `vyre.effects`:

    - `"none"`: no memory its caller can see (only its own allocations);
    - `"arguments"`: only memory reachable through its memref arguments,
      read or written, on the host or on the device (through vyre ops); its
      device work is done when it returns, as for any vyre function.

    A function that may touch anything else (a global, memory through a
    pointer, an op without declared effects, a call of unknown effect, a call
    in a cycle of calls) gets no attribute, and a call to it may touch
    anything. A `vyre.effects` the function already carries is replaced by
    what its body shows. An external declaration keeps the attribute its
    author wrote, which is a promise the passes trust:

    ```mlir
    func.func private @log_row(memref<16xf32>) attributes {vyre.effects = "arguments"}
    func.func private @tick() attributes {vyre.effects = "none"}
    ```

    `--overlap-copies`, both referees and the simulator read the attribute
    of a `func.call`'s callee: a call to a `"none"` function touches
    nothing, one to an `"arguments"` function reads and writes its memref
    operands (on the host, and as slots where they are), and any other call
    touches everything. The pipelines run this pass after
    `--vyre-kernel-access`.
  }];
  let dependentDialects = ["::mlir::vyre::VyreDialect"];
}

def EstimateKernelCostsPass
    : Pass<"vyre-estimate-kernel-costs", "::mlir::ModuleOp"> {
  let summary = "Give each dispatch without vyre.cost_us an estimate of its "
                "kernel's time, from the kernel's body and the grid";
  let description = [{
    Compilers do not write `vyre.cost_us` on their launches, so the cost
    model of `--overlap-copies` and the simulator would assume
    `default-kernel-us` for every kernel. This pass estimates each
    `vyre.dispatch` that declares no time with a roofline:

    - one thread's work is read off the kernel's body: the bytes its loads
      and stores move to and from global memory (`memref.load`,
      `memref.store`, `vector.load`, `vector.store`, `memref.atomic_rmw`
      twice; workgroup and private memory, and a thread's own
      `memref.alloca`, are not counted) and its floating-point operations
      (`arith` float ops and `math` ops, one per lane and result;
      `math.fma` two). An `scf.for` counts its constant trip count times
      (bounds compared signed or, for `scf.for unsigned`, unsigned), an
      `scf.if` its costlier side;
    - the threads are the product of the dispatch's grid and block sizes,
      which must be constants;
    - the time is the longer of moving all threads' bytes at `memory-gbps`
      and doing their operations at `tflops`.

    The estimate is written as `vyre.cost_us`, with `vyre.cost_estimated`
    beside it, so that the passes after it read it as a declared time. A
    dispatch that has a `vyre.cost_us` keeps it, whatever its type. Where no
    estimate can be made (a loop of unknown trip count, a call, branches
    between blocks, a grid that is not constant, a memory op that is not
    counted, an op that declares no effects, a scalable vector, a count
    past 2^64 - 1, an estimate that is not finite), the dispatch is left as
    it is, and the default applies.

    With `--remarks-filter=estimate-kernel-costs`, each estimate is an
    `analysis` remark with its figures, and each dispatch left without one a
    `missed` remark with the reason.

    The defaults are an H200's datasheet figures (HBM3e, FP32 without
    tensor cores), not measured here; a roofline is a lower bound of a
    kernel's time.
  }];
  let dependentDialects = ["::mlir::vyre::VyreDialect"];
  let options = [
    Option<"memoryGBps", "memory-gbps", "double", /*default=*/"4800.0",
           "Global memory bandwidth the estimate assumes, GB/s">,
    Option<"tflops", "tflops", "double", /*default=*/"67.0",
           "Floating-point throughput the estimate assumes, TFLOP/s">,
  ];
}

def ApplyProfilePass : Pass<"vyre-apply-profile", "::mlir::ModuleOp"> {
  let summary = "Give dispatches the kernel times a run measured "
                "(vyre-gpu-driver --profile-out)";
  let description = [{
    The second step of profile-guided costs. The first builds and runs the
    program once (`scripts/build-executable.sh`, then the executable with
    `--profile-out FILE`): the CUDA runtime times each kernel launch with
    events on its stream and writes, per kernel name, the launches and their
    mean time, as a JSON file:

    ```json
    {"vyre_profile": 1, "runtime": "cuda",
     "kernels": [
       {"name": "scale", "launches": 8, "mean_us": 12.5}
     ]
    }
    ```

    This pass reads the file and writes each `vyre.dispatch` of a kernel it
    names with a measured time as `vyre.cost_us` (the mean), with
    `vyre.cost_profiled` beside it, replacing a time
    `--vyre-estimate-kernel-costs` estimated (`vyre.cost_estimated`, which
    it removes) but never one the dispatch declares by hand. A kernel is
    named by its symbol's leaf (`@k::@scale` is `scale`), as the runtime
    knows it; two kernels of one name in different `gpu.module`s share the
    time, and a `missed` remark says so. The kernel times of the profile are
    means over every launch of the kernel, whatever its grid.

    Remarks (`--remarks-filter=apply-profile`): `KernelTimeProfiled` for
    each dispatch given a time, `KernelTimeNotProfiled` (missed) for one
    the profile does not time (not in it, or in it without a time: the host
    runtime runs no kernel and times none). An unreadable file, JSON that
    does not parse, a file that is not a version 1 profile, or a time that
    is not a finite non-negative number is an error naming the file.
  }];
  let dependentDialects = ["::mlir::vyre::VyreDialect"];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"\"",
           "The profile file to read">,
  ];
}

#endif // VYRE_ANALYSIS_PASSES_TD
