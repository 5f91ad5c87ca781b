//===- Passes.td - vyre verification passes ----------------*- tablegen -*-===//

#ifndef VYRE_VERIFICATION_PASSES_TD
#define VYRE_VERIFICATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifySchedulePass : Pass<"vyre-verify-schedule", "::mlir::func::FuncOp"> {
  let summary = "Check a vyre schedule for races against the input order";
  let description = [{
    Checks vyre IR, sequential or asynchronous, against the correctness
    criterion: any two operations that may access a common slot or host
    buffer, at least one of them writing, must be ordered by happens-before,
    in their input order. It reports each pair that is unordered, or ordered
    the other way, as an error on the later op with a note at the earlier
    one, naming the slot or host buffer.

    Happens-before is built from program order on the host, enqueue order
    (device work starts after the host ops before it), stream order (the main
    stream, and each side stream), token edges (`vyre.wait`, `vyre.sync`,
    async copy dependencies, `vyre.record`), blocking copies (`vyre.copy_d2h`
    and `vyre.copy_h2d` return once done), and the return, which waits for the
    main stream and then may touch every buffer (the caller's view).

    The input order of two ops is their source order (file location), so a
    copy that `--overlap-copies` hoisted keeps its original place. A loop body
    is checked over two iterations, and each combination of `scf.if` branches
    (up to 16,384: 14 `scf.if` ops) separately. The checker is written
    independently of `--overlap-copies`: it shares the slot access analysis, not the pass's
    hazard code. IR it does not understand (a region op other than `scf.for`,
    `scf.if` and `scf.execute_region` holding vyre ops, a region of several
    blocks, a token it cannot resolve) is an error, never a guess. A region
    op it does not unfold touches what its body touches (the rule
    `--overlap-copies` follows). A host op that reads, writes or frees a
    `vyre.alloc` buffer is an error at that op: the host cannot dereference
    device memory.

    The check is linear in the trace's accesses where no pair races: each
    access is checked against the last write to its location and the reads
    since, with happens-before as one vector clock per op (one entry per
    stream and one for the host). Where a pair may race, each pair is then
    checked to report every race. A trace holds each loop body twice, so
    nesting doubles it per level: a function whose trace would be longer
    than `max-events` is an error, before anything is unfolded, on the
    top-level op that makes it so, naming the option.
  }];
  let options = [
    Option<"maxEvents", "max-events", "unsigned", /*default=*/"500000",
           "The most events (executed ops) one trace may hold; more is an "
           "error, before anything is unfolded, on the top-level op that "
           "makes the trace too long">,
    Option<"maxBranchIfs", "max-branch-ifs", "unsigned", /*default=*/"14",
           "The most scf.if ops on distinct conditions one function may "
           "hold (1 to 24): the checker runs every combination of their "
           "branches, so each one more doubles its time; more is an error at "
           "the function">
  ];
}

def VerifyGPUStreamsPass : Pass<"vyre-verify-gpu-streams", "::mlir::ModuleOp"> {
  let summary = "Check async gpu-dialect host code as gpu-to-llvm runs it";
  let description = [{
    Checks every host function of the module (any async `gpu` dialect IR,
    vyre's lowering or another producer's) against the way upstream
    `gpu-to-llvm` turns tokens into CUDA streams and events:

    - `gpu.wait async` without dependencies creates a stream, and so does
      `gpu.launch_func async` without dependencies; an async op with one
      dependency runs on that dependency's stream, in order;
    - a join `gpu.wait async [%a, %b]` records an event right after the op
      that defined each dependency, then creates a new stream that waits on
      those events and destroys them; the source streams live on;
    - a blocking `gpu.wait [%a, ...]` synchronizes and destroys the stream of
      each token.

    The function is unfolded into a trace (each `scf.for` body twice, or not
    at all when its trip count is unknown, and once in a run that repeats
    an earlier run of the trace, see `repeats-once`; each `scf.while`
    likewise; each
    combination of `scf.if` branches and `scf.index_switch` cases, up to
    `max-traces` traces; tokens and memrefs followed through iter_args, yields
    and results), and happens-before is built over it from host
    program order, enqueue order, stream order, event edges and blocking
    waits. Kernel argument accesses come from the kernel bodies. Reported as
    errors: races (two accesses to a buffer, one a write, unordered), device
    work not complete at the return, a `gpu.alloc async` buffer used by an op
    not ordered after the alloc, a buffer used after its `gpu.dealloc`, events
    or streams used after they are destroyed, destroyed twice, or left alive
    at the return. IR that `gpu-to-llvm` does not lower as modelled (an async
    op with several or no dependencies, a join or blocking wait on a token
    that is not traceable to a stream, a region op it cannot unfold holding
    gpu ops) is an error naming the op, and so is a host op that reads,
    writes or frees a `gpu.alloc` buffer that is not `host_shared`.

    Warned about: a blocking `gpu.wait` on a token whose stream has work
    enqueued after it, which the wait does not name otherwise. As
    `gpu-to-llvm` runs it, the wait covers that work (a token is its stream);
    upstream's `canonicalize` takes a token for the op that made it, and may
    erase the wait. `--convert-vyre-to-gpu` refuses such a program.

    Example: the stream of `%s` is never destroyed, and the kernel may still
    run at the return.

    ```mlir
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @kernels::@fill
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buffer : memref<16xf32>)
    return
    ```
  }];
  let options = [
    Option<"maxTraces", "max-traces", "unsigned", /*default=*/"64",
           "The most traces (combinations of scf.if branches and loop trip "
           "counts) checked per function; more is an error">,
    Option<"maxTraceNodes", "max-trace-nodes", "unsigned",
           /*default=*/"50000",
           "The most nodes (executed ops, events and stream creations) one "
           "trace may hold; more is an error on the outermost region op "
           "being unfolded (the check's time and memory grow as the square "
           "of a trace's length)">,
    Option<"repeatsOnce", "repeats-once", "bool", /*default=*/"true",
           "A run of an scf.for that repeats an earlier run in full of the "
           "same trace (the same streams, events and buffers from outside, "
           "no token or memref carried, no branch inside) runs one "
           "iteration, where the nodes of its ops in the earlier run's two "
           "iterations are ordered; false runs every loop twice (a nest of "
           "d loops then holds 2^d bodies)">
  ];
}

#endif // VYRE_VERIFICATION_PASSES_TD
