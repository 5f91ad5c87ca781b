//===- VyreToGPULowering.h - Lowers the vyre ops of functions ---*- C++ -*-===//
//
// Part of --convert-vyre-to-gpu: walks each block in program order (blocks,
// regions and host ops in VyreToGPU.cpp) and lowers each vyre op onto the
// streams the StreamTracker keeps (LowerVyreOps.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_CONVERSION_VYRETOGPU_VYRETOGPULOWERING_H
#define VYRE_LIB_CONVERSION_VYRETOGPU_VYRETOGPULOWERING_H

#include "StreamTracker.h"

#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::vyre::vyre_to_gpu {

class VyreToGPULowering {
public:
  explicit VyreToGPULowering(MLIRContext *context)
      : builder(context), tokenType(gpu::AsyncTokenType::get(context)),
        streams(builder) {}

  /// Lowers the vyre ops of `function`.
  LogicalResult lowerFunction(FunctionOpInterface function);

  /// Erases the lowered vyre ops, users before the ops they use.
  void eraseLoweredOps();

private:
  //===--------------------------------------------------------------------===//
  // Blocks, regions and host ops (VyreToGPU.cpp)
  //===--------------------------------------------------------------------===//

  /// Lowers a region that starts with no stream in flight.
  LogicalResult lowerRegion(Region &region);
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerHostOp(Operation *op, StreamState &state);
  SmallVector<unsigned> streamsUsedInside(Operation *op);

  //===--------------------------------------------------------------------===//
  // vyre ops (LowerVyreOps.cpp)
  //===--------------------------------------------------------------------===//

  LogicalResult lowerOp(Operation *op, StreamState &state);
  void lowerAlloc(AllocOp alloc, StreamState &state);
  void lowerDealloc(DeallocOp dealloc, StreamState &state);
  LogicalResult lowerDispatch(DispatchOp dispatch, StreamState &state);
  /// An async copy, either direction, on its side stream.
  LogicalResult lowerAsyncCopy(StreamOpInterface copy, Value target,
                               Value source, StreamState &state);
  LogicalResult lowerBlockingCopy(Operation *copy, Value target, Value source,
                                  StreamState &state);
  LogicalResult lowerWait(WaitOp wait, StreamState &state);
  /// The buffer a copy hands to gpu.memcpy for `buffer` (its `role`: source
  /// or target): `buffer` itself if its layout is the identity, an
  /// identity-layout alias of it if it is a contiguous view with an offset
  /// (ContiguousView.cpp); an error otherwise.
  FailureOr<Value> contiguousBuffer(Operation *copy, StringRef role,
                                    Value buffer);
  LogicalResult lowerSync(SyncOp sync, StreamState &state);
  FailureOr<SmallVector<Value>> lookupTokens(Operation *user,
                                             ValueRange vyreTokens);

  OpBuilder builder;
  Type tokenType;
  StreamTracker streams;
  /// Whether the function being lowered has sequential semantics.
  bool sequential = false;
  /// vyre token → the gpu token that stands for it (null: nothing to wait).
  DenseMap<Value, Value> tokens;
  /// Lowered vyre ops, in program order. They are erased at the end: until
  /// then their tokens stay valid keys of `tokens`.
  SmallVector<Operation *> toErase;
};

} // namespace mlir::vyre::vyre_to_gpu

#endif // VYRE_LIB_CONVERSION_VYRETOGPU_VYRETOGPULOWERING_H
