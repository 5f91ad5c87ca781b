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
       terminator. A function's return also waits for its main stream.

    Each token is waited for at most once on any path; where the host needs a
    token the main stream already waited for, it synchronizes on a
    `vyre.record` placed after that wait.

    With `--remarks-filter=overlap-copies`, every copy gets a remark: `passed`
    with how many kernels it may overlap, or `missed` with the op that forced
    the wait and why. An `analysis` remark says when the host buffer is not
    known to be pinned (registered with `gpu.host_register`, or a function
    argument marked `vyre.pinned`): pageable memory defeats overlap.

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
           "Make device-to-host copies asynchronous too, on a stream of "
           "their own (side stream side-streams + 1): the host waits only "
           "before it touches the destination (false: they stay on the main "
           "stream and block the host)">,
  ];
}

#endif // VYRE_TRANSFORMS_PASSES_TD
