//===- VyreOps.td - Operations of the vyre dialect ---------*- tablegen -*-===//
//
// Device buffers, copies, kernel dispatches, and the asynchronous forms that
// --overlap-copies produces.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_DIALECT_VYRE_IR_VYREOPS_TD
#define VYRE_DIALECT_VYRE_IR_VYREOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "vyre/Dialect/Vyre/IR/VyreDialect.td"
include "vyre/Dialect/Vyre/IR/VyreInterfaces.td"
include "vyre/Dialect/Vyre/IR/VyreAttrs.td"
include "vyre/Dialect/Vyre/IR/VyreTypes.td"

class Vyre_Op<string mnemonic, list<Trait> traits = []>
    : Op<Vyre_Dialect, mnemonic, traits>;

/// The device work queues: ops that enqueue on, or order against, a stream
/// read and write this resource, so that generic passes never reorder them.
def Vyre_StreamResource : Resource<"::mlir::vyre::StreamResource">;

/// Ops that are enqueued on a stream, or order work against one.
def Vyre_OnStream : MemoryEffects<[MemRead<Vyre_StreamResource>,
                                   MemWrite<Vyre_StreamResource>]>;

//===----------------------------------------------------------------------===//
// Device buffers
//===----------------------------------------------------------------------===//

def Vyre_AllocOp : Vyre_Op<"alloc", [
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, []>]> {
  let summary = "Allocates a device buffer (a slot)";
  let description = [{
    Allocates a buffer in device memory. Each `vyre.alloc` result is a slot:
    distinct allocations never alias. Dynamic dimensions of the result type
    take their sizes from the `index` operands, one per dynamic dimension, in
    order. The result has an identity layout.

    ```mlir
    %a = vyre.alloc : memref<1024xf32>
    %b = vyre.alloc(%n) : memref<?x64xf16>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamicSizes);
  let results = (outs Res<AnyMemRef, "the new device buffer",
                          [MemAlloc<DefaultResource>]>:$memref);
  let assemblyFormat = [{
    (`(` $dynamicSizes^ `)`)? attr-dict `:` type($memref)
  }];
  let hasVerifier = 1;
}

def Vyre_DeallocOp : Vyre_Op<"dealloc", [Vyre_OnStream,
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, []>]> {
  let summary = "Frees a device buffer";
  let description = [{
    Frees a buffer allocated by `vyre.alloc`, after all earlier work on the
    main stream has completed.

    ```mlir
    vyre.dealloc %a : memref<1024xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "the device buffer to free",
                           [MemFree]>:$memref);
  let assemblyFormat = "$memref attr-dict `:` type($memref)";
}

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

def Vyre_CopyH2DOp : Vyre_Op<"copy_h2d", [Vyre_OnStream,
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, ["blocksHost", "getDeviceWork"]>]> {
  let summary = "Copies a host buffer into a device buffer";
  let description = [{
    Copies `source`, a host buffer, into `target`, a device buffer. With
    sequential semantics the copy has completed when the next op starts.
    Shapes and element types must match; a dynamic dimension matches any size.

    `--overlap-copies` turns this op into `vyre.copy_h2d_async`.

    ```mlir
    vyre.copy_h2d %host to %dev : memref<1024xf32> to memref<1024xf32>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the host buffer to read", [MemRead]>:$source,
    Arg<AnyMemRef, "the device buffer to write", [MemWrite]>:$target);
  let assemblyFormat = [{
    $source `to` $target attr-dict `:` type($source) `to` type($target)
  }];
  let hasVerifier = 1;
}

def Vyre_CopyD2HOp : Vyre_Op<"copy_d2h", [Vyre_OnStream,
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, ["blocksHost", "getDeviceWork"]>]> {
  let summary = "Copies a device buffer into a host buffer";
  let description = [{
    Copies `source`, a device buffer, into `target`, a host buffer, on the main
    stream. The host continues only once the copy has completed, so host ops
    after it see the copied bytes. Shapes and element types must match; a
    dynamic dimension matches any size.

    ```mlir
    vyre.copy_d2h %dev to %host : memref<1024xf32> to memref<1024xf32>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the device buffer to read", [MemRead]>:$source,
    Arg<AnyMemRef, "the host buffer to write", [MemWrite]>:$target);
  let assemblyFormat = [{
    $source `to` $target attr-dict `:` type($source) `to` type($target)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Kernel dispatch
//===----------------------------------------------------------------------===//

def Vyre_DispatchOp : Vyre_Op<"dispatch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, ["getDeviceWork", "getLaunchedKernel",
                                       "getKernelArguments"]>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Launches a kernel on the main stream";
  let description = [{
    Launches the kernel `kernel`, a nested symbol `@module::@kernel` naming a
    `gpu.func` with the `kernel` attribute in a `gpu.module`, over a grid of
    `blocks` thread blocks of `threads` threads each. The callee may also be a
    kernel declaration without a body: a bodiless `func.func` carrying the
    `gpu.kernel` unit attribute inside a `gpu.module`. The arguments must match
    the callee's parameters in number and type.

    The optional `access` list says, per argument, how the kernel accesses it
    (`read`, `write`, `readwrite` or `none`). It has one entry per argument,
    and an argument that is not a memref must be `read` or `none`. An entry
    may also be `overwrite`: the launch writes every element of that argument
    before it reads any, so what the buffer held before is dead; the analysis
    takes it as a write, and `--vyre-pipeline-loops` may give each iteration
    of a loop its own copy of such a buffer. The argument may not be passed
    twice to the same launch. The slot
    access analysis relies on it where the kernel carries no `vyre.access`
    summary (see `--vyre-kernel-access`); where it does, the list can only
    make the summary more conservative.

    ```mlir
    vyre.dispatch @kernels::@axpy blocks(%c8, %c1, %c1) threads(%c128, %c1, %c1)
        args(%x, %y : memref<1024xf32>, memref<1024xf32>) access [read, readwrite]
    ```
  }];
  let arguments = (ins
    SymbolRefAttr:$kernel,
    Index:$gridSizeX, Index:$gridSizeY, Index:$gridSizeZ,
    Index:$blockSizeX, Index:$blockSizeY, Index:$blockSizeZ,
    Variadic<AnyType>:$kernelOperands,
    OptionalAttr<Vyre_AccessListAttr>:$access);
  let assemblyFormat = [{
    $kernel
    `blocks` `(` $gridSizeX `,` $gridSizeY `,` $gridSizeZ `)`
    `threads` `(` $blockSizeX `,` $blockSizeY `,` $blockSizeZ `)`
    (`args` `(` $kernelOperands^ `:` type($kernelOperands) `)`)?
    (`access` ` ` `[` custom<AccessList>($access)^ `]`)? attr-dict
  }];
  let extraClassDeclaration = [{
    /// The module part of the callee symbol (`@module` in `@module::@kernel`).
    ::mlir::StringAttr getKernelModuleName() {
      return getKernel().getRootReference();
    }
    /// The declared access of argument `index`, or std::nullopt without an
    /// access list.
    std::optional<AccessKind> getDeclaredAccess(unsigned index);
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous forms produced by --overlap-copies
//===----------------------------------------------------------------------===//

def Vyre_CopyH2DAsyncOp : Vyre_Op<"copy_h2d_async", [Vyre_OnStream,
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, ["getDeviceWork", "getAwaitedTokens", "getCompletionToken"]>]> {
  let summary = "Copies a host buffer into a device buffer without blocking "
                "the host";
  let description = [{
    Enqueues the copy of `source` (host) into `target` (device) on stream
    `stream`, after every token in the optional dependency list has
    completed. The result token completes when the copy has. The host does
    not wait: it must not write `source` until it has synchronized on the
    token (`vyre.sync`).

    Stream 0 is the main stream: the copy runs in the main stream's program
    order, between the kernels before and after it, as `vyre.copy_h2d` does,
    but the host goes on at once (`--overlap-copies` makes the copies it
    leaves in place this way; `async-in-place`). Streams 1..N are side
    streams.

    ```mlir
    %t0 = vyre.record
    %t1 = vyre.copy_h2d_async %host to %dev on stream 1 after [%t0]
        : memref<1024xf32> to memref<1024xf32>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the host buffer to read", [MemRead]>:$source,
    Arg<AnyMemRef, "the device buffer to write", [MemWrite]>:$target,
    I64Attr:$stream,
    Variadic<Vyre_TokenType>:$dependencies);
  let results = (outs Vyre_TokenType:$token);
  let assemblyFormat = [{
    $source `to` $target `on` `stream` $stream
    (`after` ` ` `[` $dependencies^ `]`)?
    attr-dict `:` type($source) `to` type($target)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::Value":$target,
                   "int64_t":$stream,
                   CArg<"::mlir::ValueRange", "{}">:$dependencies), [{
      build($_builder, $_state, TokenType::get($_builder.getContext()),
            source, target, $_builder.getI64IntegerAttr(stream),
            dependencies);
    }]>
  ];
  let hasVerifier = 1;
}

def Vyre_CopyD2HAsyncOp : Vyre_Op<"copy_d2h_async", [Vyre_OnStream,
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, ["getDeviceWork",
        "getAwaitedTokens", "getCompletionToken"]>]> {
  let summary = "Copies a device buffer into a host buffer without blocking "
                "the host";
  let description = [{
    Enqueues the copy of `source` (device) into `target` (host) on stream
    `stream`, after every token in the optional dependency list has
    completed. The result token completes when the copy has. The host does
    not wait: it must not read or write `target` until it has synchronized
    on the token (`vyre.sync`), and device work on another stream must not
    write `source` before it has waited for the token (`vyre.wait`).

    `--overlap-copies` turns `vyre.copy_d2h` into this op (unless
    `async-d2h=false`),
    on a stream of its own (1..N) so that the device-to-host copy engine
    works beside the host-to-device one. On stream 0, the main stream, the
    copy runs in the main stream's program order, as `vyre.copy_d2h` does,
    but the host goes on at once: the form of a copy `--overlap-copies`
    leaves in place (`async-in-place`).

    ```mlir
    %t0 = vyre.record
    %t1 = vyre.copy_d2h_async %dev to %host on stream 2 after [%t0]
        : memref<1024xf32> to memref<1024xf32>
    vyre.sync %t1
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the device buffer to read", [MemRead]>:$source,
    Arg<AnyMemRef, "the host buffer to write", [MemWrite]>:$target,
    I64Attr:$stream,
    Variadic<Vyre_TokenType>:$dependencies);
  let results = (outs Vyre_TokenType:$token);
  let assemblyFormat = [{
    $source `to` $target `on` `stream` $stream
    (`after` ` ` `[` $dependencies^ `]`)?
    attr-dict `:` type($source) `to` type($target)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::Value":$target,
                   "int64_t":$stream,
                   CArg<"::mlir::ValueRange", "{}">:$dependencies), [{
      build($_builder, $_state, TokenType::get($_builder.getContext()),
            source, target, $_builder.getI64IntegerAttr(stream),
            dependencies);
    }]>
  ];
  let hasVerifier = 1;
}

def Vyre_RecordOp : Vyre_Op<"record", [Vyre_OnStream,
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, ["getCompletionToken"]>]> {
  let summary = "A token for the main stream's progress so far";
  let description = [{
    Returns a token that completes when all work enqueued on the main stream
    before this op has completed. An async copy that must not overwrite a slot
    an earlier kernel still uses takes it as a dependency.

    ```mlir
    %t = vyre.record
    ```
  }];
  let results = (outs Vyre_TokenType:$token);
  let assemblyFormat = "attr-dict";
  let builders = [
    OpBuilder<(ins), [{
      build($_builder, $_state, TokenType::get($_builder.getContext()));
    }]>
  ];
}

def Vyre_WaitOp : Vyre_Op<"wait", [Vyre_OnStream,
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, ["getAwaitedTokens"]>]> {
  let summary = "The main stream waits for tokens, device-side";
  let description = [{
    Work enqueued on the main stream after this op starts only once every
    token has completed. The host does not block.

    ```mlir
    vyre.wait %t1, %t2
    ```
  }];
  let arguments = (ins Variadic<Vyre_TokenType>:$tokens);
  let assemblyFormat = "$tokens attr-dict";
  let hasVerifier = 1;
}

def Vyre_SyncOp : Vyre_Op<"sync", [
    Vyre_OnStream,
    DeclareOpInterfaceMethods<Vyre_StreamOpInterface, ["blocksHost", "getAwaitedTokens"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "The host blocks until tokens complete";
  let description = [{
    The host blocks until every token has completed. Host ops after it may
    then touch the memory that the awaited work used.

    ```mlir
    vyre.sync %t1
    ```
  }];
  let arguments = (ins Variadic<Vyre_TokenType>:$tokens);
  let assemblyFormat = "$tokens attr-dict";
  let hasVerifier = 1;
}

#endif // VYRE_DIALECT_VYRE_IR_VYREOPS_TD
