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
    | `vyre.alloc` / `vyre.dealloc` | `gpu.alloc async` / `gpu.dealloc async` on the main stream |
    | `vyre.dispatch` | `gpu.launch_func async` on the main stream |
    | `vyre.copy_h2d`, `vyre.copy_d2h` | `gpu.memcpy async` on the main stream, then the host waits for it |
    | `vyre.copy_h2d_async` | `gpu.memcpy async` on its side stream, after a join of its dependencies |
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
    dropped: upstream's lowering changes the kernels' signatures.

    An op the lowering cannot handle (a kernel without a body, a copy of a
    strided or offset view, vyre ops in a region of several blocks, a wait on
    a token no vyre op of the function made) is an error naming it.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // VYRE_CONVERSION_PASSES_TD
