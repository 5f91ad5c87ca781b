//===- Passes.td - vyre verification passes ----------------*- tablegen -*-===//

#ifndef VYRE_VERIFICATION_PASSES_TD
#define VYRE_VERIFICATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifySchedule : Pass<"vyre-verify-schedule", "::mlir::func::FuncOp"> {
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
    (up to 64) separately. The checker is written independently of
    `--overlap-copies`: it shares the slot access analysis, not the pass's
    hazard code. IR it does not understand (a region op other than `scf.for`,
    `scf.if` and `scf.execute_region` holding vyre ops, a region of several
    blocks, a token it cannot resolve) is an error, never a guess.
  }];
}

#endif // VYRE_VERIFICATION_PASSES_TD
