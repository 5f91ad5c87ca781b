//===- SequentialDigest.cpp - What a sequential program computes -*- C++ -*-===//
//
// A small interpreter of sequential vyre host code on symbolic data: every
// buffer element holds a 64-bit value, every op's result is a hash of what
// it read, index arithmetic is concrete. See SequentialDigest.h.
//
//===----------------------------------------------------------------------===//

#include "SequentialDigest.h"

#include "vyre/Analysis/FunctionEffects.h"
#include "vyre/Analysis/KernelAccess.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::vyre;
using namespace mlir::vyre::test;

namespace {

uint64_t mix(uint64_t seed, uint64_t value) {
  return llvm::hash_combine(seed, value);
}
uint64_t hashString(StringRef text) { return llvm::hash_value(text); }

/// An attribute as text: the same in every process, unlike its address.
std::string printed(Attribute attribute) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << attribute;
  return text;
}

/// A memref value: which buffer, and which of its elements, in the view's
/// row-major order.
struct View {
  unsigned buffer = 0;
  SmallVector<int64_t> elements;
};

class Interpreter {
public:
  Interpreter(func::FuncOp function, const DigestInputs &inputs)
      : function(function), inputs(inputs) {}

  FailureOr<uint64_t> run(std::string &reason) {
    uint64_t argumentSeed = hashString("argument");
    for (BlockArgument argument : function.getArguments()) {
      Type type = argument.getType();
      argumentSeed = mix(argumentSeed, argument.getArgNumber());
      if (type.isIndex())
        integers[argument] = inputs.index;
      else if (type.isInteger(1))
        integers[argument] = inputs.condition;
      else if (auto memref = dyn_cast<MemRefType>(type)) {
        if (!memref.hasStaticShape())
          return fail(reason, "argument of dynamic shape");
        View view = newBuffer(memref, argumentSeed);
        visible.push_back(view.buffer);
        memrefs[argument] = view;
      } else
        symbols[argument] = argumentSeed;
    }
    if (failed(runBlock(function.getBody().front())))
      return fail(reason, failure_);
    uint64_t digest = mix(hashString("digest"), log);
    for (unsigned buffer : visible)
      for (uint64_t element : contents[buffer])
        digest = mix(digest, element);
    return digest;
  }

private:
  FailureOr<uint64_t> fail(std::string &reason, StringRef why) {
    reason = why.str();
    return failure();
  }
  LogicalResult unsupported(Operation *op, StringRef why = "") {
    std::string where;
    llvm::raw_string_ostream os(where);
    os << op->getLoc();
    failure_ = ("'" + op->getName().getStringRef() + "' " + why + " at " +
                where)
                   .str();
    return failure();
  }

  View newBuffer(MemRefType type, uint64_t seed) {
    View view;
    view.buffer = contents.size();
    SmallVector<uint64_t> &elements = contents.emplace_back();
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      elements.push_back(mix(seed, i));
      view.elements.push_back(i);
    }
    return view;
  }

  /// The digest of every element a view sees.
  uint64_t read(const View &view) {
    uint64_t digest = mix(hashString("view"), view.elements.size());
    for (int64_t element : view.elements)
      digest = mix(digest, contents[view.buffer][element]);
    return digest;
  }

  LogicalResult runBlock(Block &block) {
    for (Operation &op : block)
      if (failed(runOp(&op)))
        return failure();
    return success();
  }

  LogicalResult runOp(Operation *op) {
    if (isa<func::ReturnOp, scf::YieldOp, DeallocOp, memref::DeallocOp,
            gpu::HostRegisterOp, gpu::HostUnregisterOp>(op))
      return success();
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return runLoop(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (branch.getNumResults() != 0)
        return unsupported(op, "with results");
      Region &taken = integers.lookup(branch.getCondition())
                          ? branch.getThenRegion()
                          : branch.getElseRegion();
      return taken.empty() ? success() : runBlock(taken.front());
    }
    if (isa<arith::ArithDialect>(op->getDialect()))
      return runArith(op);
    if (isa<memref::MemRefDialect>(op->getDialect()))
      return runMemRef(op);
    if (isa<VyreDialect>(op->getDialect()))
      return runVyre(op);
    if (auto call = dyn_cast<func::CallOp>(op))
      return runCall(call);
    return unsupported(op, "is not modelled");
  }

  LogicalResult runLoop(scf::ForOp loop) {
    if (loop.getNumResults() != 0)
      return unsupported(loop, "with iter_args");
    int64_t lower = integers.lookup(loop.getLowerBound());
    int64_t upper = integers.lookup(loop.getUpperBound());
    int64_t step = integers.lookup(loop.getStep());
    if (step <= 0)
      return unsupported(loop, "with a step that is not positive");
    for (int64_t i = lower; i < upper; i += step) {
      integers[loop.getInductionVar()] = i;
      if (failed(runBlock(*loop.getBody())))
        return failure();
    }
    return success();
  }

  LogicalResult runArith(Operation *op) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
        integers[constant] = integer.getType().isInteger(1)
                                 ? int64_t(integer.getValue().getZExtValue())
                                 : integer.getInt();
      else
        symbols[constant] = hashString(printed(constant.getValue()));
      return success();
    }
    if (op->getNumResults() != 1)
      return unsupported(op);
    Value result = op->getResult(0);
    if (!result.getType().isIntOrIndex()) {
      uint64_t value = hashString(op->getName().getStringRef());
      for (Value operand : op->getOperands())
        value = mix(value, symbols.lookup(operand));
      symbols[result] = value;
      return success();
    }
    auto operand = [&](unsigned i) { return integers.lookup(op->getOperand(i)); };
    std::optional<int64_t> value =
        llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
            .Case([&](arith::AddIOp) { return operand(0) + operand(1); })
            .Case([&](arith::SubIOp) { return operand(0) - operand(1); })
            .Case([&](arith::MulIOp) { return operand(0) * operand(1); })
            .Case([&](arith::DivUIOp) -> std::optional<int64_t> {
              if (operand(1) == 0)
                return std::nullopt;
              return int64_t(uint64_t(operand(0)) / uint64_t(operand(1)));
            })
            .Case([&](arith::CeilDivSIOp) -> std::optional<int64_t> {
              if (operand(1) == 0)
                return std::nullopt;
              int64_t q = operand(0) / operand(1);
              bool exact = q * operand(1) == operand(0);
              bool positive = (operand(0) > 0) == (operand(1) > 0);
              return !exact && positive ? q + 1 : q;
            })
            .Case([&](arith::MaxSIOp) { return std::max(operand(0), operand(1)); })
            .Case([&](arith::MinSIOp) { return std::min(operand(0), operand(1)); })
            .Case([&](arith::IndexCastOp) { return operand(0); })
            .Case([&](arith::CmpIOp compare) -> std::optional<int64_t> {
              int64_t lhs = operand(0), rhs = operand(1);
              switch (compare.getPredicate()) {
              case arith::CmpIPredicate::eq: return lhs == rhs;
              case arith::CmpIPredicate::ne: return lhs != rhs;
              case arith::CmpIPredicate::slt: return lhs < rhs;
              case arith::CmpIPredicate::sle: return lhs <= rhs;
              case arith::CmpIPredicate::sgt: return lhs > rhs;
              case arith::CmpIPredicate::sge: return lhs >= rhs;
              default: return std::nullopt;
              }
            })
            .Default([](Operation *) { return std::nullopt; });
    if (!value)
      return unsupported(op);
    integers[result] = *value;
    return success();
  }

  /// The elements of `source` a subview selects, row-major.
  LogicalResult runSubView(memref::SubViewOp subview) {
    auto sourceType = cast<MemRefType>(subview.getSource().getType());
    if (!sourceType.hasStaticShape() || !subview.getType().hasStaticShape())
      return unsupported(subview, "of dynamic shape");
    View source = memrefs.lookup(subview.getSource());
    SmallVector<int64_t> offsets, sizes, strides;
    for (OpFoldResult offset : subview.getMixedOffsets())
      offsets.push_back(isa<Attribute>(offset)
                            ? cast<IntegerAttr>(cast<Attribute>(offset)).getInt()
                            : integers.lookup(cast<Value>(offset)));
    for (OpFoldResult size : subview.getMixedSizes())
      sizes.push_back(cast<IntegerAttr>(cast<Attribute>(size)).getInt());
    for (OpFoldResult stride : subview.getMixedStrides())
      strides.push_back(cast<IntegerAttr>(cast<Attribute>(stride)).getInt());
    ArrayRef<int64_t> shape = sourceType.getShape();
    View view{source.buffer, {}};
    SmallVector<int64_t> position(shape.size(), 0);
    int64_t count = 1;
    for (int64_t size : sizes)
      count *= size;
    for (int64_t n = 0; n < count; ++n) {
      int64_t rest = n, linear = 0;
      for (int d = shape.size() - 1; d >= 0; --d) {
        position[d] = offsets[d] + (rest % sizes[d]) * strides[d];
        rest /= sizes[d];
      }
      for (size_t d = 0; d < shape.size(); ++d) {
        if (position[d] < 0 || position[d] >= shape[d])
          return unsupported(subview, "out of bounds");
        linear = linear * shape[d] + position[d];
      }
      view.elements.push_back(source.elements[linear]);
    }
    memrefs[subview] = view;
    return success();
  }

  /// The element a load or store reaches.
  std::optional<int64_t> elementAt(Value memref, ValueRange indices) {
    auto type = cast<MemRefType>(memref.getType());
    int64_t linear = 0;
    for (auto [index, extent] : llvm::zip(indices, type.getShape())) {
      int64_t i = integers.lookup(index);
      if (i < 0 || i >= extent)
        return std::nullopt;
      linear = linear * extent + i;
    }
    return memrefs.lookup(memref).elements[linear];
  }

  LogicalResult runMemRef(Operation *op) {
    if (auto subview = dyn_cast<memref::SubViewOp>(op))
      return runSubView(subview);
    if (auto cast = dyn_cast<memref::CastOp>(op)) {
      // Copy first: inserting may move the map's entries.
      View source = memrefs.lookup(cast.getSource());
      memrefs[cast] = std::move(source);
      return success();
    }
    if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
      auto type = cast<MemRefType>(op->getResult(0).getType());
      if (!type.hasStaticShape())
        return unsupported(op, "of dynamic shape");
      memrefs[op->getResult(0)] = newBuffer(type, hashString("uninitialized"));
      return success();
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      std::optional<int64_t> element =
          elementAt(load.getMemRef(), load.getIndices());
      if (!element)
        return unsupported(op, "out of bounds");
      symbols[load] = contents[memrefs.lookup(load.getMemRef()).buffer][*element];
      return success();
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      std::optional<int64_t> element =
          elementAt(store.getMemRef(), store.getIndices());
      if (!element)
        return unsupported(op, "out of bounds");
      contents[memrefs.lookup(store.getMemRef()).buffer][*element] =
          symbols.lookup(store.getValueToStore());
      return success();
    }
    return unsupported(op, "is not modelled");
  }

  LogicalResult copy(Operation *op, Value source, Value target) {
    View from = memrefs.lookup(source);
    View to = memrefs.lookup(target);
    if (from.elements.size() != to.elements.size())
      return unsupported(op, "between views of different sizes");
    SmallVector<uint64_t> values;
    for (int64_t element : from.elements)
      values.push_back(contents[from.buffer][element]);
    for (auto [element, value] : llvm::zip(to.elements, values))
      contents[to.buffer][element] = value;
    return success();
  }

  /// How the launch accesses argument `index`: its declared kind, else the
  /// kernel's summary, else read and write.
  AccessKind accessOf(DispatchOp dispatch, unsigned index) {
    if (std::optional<AccessKind> declared = dispatch.getDeclaredAccess(index))
      return *declared;
    Operation *kernel =
        SymbolTable::lookupNearestSymbolFrom(dispatch, dispatch.getKernel());
    if (kernel)
      if (auto summary = getKernelAccessSummary(kernel);
          summary && index < summary->size())
        return (*summary)[index].toKind();
    return AccessKind::ReadWrite;
  }

  LogicalResult runDispatch(DispatchOp dispatch) {
    OperandRange operands = dispatch.getKernelOperands();
    uint64_t inputs = hashString("launch");
    inputs = mix(inputs, hashString(printed(dispatch.getKernel())));
    for (auto [index, operand] : llvm::enumerate(operands)) {
      AccessKind kind = accessOf(dispatch, index);
      inputs = mix(inputs, index);
      if (!isa<MemRefType>(operand.getType())) {
        inputs = mix(inputs, integers.count(operand) ? uint64_t(integers[operand])
                                                     : symbols.lookup(operand));
        continue;
      }
      // What the launch reads, and what a partial write leaves of the old
      // contents: everything but an overwritten or untouched argument.
      if (kind != AccessKind::Overwrite && kind != AccessKind::None)
        inputs = mix(inputs, read(memrefs.lookup(operand)));
    }
    for (auto [index, operand] : llvm::enumerate(operands)) {
      AccessKind kind = accessOf(dispatch, index);
      if (kind == AccessKind::Read || kind == AccessKind::None ||
          !isa<MemRefType>(operand.getType()))
        continue;
      View view = memrefs.lookup(operand);
      for (auto [n, element] : llvm::enumerate(view.elements))
        contents[view.buffer][element] = mix(mix(inputs, index), n);
    }
    return success();
  }

  LogicalResult runVyre(Operation *op) {
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      if (!alloc.getType().hasStaticShape())
        return unsupported(op, "of dynamic shape");
      memrefs[alloc] = newBuffer(alloc.getType(), hashString("uninitialized"));
      return success();
    }
    if (auto copyIn = dyn_cast<CopyH2DOp>(op))
      return copy(op, copyIn.getSource(), copyIn.getTarget());
    if (auto copyOut = dyn_cast<CopyD2HOp>(op))
      return copy(op, copyOut.getSource(), copyOut.getTarget());
    if (auto dispatch = dyn_cast<DispatchOp>(op))
      return runDispatch(dispatch);
    return unsupported(op, "is not sequential vyre");
  }

  /// A call does what its callee's `vyre.effects` allows: nothing, or
  /// rewrite its memref operands; of unknown effect, it may also read and
  /// rewrite every buffer its caller can see.
  LogicalResult runCall(func::CallOp call) {
    std::optional<FunctionEffects> effects = getCalleeEffects(call);
    uint64_t seen = mix(hashString(call.getCallee()), log);
    SmallVector<View> touched;
    for (Value operand : call.getOperands())
      if (isa<MemRefType>(operand.getType()))
        touched.push_back(memrefs.lookup(operand));
    if (!effects) {
      for (unsigned buffer : visible)
        for (uint64_t element : contents[buffer])
          seen = mix(seen, element);
    }
    if (effects == FunctionEffects::None) {
      log = seen;
      return success();
    }
    for (const View &view : touched)
      seen = mix(seen, read(view));
    log = seen;
    for (const View &view : touched)
      for (auto [n, element] : llvm::enumerate(view.elements))
        contents[view.buffer][element] = mix(seen, n);
    if (!effects)
      for (unsigned buffer : visible)
        for (size_t n = 0; n < contents[buffer].size(); ++n)
          contents[buffer][n] = mix(mix(seen, buffer), n);
    return success();
  }

  func::FuncOp function;
  DigestInputs inputs;
  std::vector<SmallVector<uint64_t>> contents;
  /// The buffers the caller sees: the memref arguments.
  SmallVector<unsigned> visible;
  DenseMap<Value, View> memrefs;
  DenseMap<Value, int64_t> integers;
  DenseMap<Value, uint64_t> symbols;
  /// What calls of unknown effect saw, in order.
  uint64_t log = 0;
  std::string failure_;
};

struct TestSequentialDigestPass
    : public PassWrapper<TestSequentialDigestPass,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestSequentialDigestPass)
  TestSequentialDigestPass() = default;
  TestSequentialDigestPass(const TestSequentialDigestPass &other)
      : PassWrapper(other) {}
  StringRef getArgument() const final { return "test-vyre-sequential-digest"; }
  StringRef getDescription() const final {
    return "Report, as a remark per function, the digest of what the "
           "sequential function computes";
  }
  Option<int64_t> index{*this, "index",
                        llvm::cl::desc("Value of every index argument"),
                        llvm::cl::init(3)};
  Option<bool> condition{*this, "condition",
                         llvm::cl::desc("Value of every i1 argument"),
                         llvm::cl::init(true)};

  void runOnOperation() override {
    std::string reason;
    FailureOr<uint64_t> digest = computeSequentialDigest(
        getOperation(), {index, condition}, reason);
    if (failed(digest)) {
      getOperation().emitRemark("no digest: ") << reason;
      return;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::format_hex(*digest, 18);
    getOperation().emitRemark("digest ") << text;
    markAllAnalysesPreserved();
  }
};

} // namespace

FailureOr<uint64_t>
vyre::test::computeSequentialDigest(func::FuncOp function,
                                    const DigestInputs &inputs,
                                    std::string &reason) {
  if (function.isExternal())
    return failure();
  return Interpreter(function, inputs).run(reason);
}

void vyre::test::registerTestSequentialDigestPass() {
  PassRegistration<TestSequentialDigestPass>();
}
