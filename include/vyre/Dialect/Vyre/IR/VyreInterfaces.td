//===- VyreInterfaces.td - Interfaces of the vyre dialect --*- tablegen -*-===//
//
// The one place that says, for each vyre op, where it runs, whether the host
// blocks on it, which tokens it waits for and makes, and which buffers it
// reads and writes. The footprint analysis, the referee, the simulator and the
// transform all ask this interface; none of them names vyre ops.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_DIALECT_VYRE_IR_VYREINTERFACES_TD
#define VYRE_DIALECT_VYRE_IR_VYREINTERFACES_TD

include "mlir/IR/OpBase.td"

def Vyre_StreamOpInterface : OpInterface<"StreamOpInterface"> {
  let cppNamespace = "::mlir::vyre";
  let description = [{
    An op of a host program that allocates device buffers, enqueues device
    work on a stream, or orders work with tokens.

    Streams are numbered: 0 is the main stream, 1 and up are side streams.
    An op on no stream runs on the host (an allocation, a `vyre.sync`).
  }];
  let methods = [
    InterfaceMethod<[{
        The stream the op is enqueued on (0: the main stream), or
        std::nullopt if it runs on the host.
      }],
      "std::optional<int64_t>", "getStreamIndex">,
    InterfaceMethod<[{
        Whether the host waits until the op's device work has completed (a
        synchronous copy), or until its awaited tokens have (`vyre.sync`).
      }],
      "bool", "blocksHost", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        The kind of device work the op enqueues, which decides the engine it
        runs on.
      }],
      "::mlir::vyre::DeviceWork", "getDeviceWork", (ins), [{}],
      [{ return ::mlir::vyre::DeviceWork::None; }]>,
    InterfaceMethod<[{
        Appends the op's buffer accesses: the operand, what is done to it,
        and whether the buffer is host or device memory. A kernel launch
        lists its memref arguments with the access its dispatch declares
        (read and write without a declaration); the kernel's own summary
        refines that (see `getLaunchedKernel`).
      }],
      "void", "getBufferAccesses",
      (ins "::llvm::SmallVectorImpl<::mlir::vyre::BufferAccess> &":$accesses),
      [{}], [{}]>,
    InterfaceMethod<[{
        The tokens the op's work waits for: on its stream for a device op,
        on the host for a host op.
      }],
      "::mlir::ValueRange", "getAwaitedTokens", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<[{
        The token that completes when the op's work (or, for a record, the
        main stream's work before it) has; null if the op makes none.
      }],
      "::mlir::Value", "getCompletionToken", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<[{
        The kernel the op launches, or null if it launches none.
      }],
      "::mlir::SymbolRefAttr", "getLaunchedKernel", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<[{
        The values a kernel launch passes to the kernel, in parameter order.
      }],
      "::mlir::ValueRange", "getKernelArguments", (ins), [{}],
      [{ return {}; }]>,
  ];
}

#endif // VYRE_DIALECT_VYRE_IR_VYREINTERFACES_TD
