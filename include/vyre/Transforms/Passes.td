//===- Passes.td - vyre transformation passes --------------*- tablegen -*-===//

#ifndef VYRE_TRANSFORMS_PASSES_TD
#define VYRE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OverlapCopiesPass : Pass<"overlap-copies", "::mlir::func::FuncOp"> {
  let summary = "Run host-to-device copies on side streams, waiting only where "
                "the verdict is Serialize";
  let description = [{
    Rewrites every `vyre.copy_h2d` into a `vyre.copy_h2d_async` on a side
    stream, moves it as early as is legal, and orders it against the rest of
    the program with tokens, so that the copy runs on the copy engine while
    unrelated kernels run. The output computes the same result as the input
    under every timing.

    For a copy C from host buffer H into slot S:

    1. **Hoist.** C moves up past every op that does not access S (or a slot
       that may alias it), does not write or free H, and does not define C's
       operands. Ops with regions and calls count as everything their bodies
       may touch; an op of unknown effect stops it.
    2. **Write-after-read / write-after-write.** If an earlier op K accesses S
       and may still be in flight on the main stream, C waits for K and only
       K: a `vyre.record` after K is a dependency of C. An earlier async copy
       into S is a dependency directly.
    3. **Wait only where the verdict is Serialize.** The first later op that
       reads or writes S (a dispatch, a D2H copy, a dealloc) waits for C's
       token on the device (`vyre.wait`); the main stream then orders the
       rest. The first later host op that writes or frees H, or any op of
       unknown effect, is preceded by `vyre.sync`. A later copy into S takes
       the token as a dependency instead.
    4. **Tokens do not outlive their block.** Tokens the main stream has not
       waited for are synchronized (`vyre.sync`) before the block's
       terminator. A function's return also waits for its main stream. In
       an `scf.for` body with nothing on the host (nested such loops and
       branches included), the main stream waits for them instead
       (`vyre.wait`), and the host waits for the main stream once after the
       outermost such loop.

    Each token is waited for at most once on any path; where the host needs a
    token the main stream already waited for, it synchronizes on a
    `vyre.record` placed after that wait.

    With `--remarks-filter=overlap-copies`, every copy gets a remark: `passed`
    with how many kernels it may overlap, or `missed` with the op that forced
    the wait and why. An `analysis` remark says when the host buffer is not
    known to be pinned (registered with `gpu.host_register`, or a function
    argument marked `vyre.pinned`): pageable memory defeats overlap.

    **The cost model.** Moving a copy costs the host a join where it starts
    (if it has dependencies) and one where the main stream waits for it
    (`event-us` per dependency, `stream-create-us` per join), or a
    synchronization where the host does (`host-sync-us`), less the
    synchronization of the copy in place. The overlap saves at most the
    copy's time (`copy-latency-us` plus its bytes over `h2d-gbps` or
    `d2h-gbps`), and at most the kernel time it can run beside: the kernels
    still in flight where it is issued, and those issued before the first op
    that waits for it (`vyre.cost_us` of each dispatch, or
    `default-kernel-us`). It also saves the time of the copies moved after
    it, which the copy in place would hold back while the host waits out
    the kernels in flight and the copy (at most that wait). The first copy
    on a side stream also costs the host's wait for that stream at the
    return. A copy whose saving is below the overhead stays
    where it is, with a `missed` remark `CopyNotWorthMoving` ("copy of 4 KiB:
    saving 2.1 us < overhead 3.4 us"); the later copies in its direction
    stay behind it. With `async-in-place` (the default) a copy in place costs
    no host synchronization and holds no later copy back, so the model
    counts neither as a saving of moving it. The copies are weighed in sweeps over one plan (at
    most four; each later one knows the copies the earlier ones left in
    place); then the plan is revised: the copies that must follow a copy
    left in place move below it, and the waits are planned again (with
    side-streams above 1, the function is planned again instead).
    `cost-model=false` moves every copy it may. The defaults are those of
    `--vyre-simulate`.

    **Copies in the order they are needed.** With `order-copies` (the
    default), each run of consecutive copies into the device in a block is
    issued in the order of the copies' first consumers (the first later op
    that touches the destination, or may touch anything), before planning:
    on a side stream a copy waits for every copy issued before it. Copies
    where one writes a slot the other touches keep their order; a copy into
    a function argument keeps its place. Remark `CopiesOrderedByNeed`.

    **Kernels in the order of the critical path.** With `order-kernels`
    (the default), each run of copies and dispatches in a block that
    nothing orders among themselves is list-scheduled first, on the engines
    `--vyre-simulate` models (a copy engine per direction, one for
    kernels): of the ops free to go, the one that can start first, ties to
    the longest chain after it. Where that estimate, with the ops after the
    run, beats the input's order by more than 1% (and 1 us), the run is
    issued in the order the schedule starts its ops: a kernel whose copy
    back can run beside another copy goes first. Two ops keep their order
    where one may write what the other touches. Remark
    `WorkOrderedByCriticalPath`.

    **Copies left in place.** With `async-in-place` (the default), every
    copy that stays on the main stream becomes `vyre.copy_h2d_async` or
    `vyre.copy_d2h_async` on stream 0, as `--vyre-async-in-place` makes it:
    it runs in the main stream's order, and the host waits for it only
    before an op that touches its buffers.

    Example:

    ```mlir
    vyre.copy_h2d %hw to %w : memref<256xf32> to memref<256xf32>
    vyre.dispatch @k::@other ... args(%x : memref<256xf32>)
    vyre.dispatch @k::@use ... args(%w : memref<256xf32>)
    ```

    becomes

    ```mlir
    %t = vyre.copy_h2d_async %hw to %w on stream 1 : memref<256xf32> to memref<256xf32>
    vyre.dispatch @k::@other ... args(%x : memref<256xf32>)
    vyre.wait %t
    vyre.dispatch @k::@use ... args(%w : memref<256xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::vyre::VyreDialect"];
  let options = [
    Option<"hoist", "hoist", "bool", /*default=*/"true",
           "Move each copy as early as is legal (false: convert in place)">,
    Option<"sideStreams", "side-streams", "unsigned", /*default=*/"1",
           "Number of side streams to spread independent copies over (one "
           "per copy engine)">,
    Option<"asyncD2H", "async-d2h", "bool", /*default=*/"true",
           "Make device-to-host copies asynchronous too, on streams of "
           "their own (side-streams + 1 to side-streams + d2h-streams): the "
           "host waits only "
           "before it touches the destination (false: they stay on the main "
           "stream, see async-in-place)">,
    Option<"d2hStreams", "d2h-streams", "unsigned", /*default=*/"1",
           "Number of streams to spread asynchronous device-to-host copies "
           "over (one per device-to-host copy engine)">,
    Option<"asyncInPlace", "async-in-place", "bool", /*default=*/"true",
           "Copies left on the main stream (the cost model's, and "
           "device-to-host copies with async-d2h=false) do not make the host "
           "wait: the host waits only before an op that touches their "
           "buffers (as --vyre-async-in-place; false: the host waits for "
           "each)">,
    Option<"orderCopies", "order-copies", "bool", /*default=*/"true",
           "Issue each run of consecutive copies into the device in the "
           "order their first consumers need them, where nothing orders "
           "them among themselves (false: the input's order)">,
    Option<"orderKernels", "order-kernels", "bool", /*default=*/"true",
           "Issue each run of copies and kernels that nothing orders among "
           "themselves in the order a list schedule by critical path starts "
           "them, where its estimate beats the input's order (false: the "
           "input's order)">,
    Option<"costModel", "cost-model", "bool", /*default=*/"true",
           "Leave a copy in place where the modelled saving of moving it is "
           "below the overhead of moving it (false: move every copy it may)">,
    Option<"launchUs", "launch-us", "double", /*default=*/"0.85",
           "Host time the cost model assumes for a launch or a memcpy, us">,
    Option<"eventUs", "event-us", "double", /*default=*/"1.7",
           "Host time the cost model assumes for each dependency of a join "
           "(an event record and a stream wait), us">,
    Option<"hostSyncUs", "host-sync-us", "double", /*default=*/"1.7",
           "Host time the cost model assumes for each host synchronization, "
           "us">,
    Option<"streamCreateUs", "stream-create-us", "double", /*default=*/"0.0",
           "Host time the cost model assumes for the stream a join creates, "
           "us (0: the runtime's pools)">,
    Option<"h2dGBps", "h2d-gbps", "double", /*default=*/"55.0",
           "Host-to-device bandwidth the cost model assumes, GB/s">,
    Option<"d2hGBps", "d2h-gbps", "double", /*default=*/"55.0",
           "Device-to-host bandwidth the cost model assumes, GB/s">,
    Option<"copyLatencyUs", "copy-latency-us", "double", /*default=*/"2.0",
           "Fixed cost of each copy the cost model assumes, us">,
    Option<"defaultKernelUs", "default-kernel-us", "double",
           /*default=*/"10.0",
           "Kernel time the cost model assumes without a vyre.cost_us "
           "attribute, us">,
  ];
}

def PipelineLoopsPass : Pass<"vyre-pipeline-loops", "::mlir::func::FuncOp"> {
  let summary = "Issue a loop's copies iterations ahead, into rotating "
                "buffers, so that --overlap-copies overlaps them across "
                "iterations";
  let description = [{
    Rewrites `scf.for` loops of a sequential vyre program into a sequential
    program that computes the same thing, in a shape `--overlap-copies` can
    overlap across iterations. It runs before `--overlap-copies`.

    1. **Invariant copies leave the loop.** A `vyre.copy_h2d` whose source and
       destination are defined outside the loop, where nothing in the loop
       writes either (or reads the destination before the copy), moves in
       front of the loop; where the loop may run zero times, only if nothing
       after the loop uses the destination and its source is a fixed part
       of an argument or of a host buffer freed after the loop.
    2. **Copies are issued early into rotating buffers.** A copy that fills a
       whole `vyre.alloc` buffer A at the start of every iteration (nothing in
       the body touches A before it, nothing after the loop reads A) is issued
       `pipeline-depth - 1` iterations ahead. Iteration i uses buffer
       `A[i mod pipeline-depth]`: A itself and `pipeline-depth - 1` new
       `vyre.alloc` buffers, freed after the loop.
    3. **Overwritten outputs rotate too.** A buffer that a launch declares it
       overwrites (`access [..., overwrite]`) rotates on the same conditions,
       and a `vyre.copy_d2h` from it is issued one iteration late, after the
       next iteration's launch, when nothing else in the body touches its
       host destination.
    4. **Bodies may branch.** An `scf.if` of the body is written out with it.
       A copy in a branch that is the first to touch its buffer there is
       issued early under the same condition (computed again, by pure ops,
       for the iteration it fills); the buffer may be used after it in its
       branch, and after the `scf.if` where both branches fill it.

    The loop becomes a prologue (the first copies), a loop unrolled
    `pipeline-depth` times, the last iterations, and the remainder of the
    trip count modulo the depth as written (under one `scf.if` and in one
    `scf.for` when the trip count is not a constant).

    No token crosses into a loop's body, so copies in flight where a loop
    starts are all waited for there. Where copies run right in front of a
    loop (those moved out of a loop not pipelined, or the prologue's fills
    in front of the unrolled loop) and the first op of its body with device
    work is a launch or copy that does not use the destination of one of
    them, the loop's first iteration is written out in front of it, so
    that each of its kernels waits only for the copies it uses: for a
    constant trip count of at least 1, no iter_args, a body that does not
    branch around device work, and within the growth limit below.

    With `cost-model` (the default), a copy that the kernels of the body
    before its first use hide is left in its iteration: the copies issued
    early in a body are all waited for where the next iteration starts, so
    moving one that needed no moving only delays that start. Its time is
    `copy-latency-us` plus its bytes at `h2d-gbps`; a kernel's is its
    `vyre.cost_us` (`default-kernel-us` without one); the copies left are
    counted together, in the order their buffers are first used, after the
    copies moved out of the loop (they hold the copy engine in its first
    iteration).

    The extra buffers of all loops of a function never exceed
    `buffer-budget` bytes: a loop that does not fit is pipelined less deep,
    or not at all, and a remark says so. Nor may a function grow past 16
    times its ops as written, or 100,000 ops, whichever is more, as
    estimated before each rewrite (pipelining an inner loop puts code in the
    loop around it, which pipelining writes out again): a loop whose
    written-out form might pass that is likewise pipelined less deep, or not
    at all.

    **The depth is chosen per loop** (`pipeline-depth=0`, the default). With
    the cost model, each depth from 2 to `max-pipeline-depth` that the
    budget holds is tried: the loop is pipelined at that depth in a copy of
    the function's body, `--overlap-copies` schedules it with this pass's
    options of the same names (`side-streams`, `async-d2h`, ..., and the
    cost figures: in `--vyre-to-gpu-pipeline` they are the options
    `--overlap-copies` runs with), and `--vyre-simulate` times it on the
    same figures (its engines and trip counts the defaults); the body is
    then put back. The fastest depth wins,
    the shallowest where makespans are within 0.1%. A deeper pipeline pays
    where iterations differ (a branch, an inner loop whose copies share the
    copy engine), and costs a buffer, its allocation, and a longer drain
    where the copies are long. Loops are chosen for innermost first, each
    with the depths chosen inside it, and with the loop around it (where
    its own trip count is known) pipelined at depth 2 in its trials, as
    this pass will by default once it gets there: a deeper inner loop may
    pay only once the loop around it is pipelined. A loop of unknown trip count (and
    constant lower bound and step) is tried with 16 iterations. Depth 2 is
    taken without trials where the simulator cannot time or compare the
    depths (dynamic sizes; a loop of unknown trip count elsewhere, which it
    runs `default-trip-count` times, differently split at each depth), and
    where the trials would schedule more than 200,000 ops for the function
    (each trial schedules the whole function: the limit keeps the pass
    linear) or simulate more than 1,000,000, loop iterations included (a
    loop the simulator cannot extrapolate, around the loop tried, multiplies
    its trip counts).
    Without the cost model the depth is 2; `pipeline-depth=N` fixes it.

    With `--remarks-filter=pipeline-loops`, a pipelined loop gets a `passed`
    remark with its depth, how it was chosen (each depth's simulated
    makespan) and its extra memory, a hoisted copy a `passed` remark,
    and a loop or copy left as it was a `missed` remark naming what blocked
    it: values carried by the loop, a loop pipelined already in the body, an
    op of unknown effect, a buffer used
    before its copy fills it or after the loop, a source computed by an op
    with effects, a body that may write the source.

    The ops that replace a loop carry the loop's location as their place in
    the input order (`--vyre-verify-schedule` reads it), and their own for
    diagnostics.

    Example (depth 2, 8 iterations):

    ```mlir
    scf.for %i = %c0 to %c8 step %c1 {
      %src = memref.subview %host[%i, 0] [1, 1024] [1, 1] : ...
      vyre.copy_h2d %src to %a : ...
      vyre.dispatch @k::@use ... args(%a : memref<1024xf32>)
    }
    ```

    becomes: copy iteration 0 into `%a`; run iteration 0 on `%a` and copy
    iteration 1 into a new buffer `%a1`; a loop over pairs of iterations
    whose body runs iteration j on `%a1` while copying j + 1 into `%a`, then
    iteration j + 1 on `%a` while copying j + 2 into `%a1`; and iteration 7
    on `%a1`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vyre::VyreDialect"];
  let options = [
    Option<"pipelineDepth", "pipeline-depth", "unsigned", /*default=*/"0",
           "Number of rotating buffers per prefetched copy; copies are "
           "issued pipeline-depth - 1 iterations ahead (0: chosen per loop, "
           "from 2 to max-pipeline-depth, by simulating each with the cost "
           "model, 2 without it; 1: only move invariant copies out of "
           "loops)">,
    Option<"maxPipelineDepth", "max-pipeline-depth", "unsigned",
           /*default=*/"4",
           "Deepest pipeline-depth=0 chooses">,
    Option<"bufferBudget", "buffer-budget", "uint64_t",
           /*default=*/"1073741824",
           "Most bytes of extra device memory the rotating buffers of one "
           "function may take">,
    Option<"costModel", "cost-model", "bool", /*default=*/"true",
           "Decide by modelled cost which copies to move (false: move every "
           "copy that may be). --vyre-pipeline-loops leaves in its "
           "iteration a copy the kernels before its first use hide; "
           "--overlap-copies leaves in place a copy whose saving is below "
           "its overhead">,
    Option<"h2dGBps", "h2d-gbps", "double", /*default=*/"55.0",
           "Host-to-device bandwidth the cost models assume, GB/s">,
    Option<"copyLatencyUs", "copy-latency-us", "double", /*default=*/"2.0",
           "Fixed cost of each copy the cost models assume, us">,
    Option<"defaultKernelUs", "default-kernel-us", "double",
           /*default=*/"10.0",
           "Kernel time the cost models assume without a vyre.cost_us "
           "attribute, us">,
    // How --overlap-copies schedules, which the depth trials follow: in
    // --vyre-to-gpu-pipeline, each is one option for both passes.
    Option<"hoist", "hoist", "bool", /*default=*/"true",
           "--overlap-copies (and the depth trials' schedules): move each "
           "copy as early as is legal (false: convert in place)">,
    Option<"sideStreams", "side-streams", "unsigned", /*default=*/"1",
           "--overlap-copies (and the depth trials' schedules): side streams "
           "to spread independent copies over (one per copy engine)">,
    Option<"asyncD2H", "async-d2h", "bool", /*default=*/"true",
           "--overlap-copies (and the depth trials' schedules): make "
           "device-to-host copies asynchronous too, on streams of their own">,
    Option<"d2hStreams", "d2h-streams", "unsigned", /*default=*/"1",
           "--overlap-copies (and the depth trials' schedules): streams to "
           "spread asynchronous device-to-host copies over">,
    Option<"asyncInPlace", "async-in-place", "bool", /*default=*/"true",
           "--overlap-copies (and the depth trials' schedules): copies left "
           "on the main stream make the host wait only before an op that "
           "touches their buffers">,
    Option<"orderCopies", "order-copies", "bool", /*default=*/"true",
           "--overlap-copies (and the depth trials' schedules): issue copies "
           "in the order their first consumers need them">,
    Option<"orderKernels", "order-kernels", "bool", /*default=*/"true",
           "--overlap-copies (and the depth trials' schedules): issue copies "
           "and kernels in critical-path order where that beats the input's">,
    Option<"launchUs", "launch-us", "double", /*default=*/"0.85",
           "Host time the cost models assume for a launch or a memcpy, us">,
    Option<"eventUs", "event-us", "double", /*default=*/"1.7",
           "Host time the cost models assume for each dependency of a join "
           "(an event record and a stream wait), us">,
    Option<"hostSyncUs", "host-sync-us", "double", /*default=*/"1.7",
           "Host time the cost models assume for each host synchronization, "
           "us">,
    Option<"streamCreateUs", "stream-create-us", "double", /*default=*/"0.0",
           "Host time the cost models assume for the stream a join creates, "
           "us (0: the runtime's pools)">,
    Option<"d2hGBps", "d2h-gbps", "double", /*default=*/"55.0",
           "Device-to-host bandwidth the cost models assume, GB/s">,
  ];
}

def DeduceNoAliasPass : Pass<"vyre-deduce-noalias", "::mlir::ModuleOp"> {
  let summary = "Mark function arguments llvm.noalias where every call in the "
                "module passes a distinct buffer";
  let description = [{
    Host programs that real compilers emit carry no `llvm.noalias`: `main`
    allocates the buffers and calls a function that copies them to the
    device and runs the kernels. Without it, every memref argument of that
    function may alias every other, so a copy into the device cannot move
    above a copy back into another argument, and a loop that copies back
    cannot be pipelined. This pass proves what the annotation would promise
    from the calls, as LLVM's Attributor deduces `noalias` for internal
    functions, and writes `llvm.noalias` on the arguments it proves. The
    passes after it read the annotation as if a user had written it.

    An argument is marked when, at every call to the function in the module:

    - the function is *closed*: every memref it uses comes from its
      arguments, its own allocations (and views of them) and globals, and it
      calls only closed functions of the module (no external function, no
      recursion, no `llvm` dialect op);
    - the call passes, for that argument, an allocation (`memref.alloc`,
      `gpu.alloc`, `vyre.alloc`, ...), a global (`memref.get_global`) that
      neither the function nor a function it calls names, or an argument of
      the caller already marked `llvm.noalias`, traced through views;
    - no other memref operand of the call may be the same buffer: a
      different allocation, global or `noalias` argument, or a static
      subview of the same buffer whose index range is disjoint in some
      dimension (rows 0 to 4095 and rows 4096 to 4103 of one array), where
      nothing in the module views memory from an allocation's base
      (`memref.reinterpret_cast`, `memref.extract_strided_metadata`). A
      buffer of unknown origin (a call's result, a loop-carried memref), or
      an operand that may carry one otherwise (a pointer, an async value),
      may be any other, so it spoils every argument of its call.

    Marks are added until nothing changes, so a chain of calls from `main`
    down passes its allocations on.

    The same way, an argument that every call passes host memory registered
    with `gpu.host_register` (through views), or an argument of the caller
    marked `vyre.pinned`, is marked `vyre.pinned`: the callee's copies from it
    are known to read pinned memory.

    Only a private function whose symbol is used by calls alone is marked in
    place (callers outside the module may pass anything to a public one).
    With `specialize` (the default), a function that holds gpu or vyre ops
    and cannot be marked in place (it is public, or some calls pass buffers
    that may alias) is copied once, as a private function with the marks,
    and the calls that pass distinct buffers call the copy; the function as
    written stays for every other caller.

    With `--remarks-filter=deduce-noalias`, each marked function (marked
    `llvm.noalias` or `vyre.pinned`) and each copy gets a `passed` remark
    naming the arguments, and a function that
    holds gpu or vyre ops and keeps unmarked memref arguments gets a `missed`
    remark with the reason.
  }];
  let options = [
    Option<"specialize", "specialize", "bool", /*default=*/"true",
           "Copy a function that holds gpu or vyre ops for the calls that "
           "pass distinct buffers, when it cannot be marked in place">,
  ];
}

def AsyncInPlacePass : Pass<"vyre-async-in-place", "::mlir::func::FuncOp"> {
  let summary = "Copies on the main stream without a host wait after each";
  let description = [{
    `vyre.copy_h2d` and `vyre.copy_d2h` run on the main stream, and the host
    waits for each before it goes on. Most host ops after a copy never touch
    its buffers, so that wait is lost time: the host could be issuing the
    next kernels. This pass makes every such copy asynchronous on the main
    stream (`vyre.copy_h2d_async` / `vyre.copy_d2h_async` on stream 0): it
    still runs between the same kernels, in the main stream's order, but the
    host goes on at once. The host waits (`vyre.sync` on the copy's token)
    only where the program needs the copy done:

    - before a host op that may write the source of a copy into the device,
      or read or write the destination of a copy into the host (through any
      buffer that may alias it), or touch its slot;
    - before an op of unknown effect (a call without `vyre.effects`, an op
      without declared memory effects);
    - before an op with regions that holds such an op, or a copy on a side
      stream that conflicts with the copy;
    - before the terminator of a block in a region of several blocks.

    An asynchronous copy on a side stream that conflicts with the copy takes
    its token as a dependency instead (no host wait). A copy in a loop body
    may still run when the body's next run starts, and after the loop: a
    conflicting op early in the body waits on a `vyre.record` placed at the
    top of the body, and one after the loop on a `vyre.record` placed just
    after it (the main stream's progress there covers the copies). The
    function's return waits for the main stream.

    `--overlap-copies` does this to the copies it leaves in place
    (`async-in-place`, on by default); this pass does it to a function as it
    is, scheduled or not.

    With `wait-before-any-effect`, the host waits instead where upstream's
    `--gpu-async-region` makes it wait: before every host op with memory
    effects (and every op with regions that holds one), and at the end of
    every block but the function's, for all the main stream's work. That
    schedule is upstream's, in vyre terms, for `--vyre-simulate` to compare.

    Each copy gets an analysis remark `CopyAsyncInPlace` (category
    `async-in-place`) naming the op before which the host first waits for
    it.

    ```mlir
    vyre.copy_d2h %dev to %host : memref<256xf32> to memref<256xf32>
    vyre.dispatch @k::@other ... args(%x : memref<256xf32>)
    %v = memref.load %host[%c0] : memref<256xf32>
    ```

    becomes

    ```mlir
    %t = vyre.copy_d2h_async %dev to %host on stream 0 : memref<256xf32> to memref<256xf32>
    vyre.dispatch @k::@other ... args(%x : memref<256xf32>)
    vyre.sync %t
    %v = memref.load %host[%c0] : memref<256xf32>
    ```
  }];
  let dependentDialects = ["::mlir::vyre::VyreDialect"];
  let options = [
    Option<"waitBeforeAnyEffect", "wait-before-any-effect", "bool",
           /*default=*/"false",
           "Wait where upstream's --gpu-async-region waits (before every "
           "host op with memory effects), not only before conflicts">,
  ];
}

def VersionAliasingPass : Pass<"vyre-version-aliasing", "::mlir::ModuleOp"> {
  let summary = "Version functions whose memref arguments may alias: a "
                "run-time disjointness check, then a copy with them "
                "llvm.noalias or the function as written";
  let description = [{
    A public function's memref arguments may alias one another: callers
    outside the module may pass anything, so `--vyre-deduce-noalias` cannot
    mark them, and `--overlap-copies` and `--vyre-pipeline-loops` then keep
    copies that touch them in place. As LLVM's LoopVersioning does with
    run-time pointer checks, this pass gives such a function two versions
    and picks one at run time:

    - `@<name>_disjoint`, a private copy with the arguments marked
      `llvm.noalias`, which the passes after it may schedule freely;
    - `@<name>_may_alias`, a private copy as written;
    - `@<name>` itself becomes a dispatcher: it checks, from each checked
      argument's aligned pointer, offset, sizes and strides
      (`memref.extract_aligned_pointer_as_index`,
      `memref.extract_strided_metadata`), that no two of them share a byte,
      and calls the first copy if so, the second otherwise.

    A function is versioned when it holds vyre ops (and no gpu host ops
    written with tokens), has at least two ranked memref arguments without `llvm.noalias`
    (at most `max-arguments`), of strided layout, whose elements the
    lowered program places exactly their data-layout size apart (not `i24`,
    `f80`, or vectors of `i1`), and is closed (as `--vyre-deduce-noalias`
    defines it: every memref it uses comes from its arguments, its
    allocations and views of them, and it calls only closed functions) and
    names no global, it or its callees; and when nothing in the module views
    memory from a buffer's base (`memref.reinterpret_cast`,
    `memref.extract_strided_metadata`,
    `memref.extract_aligned_pointer_as_index`), through which code given one
    view could reach another's bytes. Then the arguments, pairwise disjoint,
    are each distinct from every other buffer the function reaches, which is
    what `llvm.noalias` promises to vyre's passes. A dispatcher and the
    copies it names are not versioned again, nor is a private function that
    every call passes one buffer for two of the arguments.

    Whether the versioning pays is decided after scheduling, by
    `--vyre-choose-versions`, which folds it back where the disjoint
    version is no faster. Until then the dispatcher carries a `vyre.versions`
    attribute naming its two copies and the checked arguments.

    With `--remarks-filter=version-aliasing`, each function with vyre ops
    and at least two unmarked memref arguments that is not versioned gets a
    `missed` remark with the reason.
  }];
  let options = [
    Option<"maxArguments", "max-arguments", "unsigned", /*default=*/"8",
           "Most memref arguments one check compares (their pairs: n(n-1)/2 "
           "comparisons)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def ChooseVersionsPass : Pass<"vyre-choose-versions", "::mlir::ModuleOp"> {
  let summary = "Keep a function's run-time versions only where the disjoint "
                "version's schedule is faster";
  let description = [{
    Runs after `--overlap-copies` on the functions `--vyre-version-aliasing`
    versioned. Both copies are simulated on `--vyre-simulate`'s model
    (the options below are its runtime overheads and machine, as those of
    `--overlap-copies`); the versioning is kept when the copy with the
    arguments `llvm.noalias` has the shorter makespan, and folded back
    otherwise: the dispatcher takes the as-written copy's body again and
    both copies are erased, so the function is what it would have been
    without versioning. The check itself (a few integer ops per argument
    pair, and one call) is not charged. Where the simulator cannot time a
    copy (a copy of a dynamically sized buffer), the versioning is kept if
    the two copies were scheduled differently, and folded back if they are
    alike.

    With `--remarks-filter=version-aliasing`: `ArgumentsVersioned`
    (`passed`) names the checked arguments and the two makespans;
    `VersioningDeclined` (`missed`) says why it was folded back.
  }];
  let options = [
    Option<"onlyIfFaster", "only-if-faster", "bool", /*default=*/"true",
           "Fold back versions whose disjoint copy is not faster (false: "
           "keep every versioning, for testing both versions)">,
    Option<"launchUs", "launch-us", "double", /*default=*/"0.85",
           "Host time of issuing a kernel launch or a memcpy, us">,
    Option<"eventUs", "event-us", "double", /*default=*/"1.7",
           "Host time of each dependency of a join, us">,
    Option<"hostSyncUs", "host-sync-us", "double", /*default=*/"1.7",
           "Host time of each synchronization, us">,
    Option<"streamCreateUs", "stream-create-us", "double", /*default=*/"0.0",
           "Host time of the stream a join creates, us">,
    Option<"h2dGBps", "h2d-gbps", "double", /*default=*/"55.0",
           "Host-to-device bandwidth, GB/s">,
    Option<"d2hGBps", "d2h-gbps", "double", /*default=*/"55.0",
           "Device-to-host bandwidth, GB/s">,
    Option<"copyLatencyUs", "copy-latency-us", "double", /*default=*/"2.0",
           "Fixed cost of each copy, us">,
    Option<"defaultKernelUs", "default-kernel-us", "double",
           /*default=*/"10.0",
           "Kernel time without a vyre.cost_us attribute, us">,
  ];
}

#endif // VYRE_TRANSFORMS_PASSES_TD
