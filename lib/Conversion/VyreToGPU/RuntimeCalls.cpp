//===- RuntimeCalls.cpp - mgpu calls the lowering makes itself ------------===//

#include "RuntimeCalls.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::vyre::vyre_to_gpu;

/// One cast per token, right after the op that makes it (or at the start of
/// the block of a block argument): it dominates every use of the token, and
/// the calls on one stream do not each add an op for `cse` to fold.
Value RuntimeCalls::streamOf(Value token, Location loc) {
  Value &pointer = streams[token];
  if (pointer)
    return pointer;
  OpBuilder::InsertionGuard guard(builder);
  if (Operation *op = token.getDefiningOp())
    builder.setInsertionPointAfter(op);
  else
    builder.setInsertionPointToStart(cast<BlockArgument>(token).getOwner());
  pointer = UnrealizedConversionCastOp::create(
                builder, loc, LLVM::LLVMPointerType::get(builder.getContext()),
                token)
                .getResult(0);
  return pointer;
}

void RuntimeCalls::call(StringRef callee, Type result, ValueRange operands,
                        Location loc, Value *returned) {
  MLIRContext *context = builder.getContext();
  auto module = cast<ModuleOp>(this->module);
  Operation *&known = declared[module][callee];
  if (!known)
    known = module.lookupSymbol<LLVM::LLVMFuncOp>(callee);
  auto function = cast_or_null<LLVM::LLVMFuncOp>(known);
  if (!function) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMFunctionType::get(
        result ? result : LLVM::LLVMVoidType::get(context),
        llvm::to_vector(operands.getTypes()));
    function = LLVM::LLVMFuncOp::create(builder, loc, callee, type);
    known = function;
  }
  auto op = LLVM::CallOp::create(builder, loc, function, operands);
  if (returned)
    *returned = op.getResult();
}

Value RuntimeCalls::createEvent(Location loc) {
  Value event;
  call("mgpuEventCreate", LLVM::LLVMPointerType::get(builder.getContext()),
       {}, loc, &event);
  return event;
}

void RuntimeCalls::recordEvent(Value event, Value token, Location loc) {
  call("mgpuEventRecord", Type(), {event, streamOf(token, loc)}, loc);
}

void RuntimeCalls::streamWaitEvent(Value token, Value event, Location loc) {
  call("mgpuStreamWaitEvent", Type(), {streamOf(token, loc), event}, loc);
}

void RuntimeCalls::synchronizeEvent(Value event, Location loc) {
  call("mgpuEventSynchronize", Type(), {event}, loc);
}

void RuntimeCalls::destroyEvent(Value event, Location loc) {
  call("mgpuEventDestroy", Type(), {event}, loc);
}

void RuntimeCalls::synchronizeStream(Value token, Location loc) {
  call("mgpuStreamSynchronize", Type(), {streamOf(token, loc)}, loc);
}

void RuntimeCalls::releaseStream(Value token, Location loc) {
  releaseStreamPointer(streamOf(token, loc), loc);
}

void RuntimeCalls::releaseStreamPointer(Value pointer, Location loc) {
  call("mgpuStreamDestroy", Type(), {pointer}, loc);
}

Value RuntimeCalls::copyTile(Value dst, Value dstPitch, Value src,
                             Value srcPitch, Value rowBytes, Value rows,
                             Value token, Location loc) {
  Value stream;
  call("vyreMemcpy2DAsync", LLVM::LLVMPointerType::get(builder.getContext()),
       {dst, dstPitch, src, srcPitch, rowBytes, rows, streamOf(token, loc)},
       loc, &stream);
  return stream;
}
