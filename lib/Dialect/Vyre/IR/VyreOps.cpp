//===- VyreOps.cpp - Operations of the vyre dialect -------------*- C++ -*-===//
//
// Verifiers, the access-list syntax, and the memory effects of vyre ops.
// Every verifier message names the operand or attribute at fault and the rule
// it breaks.
//
//===----------------------------------------------------------------------===//

#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::vyre;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

/// Checks that a copy's `source` and `target` agree in element type and shape.
/// A dynamic dimension on either side matches any size.
static LogicalResult verifyCopyTypes(Operation *op, Value source,
                                     Value target) {
  auto sourceType = cast<MemRefType>(source.getType());
  auto targetType = cast<MemRefType>(target.getType());
  if (sourceType.getElementType() != targetType.getElementType())
    return op->emitOpError("element type of 'source' (")
           << sourceType.getElementType() << ") must match that of 'target' ("
           << targetType.getElementType() << ")";
  if (sourceType.getRank() != targetType.getRank())
    return op->emitOpError("shape of 'source' (")
           << sourceType << ") must match that of 'target' (" << targetType
           << "): ranks " << sourceType.getRank() << " and "
           << targetType.getRank() << " differ";
  for (auto [dim, sizes] : llvm::enumerate(
           llvm::zip(sourceType.getShape(), targetType.getShape()))) {
    auto [sourceSize, targetSize] = sizes;
    if (ShapedType::isDynamic(sourceSize) || ShapedType::isDynamic(targetSize))
      continue;
    if (sourceSize != targetSize)
      return op->emitOpError("shape of 'source' (")
             << sourceType << ") must match that of 'target' (" << targetType
             << "): dimension " << dim << " is " << sourceSize
             << " in 'source' but " << targetSize << " in 'target'";
  }
  return success();
}

/// Checks that a token list is non-empty and names each token once.
static LogicalResult verifyTokenList(Operation *op, ValueRange tokens,
                                     StringRef listName) {
  if (tokens.empty())
    return op->emitOpError("'") << listName << "' needs at least one token";
  llvm::SmallPtrSet<Value, 8> seen;
  for (auto [index, token] : llvm::enumerate(tokens))
    if (!seen.insert(token).second)
      return op->emitOpError("'")
             << listName << "' names a token twice: token #" << index
             << " repeats an earlier one";
  return success();
}

//===----------------------------------------------------------------------===//
// AllocOp
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  MemRefType type = getType();
  int64_t numDynamic = type.getNumDynamicDims();
  if (static_cast<int64_t>(getDynamicSizes().size()) != numDynamic)
    return emitOpError("'dynamicSizes' has ")
           << getDynamicSizes().size() << " operand(s) but result type "
           << type << " has " << numDynamic
           << " dynamic dimension(s): it needs one size per dynamic dimension";
  if (!type.getLayout().isIdentity())
    return emitOpError("result type ")
           << type
           << " must have an identity layout: a device buffer is one "
              "contiguous allocation";
  return success();
}

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

LogicalResult CopyH2DOp::verify() {
  return verifyCopyTypes(*this, getSource(), getTarget());
}

LogicalResult CopyD2HOp::verify() {
  return verifyCopyTypes(*this, getSource(), getTarget());
}

/// Checks an async copy: a stream (0, the main stream, or a side stream),
/// each dependency once, matching types.
static LogicalResult verifyAsyncCopy(Operation *op, IntegerAttr streamAttr,
                                     ValueRange dependencies, Value source,
                                     Value target) {
  int64_t stream = streamAttr.getInt();
  if (stream < 0)
    return op->emitOpError("'stream' is ")
           << stream
           << " but must be 0 (the main stream) or a side stream, 1 or more";
  if (!dependencies.empty() &&
      failed(verifyTokenList(op, dependencies, "dependencies")))
    return failure();
  return verifyCopyTypes(op, source, target);
}

LogicalResult CopyH2DAsyncOp::verify() {
  return verifyAsyncCopy(*this, getStreamAttr(), getDependencies(),
                         getSource(), getTarget());
}

LogicalResult CopyD2HAsyncOp::verify() {
  return verifyAsyncCopy(*this, getStreamAttr(), getDependencies(),
                         getSource(), getTarget());
}

//===----------------------------------------------------------------------===//
// WaitOp and SyncOp
//===----------------------------------------------------------------------===//

LogicalResult WaitOp::verify() {
  return verifyTokenList(*this, getTokens(), "tokens");
}

LogicalResult SyncOp::verify() {
  return verifyTokenList(*this, getTokens(), "tokens");
}

//===----------------------------------------------------------------------===//
// DispatchOp
//===----------------------------------------------------------------------===//

/// Parses the kinds of an `access [read, write, readwrite]` clause.
static ParseResult parseAccessList(OpAsmParser &parser, ArrayAttr &access) {
  SmallVector<Attribute> kinds;
  auto parseKind = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<AccessKind> kind = symbolizeAccessKind(keyword);
    if (!kind)
      return parser.emitError(loc, "access kind must be 'read', 'write', "
                                   "'readwrite', 'none' or 'overwrite', got '")
             << keyword << "'";
    kinds.push_back(AccessKindAttr::get(parser.getContext(), *kind));
    return success();
  };
  if (parser.parseCommaSeparatedList(parseKind))
    return failure();
  access = parser.getBuilder().getArrayAttr(kinds);
  return success();
}

/// Prints the kinds of an `access [...]` clause.
static void printAccessList(OpAsmPrinter &printer, Operation *,
                            ArrayAttr access) {
  llvm::interleaveComma(access, printer, [&](Attribute kind) {
    printer << stringifyAccessKind(cast<AccessKindAttr>(kind).getValue());
  });
}

std::optional<AccessKind> DispatchOp::getDeclaredAccess(unsigned index) {
  std::optional<ArrayAttr> access = getAccess();
  if (!access || index >= access->size())
    return std::nullopt;
  return cast<AccessKindAttr>((*access)[index]).getValue();
}

LogicalResult DispatchOp::verify() {
  std::optional<ArrayAttr> access = getAccess();
  if (!access)
    return success();
  if (access->size() != getKernelOperands().size())
    return emitOpError("'access' has ")
           << access->size() << " entries but the dispatch has "
           << getKernelOperands().size()
           << " argument(s): it needs one entry per argument";
  for (auto [index, operand] : llvm::enumerate(getKernelOperands())) {
    AccessKind kind = *getDeclaredAccess(index);
    if (!isa<BaseMemRefType>(operand.getType()) && kind != AccessKind::Read &&
        kind != AccessKind::None)
      return emitOpError("'access' entry #")
             << index << " is '" << stringifyAccessKind(kind)
             << "' but argument #" << index << " has type "
             << operand.getType()
             << ": only a memref argument can be written";
    if (kind != AccessKind::Overwrite)
      continue;
    for (auto [other, otherOperand] : llvm::enumerate(getKernelOperands()))
      if (other != index && otherOperand == operand)
        return emitOpError("'access' entry #")
               << index << " is 'overwrite' but argument #" << other
               << " passes the same buffer";
  }
  return success();
}

LogicalResult
DispatchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  SymbolRefAttr kernel = getKernel();
  Operation *callee = symbolTable.lookupNearestSymbolFrom(*this, kernel);
  if (!callee)
    return emitOpError("'kernel' ")
           << kernel
           << " does not resolve: it must name a kernel in a gpu.module, as "
              "@module::@kernel";
  auto function = dyn_cast<FunctionOpInterface>(callee);
  if (!function || !isa_and_nonnull<gpu::GPUModuleOp>(callee->getParentOp()))
    return emitOpError("'kernel' ")
           << kernel << " resolves to '" << callee->getName()
           << "', which is not a function in a gpu.module";
  if (auto gpuFunction = dyn_cast<gpu::GPUFuncOp>(callee)) {
    if (!gpuFunction.isKernel())
      return emitOpError("'kernel' ")
             << kernel
             << " is a gpu.func without the 'kernel' attribute: only kernels "
                "can be dispatched";
  } else if (!function.isExternal() ||
             !callee->hasAttr(gpu::GPUDialect::getKernelFuncAttrName())) {
    return emitOpError("'kernel' ")
           << kernel
           << " must be a gpu.func kernel, or a function declaration without "
              "a body that carries the 'gpu.kernel' attribute";
  }

  ArrayRef<Type> parameterTypes = function.getArgumentTypes();
  if (!function.getResultTypes().empty())
    return emitOpError("'kernel' ")
           << kernel << " returns values: a kernel returns nothing";
  if (parameterTypes.size() != getKernelOperands().size())
    return emitOpError("'args' has ")
           << getKernelOperands().size() << " argument(s) but kernel "
           << kernel << " takes " << parameterTypes.size();
  for (auto [index, operand, expected] :
       llvm::enumerate(getKernelOperands(), parameterTypes))
    if (operand.getType() != expected)
      return emitOpError("'args' argument #")
             << index << " has type " << operand.getType() << " but kernel "
             << kernel << " expects " << expected;
  return success();
}

void DispatchOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // The op itself does not look into the kernel: every memref argument may be
  // read and written. The slot access analysis computes the exact summary.
  for (OpOperand &operand : getKernelOperandsMutable()) {
    if (!isa<BaseMemRefType>(operand.get().getType()))
      continue;
    effects.emplace_back(MemoryEffects::Read::get(), &operand,
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(), &operand,
                         SideEffects::DefaultResource::get());
  }
  effects.emplace_back(MemoryEffects::Read::get(), StreamResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), StreamResource::get());
}

//===----------------------------------------------------------------------===//
// StreamOpInterface
//===----------------------------------------------------------------------===//

/// Appends a copy's two accesses: it reads `source` in `sourceSpace` and
/// writes `target` in the other space.
static void addCopyAccesses(SmallVectorImpl<BufferAccess> &accesses,
                            Value source, Value target,
                            BufferSpace sourceSpace) {
  BufferSpace targetSpace = sourceSpace == BufferSpace::Host
                                ? BufferSpace::Device
                                : BufferSpace::Host;
  accesses.push_back({source, BufferEffect::Read, sourceSpace, std::nullopt});
  accesses.push_back({target, BufferEffect::Write, targetSpace, std::nullopt});
}

std::optional<int64_t> AllocOp::getStreamIndex() { return std::nullopt; }

void AllocOp::getBufferAccesses(SmallVectorImpl<BufferAccess> &accesses) {
  accesses.push_back(
      {getMemref(), BufferEffect::Allocate, BufferSpace::Device, std::nullopt});
}

std::optional<int64_t> DeallocOp::getStreamIndex() { return 0; }

void DeallocOp::getBufferAccesses(SmallVectorImpl<BufferAccess> &accesses) {
  accesses.push_back(
      {getMemref(), BufferEffect::Free, BufferSpace::Device, std::nullopt});
}

std::optional<int64_t> CopyH2DOp::getStreamIndex() { return 0; }
bool CopyH2DOp::blocksHost() { return true; }
DeviceWork CopyH2DOp::getDeviceWork() { return DeviceWork::CopyToDevice; }

void CopyH2DOp::getBufferAccesses(SmallVectorImpl<BufferAccess> &accesses) {
  addCopyAccesses(accesses, getSource(), getTarget(), BufferSpace::Host);
}

std::optional<int64_t> CopyD2HOp::getStreamIndex() { return 0; }
bool CopyD2HOp::blocksHost() { return true; }
DeviceWork CopyD2HOp::getDeviceWork() { return DeviceWork::CopyToHost; }

void CopyD2HOp::getBufferAccesses(SmallVectorImpl<BufferAccess> &accesses) {
  addCopyAccesses(accesses, getSource(), getTarget(), BufferSpace::Device);
}

std::optional<int64_t> CopyH2DAsyncOp::getStreamIndex() {
  return static_cast<int64_t>(getStream());
}
DeviceWork CopyH2DAsyncOp::getDeviceWork() { return DeviceWork::CopyToDevice; }
ValueRange CopyH2DAsyncOp::getAwaitedTokens() { return getDependencies(); }
Value CopyH2DAsyncOp::getCompletionToken() { return getToken(); }

void CopyH2DAsyncOp::getBufferAccesses(
    SmallVectorImpl<BufferAccess> &accesses) {
  addCopyAccesses(accesses, getSource(), getTarget(), BufferSpace::Host);
}

std::optional<int64_t> CopyD2HAsyncOp::getStreamIndex() {
  return static_cast<int64_t>(getStream());
}
DeviceWork CopyD2HAsyncOp::getDeviceWork() { return DeviceWork::CopyToHost; }
ValueRange CopyD2HAsyncOp::getAwaitedTokens() { return getDependencies(); }
Value CopyD2HAsyncOp::getCompletionToken() { return getToken(); }

void CopyD2HAsyncOp::getBufferAccesses(
    SmallVectorImpl<BufferAccess> &accesses) {
  addCopyAccesses(accesses, getSource(), getTarget(), BufferSpace::Device);
}

std::optional<int64_t> DispatchOp::getStreamIndex() { return 0; }
DeviceWork DispatchOp::getDeviceWork() { return DeviceWork::Kernel; }
SymbolRefAttr DispatchOp::getLaunchedKernel() { return getKernel(); }
ValueRange DispatchOp::getKernelArguments() { return getKernelOperands(); }

void DispatchOp::getBufferAccesses(SmallVectorImpl<BufferAccess> &accesses) {
  for (auto [index, operand] : llvm::enumerate(getKernelOperands())) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    std::optional<AccessKind> declared = getDeclaredAccess(index);
    AccessKind kind = declared.value_or(AccessKind::ReadWrite);
    auto add = [&, index = index, operand = operand](BufferEffect effect) {
      accesses.push_back({operand, effect, BufferSpace::Device,
                          unsigned(index), /*assumed=*/!declared});
    };
    if (kind == AccessKind::Read || kind == AccessKind::ReadWrite)
      add(BufferEffect::Read);
    if (kind == AccessKind::Write || kind == AccessKind::ReadWrite ||
        kind == AccessKind::Overwrite)
      add(BufferEffect::Write);
  }
}

std::optional<int64_t> RecordOp::getStreamIndex() { return 0; }
Value RecordOp::getCompletionToken() { return getToken(); }
void RecordOp::getBufferAccesses(SmallVectorImpl<BufferAccess> &) {}

std::optional<int64_t> WaitOp::getStreamIndex() { return 0; }
ValueRange WaitOp::getAwaitedTokens() { return getTokens(); }
void WaitOp::getBufferAccesses(SmallVectorImpl<BufferAccess> &) {}

std::optional<int64_t> SyncOp::getStreamIndex() { return std::nullopt; }
bool SyncOp::blocksHost() { return true; }
ValueRange SyncOp::getAwaitedTokens() { return getTokens(); }
void SyncOp::getBufferAccesses(SmallVectorImpl<BufferAccess> &) {}

#define GET_OP_CLASSES
#include "vyre/Dialect/Vyre/IR/VyreOps.cpp.inc"

bool mlir::vyre::isInStreamForm(Operation *function) {
  return function
      ->walk([](StreamOpInterface op) {
        return op.getCompletionToken() || !op.getAwaitedTokens().empty()
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}
