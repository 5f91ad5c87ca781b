//===- Passes.td - vyre conversion passes ------------------*- tablegen -*-===//

#ifndef VYRE_CONVERSION_PASSES_TD
#define VYRE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertVyreToGPU : Pass<"convert-vyre-to-gpu", "::mlir::ModuleOp"> {
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
    | `vyre.sync` | a join the host blocks on (`gpu.wait [...]`) |

    Every stream the lowering creates is a chain of tokens. Only async forms
    are used, and every memcpy, alloc, dealloc and launch has exactly one
    dependency; several are joined first. The output is stable under
    `canonicalize`: no join has a single dependency or depends on a token
    without work, and a join that waits on one token names it twice. At the
    end of each block, one blocking `gpu.wait` takes the tail token of every
    stream created in that block, each stream once: no stream leaks and none
    is destroyed twice. Nested blocks (loop bodies) therefore end with the host
    waiting for the streams they created.

    An op the lowering cannot handle (a kernel without a body, a copy of a
    strided or offset view, vyre ops in a region of several blocks) is an
    error naming it.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // VYRE_CONVERSION_PASSES_TD
