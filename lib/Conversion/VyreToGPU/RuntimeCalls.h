//===- RuntimeCalls.h - mgpu calls the lowering makes itself ----*- C++ -*-===//
//
// Part of --convert-vyre-to-gpu. The gpu dialect has no op that makes a
// stream wait for an event, nor one that lets a stream go without the host
// waiting for it; a loop that carries its streams' work into the next
// iteration on the device needs both (VyreToGPU.cpp). The lowering calls the
// runtime functions upstream's gpu-to-llvm lowers gpu ops to, with their
// signatures: a token stands for its stream through an
// `unrealized_conversion_cast` to `!llvm.ptr`, which gpu-to-llvm folds into
// the stream it makes of the token.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_CONVERSION_VYRETOGPU_RUNTIMECALLS_H
#define VYRE_LIB_CONVERSION_VYRETOGPU_RUNTIMECALLS_H

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::vyre::vyre_to_gpu {

/// Emits mgpu runtime calls with `builder`, where it points, declaring the
/// functions in the module of the function being lowered on first use.
class RuntimeCalls {
public:
  explicit RuntimeCalls(OpBuilder &builder) : builder(builder) {}

  /// The module the calls are made in from now on (found once per
  /// function: from a call deep in a nest of loops, the way up to it is as
  /// long as the nest is deep).
  void setModule(Operation *module) { this->module = module; }

  /// The `!llvm.ptr` that stands for the stream of `token`: one
  /// `unrealized_conversion_cast` per token, right after the op that makes
  /// it, which gpu-to-llvm folds into the stream it makes of the token.
  Value streamOf(Value token, Location loc);
  /// `token` stands for the stream whose `!llvm.ptr` is `pointer` (it is a
  /// cast of that pointer): `streamOf(token)` is `pointer`.
  void setStreamOf(Value token, Value pointer) { streams[token] = pointer; }

  /// `mgpuEventCreate()`.
  Value createEvent(Location loc);
  /// `mgpuEventRecord(event, stream of token)`.
  void recordEvent(Value event, Value token, Location loc);
  /// `mgpuStreamWaitEvent(stream of token, event)`.
  void streamWaitEvent(Value token, Value event, Location loc);
  /// `mgpuEventSynchronize(event)`: the host waits for it.
  void synchronizeEvent(Value event, Location loc);
  /// `mgpuEventDestroy(event)`.
  void destroyEvent(Value event, Location loc);
  /// `mgpuStreamSynchronize(stream of token)`: the host waits for it.
  void synchronizeStream(Value token, Location loc);
  /// `mgpuStreamDestroy(stream of token)`, without the host waiting for it:
  /// the stream is freed once its work is done.
  void releaseStream(Value token, Location loc);
  /// `mgpuStreamDestroy(pointer)`, for a stream's `!llvm.ptr`.
  void releaseStreamPointer(Value pointer, Location loc);
  /// `vyreMemcpy2DAsync(dst, dstPitch, src, srcPitch, rowBytes, rows,
  /// stream of token)`, vyre's own runtime entry (include/vyre/Runtime/
  /// CudaRuntime.h): pointers and i64 byte counts. Returns the stream it
  /// returns, which stands for the stream after the copy.
  Value copyTile(Value dst, Value dstPitch, Value src, Value srcPitch,
                 Value rowBytes, Value rows, Value token, Location loc);

private:
  void call(StringRef callee, Type result, ValueRange operands, Location loc,
            Value *returned = nullptr);

  OpBuilder &builder;
  Operation *module = nullptr;
  /// The functions declared or found so far, per module: a lookup in a
  /// module's symbol table scans its ops, and a call is made per loop.
  DenseMap<Operation *, llvm::StringMap<Operation *>> declared;
  /// token → the `!llvm.ptr` cast that stands for its stream.
  DenseMap<Value, Value> streams;
};

} // namespace mlir::vyre::vyre_to_gpu

#endif // VYRE_LIB_CONVERSION_VYRETOGPU_RUNTIMECALLS_H
