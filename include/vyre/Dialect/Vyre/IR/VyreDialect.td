//===- VyreDialect.td - The vyre dialect -------------------*- tablegen -*-===//
//
// The vyre dialect: a host-side dataflow IR of device buffers, copies and
// kernel dispatches.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_DIALECT_VYRE_IR_VYREDIALECT_TD
#define VYRE_DIALECT_VYRE_IR_VYREDIALECT_TD

include "mlir/IR/OpBase.td"

def Vyre_Dialect : Dialect {
  let name = "vyre";
  let cppNamespace = "::mlir::vyre";
  let summary = "Host-side dataflow of device buffers, copies and kernel dispatches";
  let description = [{
    The vyre dialect describes what a GPU host program does: it allocates
    device buffers ("slots"), copies host memory into them and back, and
    dispatches `gpu.func` kernels on them.

    Input IR has sequential semantics: every vyre op completes before the next
    one starts. `--overlap-copies` rewrites host-to-device copies into
    asynchronous copies on side streams (`vyre.copy_h2d_async`), and
    device-to-host copies too (`vyre.copy_d2h_async`), and orders them
    against the main stream with tokens (`!vyre.token`): `vyre.record`,
    `vyre.wait` and `vyre.sync`.

    ```mlir
    %dev = vyre.alloc : memref<1024xf32>
    vyre.copy_h2d %host to %dev : memref<1024xf32> to memref<1024xf32>
    vyre.dispatch @kernels::@scale blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
        args(%dev : memref<1024xf32>)
    vyre.copy_d2h %dev to %host : memref<1024xf32> to memref<1024xf32>
    vyre.dealloc %dev : memref<1024xf32>
    ```

    ### Attributes a program writes

    Each is checked by the dialect's verifier where it can be wrong; the
    errors are in `test/Dialect/Vyre/invalid.mlir`.

    - `vyre.pinned` (unit), on a memref argument of a host function: the
      caller promises page-locked (pinned) host memory, so a copy from or to
      it can run asynchronously. Without it, vyre counts a copy of that
      buffer as the driver stages pageable memory (the cost model, a
      `PageableHostBuffer` remark). Only a memref argument can be pinned.
    - `llvm.noalias` (unit), on a memref argument: LLVM's promise that no
      other argument reaches the same memory. vyre reads it as "this argument
      is a buffer of its own": without it, two memref arguments of one
      function may be one buffer, and a copy into one waits for every use
      of the other. `--vyre-deduce-noalias` adds it where every call passes
      distinct buffers; `--vyre-version-aliasing` checks it at run time
      where the calls cannot tell.
    - `vyre.cost_us` (a float), on a `vyre.dispatch`: the kernel's time in
      microseconds, for the cost model and the simulator. It must be finite
      and 0 or more. `--vyre-estimate-kernel-costs` writes one where a
      dispatch has none (and marks it `vyre.cost_estimated`);
      `--vyre-apply-profile` writes a measured one (`vyre.cost_profiled`).
    - `vyre.effects` (`"none"` or `"arguments"`), on a function: what a call
      to it may touch. `"none"`: no memory its caller can see;
      `"arguments"`: only memory its memref arguments reach, with all device
      work it starts done before it returns. `--vyre-function-effects`
      computes it for functions with bodies; an external declaration may
      carry its own. Without it, a call may touch anything.
    - `vyre.access` (a list of access kinds, one per argument), on a kernel
      (`gpu.func`, or a bodiless `func.func` with `gpu.kernel`): how it
      accesses each argument. `--vyre-kernel-access` computes it from the
      body; a bodiless declaration must carry its own, or every dispatch of
      it its `access` list.
    - The `access [...]` list of a `vyre.dispatch` (`read`, `write`,
      `readwrite`, `none`, `overwrite`), one per argument: how this launch
      accesses each, which overrides the kernel's `vyre.access`.
      `overwrite` promises that the launch writes every element of the
      buffer before reading any, so its old contents do not matter (a copy
      into it need not wait for earlier readers to finish with the values,
      only with the buffer); it is a promise of one launch, so a kernel's
      `vyre.access` cannot say it, and no other argument of the launch may
      pass the same buffer.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasRegionArgAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// `vyre.pinned` on a host function's memref argument: the caller
    /// promises page-locked (pinned) host memory, so copies from it can run
    /// asynchronously.
    static constexpr ::llvm::StringLiteral getPinnedAttrName() {
      return ::llvm::StringLiteral("vyre.pinned");
    }

    /// `vyre.cost_us` on a vyre.dispatch: its kernel's time in
    /// microseconds, a finite float of 0 or more.
    static constexpr ::llvm::StringLiteral getKernelCostAttrName() {
      return ::llvm::StringLiteral("vyre.cost_us");
    }

    /// `vyre.access` on a kernel: how it accesses each argument, one
    /// access kind per argument (`--vyre-kernel-access` computes it from the
    /// body; a bodiless declaration may carry its own).
    static constexpr ::llvm::StringLiteral getKernelAccessAttrName() {
      return ::llvm::StringLiteral("vyre.access");
    }

    /// `vyre.effects` on a function: what a call to it may touch. "none":
    /// no memory its caller can see; "arguments": only memory reachable
    /// through its memref arguments, host or device, with all device work
    /// it starts done before it returns. `--vyre-function-effects` computes
    /// it for functions with bodies; an external declaration may carry its
    /// own. Without it, a call may touch anything.
    static constexpr ::llvm::StringLiteral getFunctionEffectsAttrName() {
      return ::llvm::StringLiteral("vyre.effects");
    }

    /// `vyre.not_imported` on a function: --convert-gpu-host-to-vyre left
    /// its gpu host code as written, for the reason the string gives.
    static constexpr ::llvm::StringLiteral getNotImportedAttrName() {
      return ::llvm::StringLiteral("vyre.not_imported");
    }

    /// `vyre.written_async` (unit) on a gpu host op: the author wrote it
    /// with tokens, in a function --convert-gpu-host-to-vyre imported
    /// around it; it runs as its tokens say, which the gpu-level referee
    /// takes as meant (two such ops may race on purpose).
    static constexpr ::llvm::StringLiteral getWrittenAsyncAttrName() {
      return ::llvm::StringLiteral("vyre.written_async");
    }

    /// `vyre.host_wait_join` (unit) on a `gpu.wait async [%t, ...]`: the
    /// import made the join only for the blocking `gpu.wait` on it that
    /// follows (the host waits for explicit work). --convert-vyre-to-gpu
    /// lowers a pair whose tokens are one token to a synchronize of that
    /// token's stream, without making a stream for the join.
    static constexpr ::llvm::StringLiteral getHostWaitJoinAttrName() {
      return ::llvm::StringLiteral("vyre.host_wait_join");
    }

  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

#endif // VYRE_DIALECT_VYRE_IR_VYREDIALECT_TD
