//===- ValueInterpreter.cpp - What a host program computes -----*- C++ -*-===//
//
// See ValueInterpreter.h. Memory is a list of buffers of 64-bit symbolic
// elements; a memref value is a strided view of one of them, as a memref
// descriptor is (offset, sizes, strides), with the buffer in place of the
// pointers. An address (memref.extract_aligned_pointer_as_index, an
// `!llvm.ptr` from llvm.inttoptr) is the buffer's number in its upper 32
// bits and a byte offset in its lower ones.
//
//===----------------------------------------------------------------------===//

#include "ValueInterpreter.h"

#include "DeviceQueues.h"

#include "vyre/Analysis/KernelAccess.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/TypeSwitch.h"

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

/// A strided view of a buffer.
struct View {
  unsigned buffer = 0;
  int64_t offset = 0;
  SmallVector<int64_t, 2> sizes, strides;

  int64_t count() const {
    int64_t count = 1;
    for (int64_t size : sizes)
      count *= size;
    return count;
  }
  /// The buffer element that holds the view's `n`th element, row-major.
  int64_t element(int64_t n) const {
    int64_t linear = offset;
    for (int d = int(sizes.size()) - 1; d >= 0; --d) {
      linear += (n % sizes[d]) * strides[d];
      n /= sizes[d];
    }
    return linear;
  }
};

/// What an SSA value holds in a run.
struct RuntimeValue {
  enum class Kind {
    None,
    /// An integer, an index, an i1, or an address.
    Integer,
    /// A float (or other data): a hash.
    Symbol,
    Memref,
    /// A `!gpu.async.token`: its stream, and the position after the op
    /// that made it.
    Token,
    /// An `!llvm.ptr` to an event from mgpuEventCreate, or to a token's
    /// stream.
    Event,
    Stream,
    /// An LLVM struct or array.
    Aggregate,
  };
  Kind kind = Kind::None;
  int64_t integer = 0;
  uint64_t symbol = 0;
  View view;
  StreamPosition token;
  unsigned handle = 0;
  std::vector<RuntimeValue> fields;

  static RuntimeValue ofInteger(int64_t value) {
    RuntimeValue result;
    result.kind = Kind::Integer;
    result.integer = value;
    return result;
  }
  static RuntimeValue ofSymbol(uint64_t value) {
    RuntimeValue result;
    result.kind = Kind::Symbol;
    result.symbol = value;
    return result;
  }
  static RuntimeValue ofView(View view) {
    RuntimeValue result;
    result.kind = Kind::Memref;
    result.view = std::move(view);
    return result;
  }
  static RuntimeValue ofToken(StreamPosition position) {
    RuntimeValue result;
    result.kind = Kind::Token;
    result.token = position;
    return result;
  }
  static RuntimeValue ofHandle(Kind kind, unsigned handle) {
    RuntimeValue result;
    result.kind = kind;
    result.handle = handle;
    return result;
  }
  /// A hash of the value, for a launch's or a call's scalar operands.
  uint64_t hash() const {
    return kind == Kind::Integer ? uint64_t(integer) : symbol;
  }
};
using Kind = RuntimeValue::Kind;

struct Buffer {
  SmallVector<uint64_t> elements;
  /// The bytes of one element: addresses count bytes.
  int64_t elementBytes = 1;
  bool freed = false;
  /// The buffers `memref.view`s carve out of this one, each with its bytes
  /// [begin, end): the lowering's buffers of one allocation. They are freed
  /// with it.
  SmallVector<std::tuple<int64_t, int64_t, unsigned>> parts;
};

/// An event from mgpuEventCreate.
struct Event {
  std::optional<StreamPosition> recorded;
  bool destroyed = false;
};

/// How a launch accesses one argument.
struct LaunchAccess {
  bool read = false, write = false;
  /// Whether each written element also hashes its old value.
  bool keepsOld = false;
};

/// The error that ends a run.
struct Stop {
  ValueRun::Status status;
  std::string message;
};

constexpr int64_t kMaxLoopTrips = 1 << 16;
constexpr unsigned kMaxCallDepth = 16;

class Interpreter {
public:
  Interpreter(func::FuncOp function, const ValueRunOptions &options)
      : function(function), options(options),
        queues(options.interleaving, options.seed) {}

  ValueRun run() {
    ValueRun result;
    if (failed(bindArguments()) || failed(runBody())) {
      result.status = stop->status;
      result.message = stop->message;
      return result;
    }
    result.digest = digest();
    if (Operation *queued = queues.findQueuedWork()) {
      result.status = ValueRun::Status::Fault;
      std::string where;
      llvm::raw_string_ostream os(where);
      os << "'" << queued->getName() << "' at " << queued->getLoc();
      result.message = "device work is still queued at the return: " + where;
    }
    return result;
  }

private:
  //===--------------------------------------------------------------------===//
  // Errors
  //===--------------------------------------------------------------------===//

  LogicalResult stopWith(ValueRun::Status status, Operation *op,
                         const Twine &why) {
    if (stop)
      return failure();
    std::string where;
    llvm::raw_string_ostream os(where);
    if (op)
      os << "'" << op->getName() << "' at " << op->getLoc() << ": ";
    stop = Stop{status, (where + why).str()};
    return failure();
  }
  LogicalResult unmodelled(Operation *op,
                           const Twine &why = "is not modelled") {
    return stopWith(ValueRun::Status::Unmodelled, op, why);
  }
  LogicalResult fault(Operation *op, const Twine &why) {
    return stopWith(ValueRun::Status::Fault, op, why);
  }

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  View newBuffer(MemRefType type, uint64_t seed) {
    unsigned index = buffers.size();
    Buffer &buffer = buffers.emplace_back();
    if (type.getElementType().isIntOrFloat())
      buffer.elementBytes =
          std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
    else if (type.getElementType().isIndex())
      buffer.elementBytes = 8;
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      buffer.elements.push_back(mix(seed, i));
    return newView(index, type);
  }

  /// All of buffer `buffer`, as a memref of `type` (identity layout).
  static View newView(unsigned buffer, MemRefType type) {
    View view;
    view.buffer = buffer;
    int64_t stride = 1;
    view.sizes.assign(type.getShape().begin(), type.getShape().end());
    view.strides.resize(type.getRank());
    for (int d = type.getRank() - 1; d >= 0; --d) {
      view.strides[d] = stride;
      stride *= type.getDimSize(d);
    }
    return view;
  }

  LogicalResult checkLive(Operation *op, const View &view) {
    if (buffers[view.buffer].freed)
      return fault(op, "uses a buffer after it was freed");
    for (int64_t n = 0, e = view.count(); n < e; ++n) {
      int64_t element = view.element(n);
      if (element < 0 ||
          element >= int64_t(buffers[view.buffer].elements.size()))
        return unmodelled(op, "reaches outside its buffer");
    }
    return success();
  }

  /// The digest of every element a view sees.
  uint64_t read(const View &view) {
    uint64_t digest = mix(hashString("view"), view.count());
    for (int64_t n = 0, e = view.count(); n < e; ++n)
      digest = mix(digest, buffers[view.buffer].elements[view.element(n)]);
    return digest;
  }

  LogicalResult copy(Operation *op, const View &from, const View &to) {
    if (from.count() != to.count())
      return unmodelled(op, "copies between views of different sizes");
    if (failed(checkLive(op, from)) || failed(checkLive(op, to)))
      return failure();
    SmallVector<uint64_t> values;
    for (int64_t n = 0, e = from.count(); n < e; ++n)
      values.push_back(buffers[from.buffer].elements[from.element(n)]);
    for (int64_t n = 0, e = to.count(); n < e; ++n)
      buffers[to.buffer].elements[to.element(n)] = values[n];
    return success();
  }

  LogicalResult free(Operation *op, const View &view) {
    if (buffers[view.buffer].freed)
      return fault(op, "frees a buffer twice");
    buffers[view.buffer].freed = true;
    for (auto [begin, end, part] : buffers[view.buffer].parts)
      buffers[part].freed = true;
    return success();
  }

  static int64_t addressOf(const View &view) {
    return int64_t(view.buffer + 1) << 32;
  }

  //===--------------------------------------------------------------------===//
  // Values
  //===--------------------------------------------------------------------===//

  /// A copy: the map may grow, and move its entries, before it is used.
  RuntimeValue get(Value value) { return values.lookup(value); }
  int64_t integer(Value value) {
    auto it = values.find(value);
    return it == values.end() ? 0 : it->second.integer;
  }
  LogicalResult expect(Operation *op, Value value, Kind kind) {
    auto it = values.find(value);
    if (it == values.end() || it->second.kind != kind)
      return unmodelled(op, "uses a value the interpreter cannot follow");
    return success();
  }
  void bind(ValueRange targets, ArrayRef<RuntimeValue> runtime) {
    for (auto [target, value] : llvm::zip(targets, runtime))
      values[target] = value;
  }
  SmallVector<RuntimeValue> collect(ValueRange operands) {
    SmallVector<RuntimeValue> result;
    for (Value operand : operands)
      result.push_back(values[operand]);
    return result;
  }

  LogicalResult bindArguments() {
    // Arguments that may alias share the buffer of the first of their type.
    SmallVector<std::pair<Type, View>> shared;
    for (BlockArgument argument : function.getArguments()) {
      Type type = argument.getType();
      unsigned number = argument.getArgNumber();
      if (type.isIndex() || (type.isSignlessInteger() && !type.isInteger(1))) {
        values[argument] = RuntimeValue::ofInteger(options.index);
      } else if (type.isInteger(1)) {
        values[argument] = RuntimeValue::ofInteger(options.condition);
      } else if (type.isIntOrFloat()) {
        values[argument] =
            RuntimeValue::ofSymbol(mix(hashString("scalar"), number));
      } else if (auto memref = dyn_cast<MemRefType>(type)) {
        if (!memref.hasStaticShape() || !memref.getLayout().isIdentity())
          return unmodelled(function, "has a memref argument of dynamic "
                                      "shape or with a layout");
        bool noalias =
            static_cast<bool>(function.getArgAttr(number, "llvm.noalias"));
        auto same = llvm::find_if(
            shared, [&](const auto &entry) { return entry.first == type; });
        View view;
        if (options.aliasArguments && !noalias && same != shared.end()) {
          view = same->second;
        } else {
          view = newBuffer(memref, mix(hashString("argument"), number));
          visible.push_back(view.buffer);
          if (!noalias)
            shared.push_back({type, view});
        }
        values[argument] = RuntimeValue::ofView(view);
      } else {
        return unmodelled(function, "has an argument of a type the "
                                    "interpreter does not model");
      }
    }
    return success();
  }

  LogicalResult runBody() {
    Block &body = function.getBody().front();
    if (!function.getBody().hasOneBlock())
      return unmodelled(function, "has several blocks");
    if (failed(runBlock(body)))
      return failure();
    returned = collect(body.getTerminator()->getOperands());
    return success();
  }

  uint64_t digest() {
    uint64_t digest = mix(hashString("digest"), log);
    // What the function returns: scalars, and the contents of memrefs.
    for (const RuntimeValue &value : returned)
      digest = mix(digest, value.kind == Kind::Memref ? read(value.view)
                                                      : value.hash());
    for (unsigned buffer : visible)
      for (uint64_t element : buffers[buffer].elements)
        digest = mix(digest, element);
    return digest;
  }

  //===--------------------------------------------------------------------===//
  // Blocks and regions
  //===--------------------------------------------------------------------===//

  /// Runs the ops of `block` up to its terminator.
  LogicalResult runBlock(Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (failed(runOp(&op)))
        return failure();
      if (failed(queues.afterHostOp()))
        return failure();
    }
    return success();
  }

  /// Runs the single block of `region` with `arguments`; its terminator's
  /// operands go to `yielded`.
  LogicalResult runRegion(Operation *op, Region &region,
                          ArrayRef<RuntimeValue> arguments,
                          SmallVectorImpl<RuntimeValue> &yielded) {
    if (!region.hasOneBlock())
      return unmodelled(op, "has a region without exactly one block");
    Block &block = region.front();
    bind(block.getArguments(), arguments);
    if (failed(runBlock(block)))
      return failure();
    yielded = collect(block.getTerminator()->getOperands());
    return success();
  }

  LogicalResult runFor(scf::ForOp loop) {
    int64_t lower = integer(loop.getLowerBound());
    int64_t upper = integer(loop.getUpperBound());
    int64_t step = integer(loop.getStep());
    if (step <= 0)
      return unmodelled(loop, "has a step that is not positive");
    if (loop.getUnsignedCmp())
      return unmodelled(loop, "compares unsigned");
    return runCountedLoop(loop, lower, upper, step, loop.getInitArgs());
  }

  /// Runs the single-block region of `loop` for i = lower, lower + step, ...
  /// below upper, the induction variable and then the carried values as
  /// its arguments; the last carried values become the results.
  LogicalResult runCountedLoop(Operation *loop, int64_t lower, int64_t upper,
                               int64_t step, ValueRange inits) {
    SmallVector<RuntimeValue> carried = collect(inits);
    int64_t trips = 0;
    for (int64_t i = lower; i < upper; i += step) {
      if (++trips > kMaxLoopTrips)
        return unmodelled(loop, "runs too many iterations");
      SmallVector<RuntimeValue> arguments{RuntimeValue::ofInteger(i)};
      arguments.append(carried);
      if (failed(runRegion(loop, loop->getRegion(0), arguments, carried)))
        return failure();
    }
    bind(loop->getResults(), carried);
    return success();
  }

  LogicalResult runWhile(scf::WhileOp loop) {
    SmallVector<RuntimeValue> carried = collect(loop.getInits());
    for (int64_t trips = 0;; ++trips) {
      if (trips > kMaxLoopTrips)
        return unmodelled(loop, "runs too many iterations");
      SmallVector<RuntimeValue> forwarded;
      if (failed(runRegion(loop, loop.getBefore(), carried, forwarded)))
        return failure();
      // The condition's first operand decides; the rest are forwarded.
      bool again = forwarded.front().integer;
      forwarded.erase(forwarded.begin());
      if (!again) {
        bind(loop.getResults(), forwarded);
        return success();
      }
      if (failed(runRegion(loop, loop.getAfter(), forwarded, carried)))
        return failure();
    }
  }

  /// The results of `map` applied to `operands`.
  FailureOr<SmallVector<int64_t>> applyMap(Operation *op, AffineMap map,
                                           ValueRange operands) {
    SmallVector<Attribute> constants;
    Builder builder(op->getContext());
    for (Value operand : operands)
      constants.push_back(builder.getIndexAttr(integer(operand)));
    SmallVector<Attribute> folded;
    if (failed(map.constantFold(constants, folded)))
      return unmodelled(op, "has an affine map the interpreter cannot fold");
    SmallVector<int64_t> results;
    for (Attribute result : folded)
      results.push_back(cast<IntegerAttr>(result).getInt());
    return results;
  }

  LogicalResult runAffineFor(affine::AffineForOp loop) {
    FailureOr<SmallVector<int64_t>> lower = applyMap(
        loop, loop.getLowerBoundMap(), loop.getLowerBoundOperands());
    FailureOr<SmallVector<int64_t>> upper = applyMap(
        loop, loop.getUpperBoundMap(), loop.getUpperBoundOperands());
    if (failed(lower) || failed(upper))
      return failure();
    return runCountedLoop(loop, *llvm::max_element(*lower),
                          *llvm::min_element(*upper), loop.getStepAsInt(),
                          loop.getInits());
  }

  LogicalResult runAffineIf(affine::AffineIfOp branch) {
    IntegerSet set = branch.getIntegerSet();
    AffineMap constraints =
        AffineMap::get(set.getNumDims(), set.getNumSymbols(),
                       set.getConstraints(), branch.getContext());
    FailureOr<SmallVector<int64_t>> values =
        applyMap(branch, constraints, branch.getOperands());
    if (failed(values))
      return failure();
    bool holds = true;
    for (auto [value, isEquality] : llvm::zip(*values, set.getEqFlags()))
      holds &= isEquality ? value == 0 : value >= 0;
    return runChosen(branch, holds ? branch.getThenRegion()
                                   : branch.getElseRegion());
  }

  LogicalResult runChosen(Operation *op, Region &region) {
    SmallVector<RuntimeValue> yielded;
    if (region.empty())
      return success();
    if (failed(runRegion(op, region, {}, yielded)))
      return failure();
    bind(op->getResults(), yielded);
    return success();
  }

  LogicalResult runSwitch(scf::IndexSwitchOp cases) {
    int64_t value = integer(cases.getArg());
    for (auto [caseValue, region] :
         llvm::zip(cases.getCases(), cases.getCaseRegions()))
      if (caseValue == value)
        return runChosen(cases, region);
    return runChosen(cases, cases.getDefaultRegion());
  }

  //===--------------------------------------------------------------------===//
  // Ops
  //===--------------------------------------------------------------------===//

  LogicalResult runOp(Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return runFor(loop);
    if (auto loop = dyn_cast<scf::WhileOp>(op))
      return runWhile(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return runChosen(op, integer(branch.getCondition())
                               ? branch.getThenRegion()
                               : branch.getElseRegion());
    if (auto cases = dyn_cast<scf::IndexSwitchOp>(op))
      return runSwitch(cases);
    if (auto region = dyn_cast<scf::ExecuteRegionOp>(op))
      return runChosen(op, region.getRegion());
    if (auto loop = dyn_cast<affine::AffineForOp>(op))
      return runAffineFor(loop);
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
      FailureOr<SmallVector<int64_t>> results =
          applyMap(op, apply.getAffineMap(), apply.getMapOperands());
      if (failed(results))
        return failure();
      values[apply] = RuntimeValue::ofInteger(results->front());
      return success();
    }
    if (auto branch = dyn_cast<affine::AffineIfOp>(op))
      return runAffineIf(branch);
    if (isa<arith::ArithDialect>(op->getDialect()))
      return runArith(op);
    if (isa<memref::MemRefDialect>(op->getDialect()))
      return runMemRef(op);
    if (isa<VyreDialect>(op->getDialect()))
      return runVyre(op);
    if (isa<gpu::GPUDialect>(op->getDialect()))
      return runGPU(op);
    if (isa<LLVM::LLVMDialect>(op->getDialect()))
      return runLLVM(op);
    if (auto call = dyn_cast<func::CallOp>(op))
      return runCall(call);
    if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op))
      return runCast(cast);
    return unmodelled(op);
  }

  LogicalResult runArith(Operation *op) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto value = dyn_cast<IntegerAttr>(constant.getValue()))
        values[constant] = RuntimeValue::ofInteger(
            value.getType().isInteger(1)
                ? int64_t(value.getValue().getZExtValue())
                : value.getValue().getSExtValue());
      else
        values[constant] =
            RuntimeValue::ofSymbol(hashString(printed(constant.getValue())));
      return success();
    }
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      if (!select.getCondition().getType().isInteger(1))
        return unmodelled(op, "selects per element");
      values[select] =
          get(integer(select.getCondition()) ? select.getTrueValue()
                                             : select.getFalseValue());
      return success();
    }
    if (op->getNumResults() != 1)
      return unmodelled(op);
    Value result = op->getResult(0);
    if (!result.getType().isIntOrIndex()) {
      // Data: a hash of the op and its operands.
      uint64_t value = hashString(op->getName().getStringRef());
      for (Value operand : op->getOperands())
        value = mix(value, get(operand).hash());
      values[result] = RuntimeValue::ofSymbol(value);
      return success();
    }
    auto operand = [&](unsigned i) { return integer(op->getOperand(i)); };
    auto nonZero = [&](unsigned i) { return operand(i) != 0; };
    std::optional<int64_t> value =
        llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
            .Case([&](arith::AddIOp) { return operand(0) + operand(1); })
            .Case([&](arith::SubIOp) { return operand(0) - operand(1); })
            .Case([&](arith::MulIOp) { return operand(0) * operand(1); })
            .Case([&](arith::AndIOp) { return operand(0) & operand(1); })
            .Case([&](arith::OrIOp) { return operand(0) | operand(1); })
            .Case([&](arith::XOrIOp) { return operand(0) ^ operand(1); })
            .Case([&](arith::DivSIOp) -> std::optional<int64_t> {
              if (!nonZero(1))
                return std::nullopt;
              return operand(0) / operand(1);
            })
            .Case([&](arith::RemSIOp) -> std::optional<int64_t> {
              if (!nonZero(1))
                return std::nullopt;
              return operand(0) % operand(1);
            })
            .Case([&](arith::DivUIOp) -> std::optional<int64_t> {
              if (!nonZero(1))
                return std::nullopt;
              return int64_t(uint64_t(operand(0)) / uint64_t(operand(1)));
            })
            .Case([&](arith::RemUIOp) -> std::optional<int64_t> {
              if (!nonZero(1))
                return std::nullopt;
              return int64_t(uint64_t(operand(0)) % uint64_t(operand(1)));
            })
            .Case([&](arith::CeilDivSIOp) -> std::optional<int64_t> {
              if (!nonZero(1))
                return std::nullopt;
              int64_t q = operand(0) / operand(1);
              bool exact = q * operand(1) == operand(0);
              bool positive = (operand(0) > 0) == (operand(1) > 0);
              return !exact && positive ? q + 1 : q;
            })
            .Case([&](arith::FloorDivSIOp) -> std::optional<int64_t> {
              if (!nonZero(1))
                return std::nullopt;
              int64_t q = operand(0) / operand(1);
              bool exact = q * operand(1) == operand(0);
              bool negative = (operand(0) < 0) != (operand(1) < 0);
              return !exact && negative ? q - 1 : q;
            })
            .Case([&](arith::MaxSIOp) {
              return std::max(operand(0), operand(1));
            })
            .Case([&](arith::MinSIOp) {
              return std::min(operand(0), operand(1));
            })
            .Case([&](arith::MaxUIOp) {
              return int64_t(
                  std::max(uint64_t(operand(0)), uint64_t(operand(1))));
            })
            .Case([&](arith::MinUIOp) {
              return int64_t(
                  std::min(uint64_t(operand(0)), uint64_t(operand(1))));
            })
            .Case([&](arith::ShLIOp) { return operand(0) << operand(1); })
            .Case([&](arith::ShRSIOp) { return operand(0) >> operand(1); })
            .Case([&](arith::ShRUIOp) {
              return int64_t(uint64_t(operand(0)) >> operand(1));
            })
            .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                  arith::ExtUIOp, arith::TruncIOp>(
                [&](Operation *) { return operand(0); })
            .Case([&](arith::CmpIOp compare) -> std::optional<int64_t> {
              Type type = compare.getLhs().getType();
              unsigned width =
                  type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
              return arith::applyCmpPredicate(
                  compare.getPredicate(),
                  APInt(width, operand(0), /*isSigned=*/true,
                        /*implicitTrunc=*/true),
                  APInt(width, operand(1), /*isSigned=*/true,
                        /*implicitTrunc=*/true));
            })
            .Default([](Operation *) { return std::nullopt; });
    if (!value)
      return unmodelled(op);
    // An i1 holds 0 or 1.
    if (result.getType().isInteger(1))
      *value &= 1;
    values[result] = RuntimeValue::ofInteger(*value);
    return success();
  }

  /// An OpFoldResult's integer.
  int64_t fold(OpFoldResult value) {
    if (auto attribute = dyn_cast<Attribute>(value))
      return cast<IntegerAttr>(attribute).getInt();
    return integer(cast<Value>(value));
  }

  LogicalResult runSubView(memref::SubViewOp subview) {
    if (failed(expect(subview, subview.getSource(), Kind::Memref)))
      return failure();
    View source = get(subview.getSource()).view;
    View view{source.buffer, source.offset, {}, {}};
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    for (auto [d, offset, size, stride] :
         llvm::enumerate(subview.getMixedOffsets(), subview.getMixedSizes(),
                         subview.getMixedStrides())) {
      view.offset += fold(offset) * source.strides[d];
      if (dropped.test(d))
        continue;
      view.sizes.push_back(fold(size));
      view.strides.push_back(fold(stride) * source.strides[d]);
    }
    values[subview] = RuntimeValue::ofView(std::move(view));
    return success();
  }

  /// A `memref.view` of a whole byte buffer at a constant offset: a buffer
  /// of its own (the same one each time those bytes are viewed with that
  /// type), freed with the byte buffer. Views that overlap otherwise are not
  /// modelled.
  LogicalResult runView(memref::ViewOp view) {
    if (failed(expect(view, view.getSource(), Kind::Memref)))
      return failure();
    View source = get(view.getSource()).view;
    MemRefType type = view.getType();
    if (source.offset != 0 || source.sizes.size() != 1 ||
        source.strides.front() != 1 || !type.hasStaticShape() ||
        !type.getElementType().isIntOrIndexOrFloat())
      return unmodelled(view, "views a view, or has a dynamic shape");
    int64_t elementBytes =
        type.getElementType().isIndex()
            ? 8
            : std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
    // LLVM lays out an element of 3, 5, 6 or 7 bytes in more.
    if (!llvm::isPowerOf2_64(elementBytes))
      return unmodelled(view, "views elements whose size is not a power of "
                              "two bytes");
    int64_t begin = integer(view.getByteShift());
    int64_t end = begin + type.getNumElements() * elementBytes;
    if (begin < 0 || end > source.sizes.front())
      return unmodelled(view, "views bytes outside its buffer");
    if (buffers[source.buffer].freed)
      return fault(view, "uses a buffer after it was freed");
    std::optional<unsigned> found;
    for (auto [partBegin, partEnd, part] : buffers[source.buffer].parts) {
      if (partEnd <= begin || end <= partBegin)
        continue;
      if (partBegin != begin || partEnd != end ||
          buffers[part].elementBytes != elementBytes)
        return unmodelled(view, "views bytes another view covers otherwise");
      found = part;
    }
    View result;
    if (found) {
      result = newView(*found, type);
    } else {
      result = newBuffer(type, hashString("uninitialized"));
      buffers[source.buffer].parts.emplace_back(begin, end, result.buffer);
    }
    values[view] = RuntimeValue::ofView(std::move(result));
    return success();
  }

  LogicalResult runReinterpretCast(memref::ReinterpretCastOp cast) {
    if (failed(expect(cast, cast.getSource(), Kind::Memref)))
      return failure();
    View view{get(cast.getSource()).view.buffer, 0, {}, {}};
    view.offset = fold(cast.getMixedOffsets().front());
    for (OpFoldResult size : cast.getMixedSizes())
      view.sizes.push_back(fold(size));
    for (OpFoldResult stride : cast.getMixedStrides())
      view.strides.push_back(fold(stride));
    values[cast] = RuntimeValue::ofView(std::move(view));
    return success();
  }

  /// The buffer element a load or store reaches.
  FailureOr<std::pair<unsigned, int64_t>> elementAt(Operation *op, Value memref,
                                                    ValueRange indices) {
    if (failed(expect(op, memref, Kind::Memref)))
      return failure();
    View view = get(memref).view;
    int64_t linear = view.offset;
    for (auto [index, size, stride] :
         llvm::zip(indices, view.sizes, view.strides)) {
      int64_t i = integer(index);
      if (i < 0 || i >= size)
        return unmodelled(op, "indexes out of bounds");
      linear += i * stride;
    }
    if (buffers[view.buffer].freed)
      return fault(op, "uses a buffer after it was freed");
    return std::make_pair(view.buffer, linear);
  }

  LogicalResult runMemRef(Operation *op) {
    if (auto subview = dyn_cast<memref::SubViewOp>(op))
      return runSubView(subview);
    if (auto cast = dyn_cast<memref::ReinterpretCastOp>(op))
      return runReinterpretCast(cast);
    if (auto view = dyn_cast<memref::ViewOp>(op))
      return runView(view);
    if (auto cast = dyn_cast<memref::CastOp>(op)) {
      if (failed(expect(op, cast.getSource(), Kind::Memref)))
        return failure();
      RuntimeValue source = get(cast.getSource());
      values[cast] = std::move(source);
      return success();
    }
    if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
      auto type = cast<MemRefType>(op->getResult(0).getType());
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return unmodelled(op, "of dynamic shape or with a layout");
      values[op->getResult(0)] =
          RuntimeValue::ofView(newBuffer(type, hashString("uninitialized")));
      return success();
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (failed(expect(op, dealloc.getMemref(), Kind::Memref)))
        return failure();
      return free(op, get(dealloc.getMemref()).view);
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      auto element = elementAt(op, load.getMemRef(), load.getIndices());
      if (failed(element))
        return failure();
      values[load] = RuntimeValue::ofSymbol(
          buffers[element->first].elements[element->second]);
      return success();
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      auto element = elementAt(op, store.getMemRef(), store.getIndices());
      if (failed(element))
        return failure();
      buffers[element->first].elements[element->second] =
          get(store.getValueToStore()).hash();
      return success();
    }
    if (auto copyOp = dyn_cast<memref::CopyOp>(op)) {
      if (failed(expect(op, copyOp.getSource(), Kind::Memref)) ||
          failed(expect(op, copyOp.getTarget(), Kind::Memref)))
        return failure();
      return copy(op, get(copyOp.getSource()).view,
                  get(copyOp.getTarget()).view);
    }
    if (auto pointer = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
      if (failed(expect(op, pointer.getSource(), Kind::Memref)))
        return failure();
      values[pointer] =
          RuntimeValue::ofInteger(addressOf(get(pointer.getSource()).view));
      return success();
    }
    if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
      if (failed(expect(op, metadata.getSource(), Kind::Memref)))
        return failure();
      View view = get(metadata.getSource()).view;
      values[metadata.getBaseBuffer()] =
          RuntimeValue::ofView(View{view.buffer, 0, {}, {}});
      values[metadata.getOffset()] = RuntimeValue::ofInteger(view.offset);
      for (auto [result, size] : llvm::zip(metadata.getSizes(), view.sizes))
        values[result] = RuntimeValue::ofInteger(size);
      for (auto [result, stride] :
           llvm::zip(metadata.getStrides(), view.strides))
        values[result] = RuntimeValue::ofInteger(stride);
      return success();
    }
    return unmodelled(op);
  }

  //===--------------------------------------------------------------------===//
  // Launches
  //===--------------------------------------------------------------------===//

  /// How a launch of `kernel` accesses argument `index`: what the kernel's
  /// body does (the same at every level), or, for a kernel without a body,
  /// what `dispatch` declares at the vyre level, else everything.
  LaunchAccess accessOf(Operation *kernel, DispatchOp dispatch,
                        unsigned index) {
    if (kernel) {
      auto it = kernelAccesses.find(kernel);
      if (it == kernelAccesses.end())
        it = kernelAccesses.try_emplace(kernel, computeKernelAccess(kernel))
                 .first;
      const KernelAccess &access = it->second;
      if (access.fromBody && index < access.arguments.size())
        return {access.arguments[index].read, access.arguments[index].write,
                false};
    }
    std::optional<AccessKind> declared =
        dispatch ? dispatch.getDeclaredAccess(index) : std::nullopt;
    switch (declared.value_or(AccessKind::ReadWrite)) {
    case AccessKind::None:
      return {};
    case AccessKind::Read:
      return {true, false, false};
    case AccessKind::Write:
      return {false, true, true};
    case AccessKind::ReadWrite:
      return {true, true, false};
    case AccessKind::Overwrite:
      return {false, true, false};
    }
    return {true, true, false};
  }

  /// The work of a launch of `kernelName` with `operands`, as they are now.
  FailureOr<DeviceQueues::Work> prepareLaunch(Operation *op,
                                              SymbolRefAttr kernelName,
                                              ValueRange operands,
                                              DispatchOp dispatch) {
    Operation *kernel = SymbolTable::lookupNearestSymbolFrom(op, kernelName);
    SmallVector<RuntimeValue> arguments;
    SmallVector<LaunchAccess> accesses;
    for (auto [index, operand] : llvm::enumerate(operands)) {
      arguments.push_back(get(operand));
      accesses.push_back(isa<MemRefType>(operand.getType())
                             ? accessOf(kernel, dispatch, index)
                             : LaunchAccess{});
      if (isa<MemRefType>(operand.getType()) &&
          failed(expect(op, operand, Kind::Memref)))
        return failure();
    }
    uint64_t kernelHash = hashString(printed(kernelName));
    return DeviceQueues::Work([this, op, kernelHash, arguments, accesses]() {
      uint64_t inputs = mix(hashString("launch"), kernelHash);
      for (auto [index, argument] : llvm::enumerate(arguments)) {
        inputs = mix(inputs, index);
        if (argument.kind != Kind::Memref) {
          inputs = mix(inputs, argument.hash());
          continue;
        }
        if (failed(checkLive(op, argument.view)))
          return failure();
        if (accesses[index].read)
          inputs = mix(inputs, read(argument.view));
      }
      for (auto [index, argument] : llvm::enumerate(arguments)) {
        if (!accesses[index].write)
          continue;
        const View &view = argument.view;
        for (int64_t n = 0, e = view.count(); n < e; ++n) {
          uint64_t &element = buffers[view.buffer].elements[view.element(n)];
          uint64_t value = mix(mix(inputs, index), n);
          element = accesses[index].keepsOld ? mix(value, element) : value;
        }
      }
      return success();
    });
  }

  //===--------------------------------------------------------------------===//
  // Sequential vyre
  //===--------------------------------------------------------------------===//

  LogicalResult runVyre(Operation *op) {
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      if (!alloc.getType().hasStaticShape() ||
          !alloc.getType().getLayout().isIdentity())
        return unmodelled(op, "of dynamic shape or with a layout");
      values[alloc] = RuntimeValue::ofView(
          newBuffer(alloc.getType(), hashString("uninitialized")));
      return success();
    }
    if (auto dealloc = dyn_cast<DeallocOp>(op))
      return free(op, get(dealloc.getMemref()).view);
    if (auto copyIn = dyn_cast<CopyH2DOp>(op))
      return copy(op, get(copyIn.getSource()).view,
                  get(copyIn.getTarget()).view);
    if (auto copyOut = dyn_cast<CopyD2HOp>(op))
      return copy(op, get(copyOut.getSource()).view,
                  get(copyOut.getTarget()).view);
    if (auto dispatch = dyn_cast<DispatchOp>(op)) {
      auto work = prepareLaunch(op, dispatch.getKernel(),
                                dispatch.getKernelOperands(), dispatch);
      return failed(work) ? failure() : (*work)();
    }
    return unmodelled(op, "is not sequential vyre: the interpreter runs the "
                          "input, or what the lowering made of it");
  }

  //===--------------------------------------------------------------------===//
  // The gpu dialect, as gpu-to-llvm runs it
  //===--------------------------------------------------------------------===//

  /// The stream an async op with `dependencies` runs on: its one
  /// dependency's, or a new one.
  FailureOr<unsigned> streamFor(Operation *op, ValueRange dependencies) {
    if (dependencies.empty())
      return queues.createStream();
    if (dependencies.size() != 1)
      return unmodelled(op, "has several dependencies, which gpu-to-llvm "
                            "does not lower");
    if (failed(expect(op, dependencies.front(), Kind::Token)))
      return failure();
    unsigned stream = get(dependencies.front()).token.stream;
    if (queues.isDestroyed(stream))
      return fault(op, "enqueues on a stream that was destroyed");
    return stream;
  }

  /// Runs `work` now for a synchronous op, or queues it on its stream and
  /// binds the op's token.
  LogicalResult runOrEnqueue(Operation *op, DeviceQueues::Work work) {
    auto async = dyn_cast<gpu::AsyncOpInterface>(op);
    if (!async)
      return work();
    if (!async.getAsyncToken()) {
      if (!async.getAsyncDependencies().empty())
        return unmodelled(op, "is synchronous and has dependencies");
      return work();
    }
    FailureOr<unsigned> stream = streamFor(op, async.getAsyncDependencies());
    if (failed(stream))
      return failure();
    queues.enqueue(*stream, op, std::move(work));
    values[async.getAsyncToken()] = RuntimeValue::ofToken(queues.tail(*stream));
    return success();
  }

  LogicalResult runWait(gpu::WaitOp wait) {
    for (Value dependency : wait.getAsyncDependencies())
      if (failed(expect(wait, dependency, Kind::Token)))
        return failure();
    if (wait.getAsyncToken()) {
      // A join: a new stream that waits for each dependency's work up to
      // the op that made it (the event gpu-to-llvm records there).
      unsigned stream = queues.createStream();
      for (Value dependency : wait.getAsyncDependencies())
        queues.enqueueWait(stream, wait, get(dependency).token);
      values[wait.getAsyncToken()] = RuntimeValue::ofToken(queues.tail(stream));
      return success();
    }
    // The host synchronizes each token's stream and destroys it.
    for (Value dependency : wait.getAsyncDependencies()) {
      unsigned stream = get(dependency).token.stream;
      if (queues.isDestroyed(stream))
        return fault(wait, "waits for a stream that was destroyed");
      if (failed(queues.runUntil(queues.tail(stream))))
        return failure();
      queues.destroy(stream);
    }
    return success();
  }

  LogicalResult runGPU(Operation *op) {
    if (isa<gpu::HostRegisterOp, gpu::HostUnregisterOp>(op))
      return success();
    if (auto wait = dyn_cast<gpu::WaitOp>(op))
      return runWait(wait);
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      // Both runtimes allocate at once, on the host.
      if (!alloc.getDynamicSizes().empty() ||
          !alloc.getSymbolOperands().empty() ||
          !alloc.getType().getLayout().isIdentity())
        return unmodelled(op, "of dynamic shape or with a layout");
      values[alloc.getMemref()] = RuntimeValue::ofView(
          newBuffer(alloc.getType(), hashString("uninitialized")));
      return runOrEnqueue(op, [] { return success(); });
    }
    if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      if (failed(expect(op, dealloc.getMemref(), Kind::Memref)))
        return failure();
      View view = get(dealloc.getMemref()).view;
      return runOrEnqueue(op, [this, op, view] { return free(op, view); });
    }
    if (auto memcpy = dyn_cast<gpu::MemcpyOp>(op)) {
      if (failed(expect(op, memcpy.getSrc(), Kind::Memref)) ||
          failed(expect(op, memcpy.getDst(), Kind::Memref)))
        return failure();
      View from = get(memcpy.getSrc()).view, to = get(memcpy.getDst()).view;
      return runOrEnqueue(op,
                          [this, op, from, to] { return copy(op, from, to); });
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      auto work = prepareLaunch(op, launch.getKernel(),
                                launch.getKernelOperands(), nullptr);
      if (failed(work))
        return failure();
      return runOrEnqueue(op, std::move(*work));
    }
    return unmodelled(op);
  }

  //===--------------------------------------------------------------------===//
  // The LLVM dialect: runtime calls, descriptors, stores through pointers
  //===--------------------------------------------------------------------===//

  LogicalResult runCast(UnrealizedConversionCastOp cast) {
    if (cast->getNumOperands() != 1 || cast->getNumResults() != 1)
      return unmodelled(cast);
    Value input = cast->getOperand(0), output = cast->getResult(0);
    if (isa<gpu::AsyncTokenType>(input.getType()) &&
        isa<LLVM::LLVMPointerType>(output.getType())) {
      if (failed(expect(cast, input, Kind::Token)))
        return failure();
      values[output] =
          RuntimeValue::ofHandle(Kind::Stream, get(input).token.stream);
      return success();
    }
    // A stream's pointer cast back to a token continues that stream.
    if (isa<LLVM::LLVMPointerType>(input.getType()) &&
        isa<gpu::AsyncTokenType>(output.getType())) {
      if (failed(expect(cast, input, Kind::Stream)))
        return failure();
      unsigned stream = get(input).handle;
      if (queues.isDestroyed(stream))
        return fault(cast, "continues a stream that was destroyed");
      values[output] = RuntimeValue::ofToken(queues.tail(stream));
      return success();
    }
    auto type = dyn_cast<MemRefType>(output.getType());
    if (type && get(input).kind == Kind::Aggregate)
      return runDescriptorCast(cast, type);
    return unmodelled(cast);
  }

  /// A memref made from an LLVM memref descriptor: aligned pointer, offset,
  /// sizes, strides.
  LogicalResult runDescriptorCast(Operation *op, MemRefType type) {
    std::vector<RuntimeValue> fields = get(op->getOperand(0)).fields;
    if (fields.size() < 3 || !type.getElementType().isIntOrFloat())
      return unmodelled(op, "makes a memref of a descriptor it cannot read");
    int64_t address = fields[1].integer;
    int64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
    View view;
    view.buffer = unsigned((address >> 32) - 1);
    if (address >> 32 == 0 || view.buffer >= buffers.size())
      return unmodelled(op, "makes a memref of an address the interpreter "
                            "did not make");
    view.offset = (address & 0xffffffff) / elementBytes + fields[2].integer;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (fields.size() < 5 || fields[3].fields.size() <= size_t(d) ||
          fields[4].fields.size() <= size_t(d))
        return unmodelled(op, "makes a memref of a descriptor it cannot read");
      view.sizes.push_back(fields[3].fields[d].integer);
      view.strides.push_back(fields[4].fields[d].integer);
    }
    values[op->getResult(0)] = RuntimeValue::ofView(std::move(view));
    return success();
  }

  /// Sets the field at `position` of `aggregate`, growing it as needed.
  static void insert(RuntimeValue &aggregate, ArrayRef<int64_t> position,
                     const RuntimeValue &value) {
    aggregate.kind = Kind::Aggregate;
    if (aggregate.fields.size() <= size_t(position.front()))
      aggregate.fields.resize(position.front() + 1);
    RuntimeValue &field = aggregate.fields[position.front()];
    if (position.size() == 1)
      field = value;
    else
      insert(field, position.drop_front(), value);
  }

  LogicalResult runLLVM(Operation *op) {
    if (isa<LLVM::PoisonOp, LLVM::UndefOp>(op)) {
      RuntimeValue aggregate;
      aggregate.kind = Kind::Aggregate;
      values[op->getResult(0)] = aggregate;
      return success();
    }
    if (auto constant = dyn_cast<LLVM::ConstantOp>(op)) {
      auto value = dyn_cast<IntegerAttr>(constant.getValue());
      if (!value)
        return unmodelled(op, "is not an integer");
      values[constant] = RuntimeValue::ofInteger(value.getInt());
      return success();
    }
    if (auto insertValue = dyn_cast<LLVM::InsertValueOp>(op)) {
      RuntimeValue aggregate = get(insertValue.getContainer());
      insert(aggregate, insertValue.getPosition(), get(insertValue.getValue()));
      values[insertValue] = std::move(aggregate);
      return success();
    }
    if (auto toPointer = dyn_cast<LLVM::IntToPtrOp>(op)) {
      values[toPointer] = get(toPointer.getArg());
      return success();
    }
    if (auto store = dyn_cast<LLVM::StoreOp>(op))
      return runPointerStore(store);
    if (auto call = dyn_cast<LLVM::CallOp>(op))
      return runRuntimeCall(call);
    return unmodelled(op);
  }

  LogicalResult runPointerStore(LLVM::StoreOp store) {
    Type type = store.getValue().getType();
    int64_t address = get(store.getAddr()).integer;
    if (get(store.getAddr()).kind != Kind::Integer || !type.isIntOrFloat() ||
        address >> 32 == 0 || uint64_t((address >> 32) - 1) >= buffers.size())
      return unmodelled(store, "stores through a pointer the interpreter "
                               "did not make");
    Buffer &buffer = buffers[(address >> 32) - 1];
    int64_t element =
        (address & 0xffffffff) / ((type.getIntOrFloatBitWidth() + 7) / 8);
    if (element >= int64_t(buffer.elements.size()))
      return unmodelled(store, "stores outside its buffer");
    if (buffer.freed)
      return fault(store, "uses a buffer after it was freed");
    buffer.elements[element] = get(store.getValue()).hash();
    return success();
  }

  FailureOr<unsigned> streamOperand(Operation *op, Value pointer) {
    if (failed(expect(op, pointer, Kind::Stream)))
      return failure();
    return get(pointer).handle;
  }
  FailureOr<Event *> eventOperand(Operation *op, Value pointer) {
    if (failed(expect(op, pointer, Kind::Event)))
      return failure();
    Event &event = events[get(pointer).handle];
    if (event.destroyed)
      return fault(op, "uses an event that was destroyed");
    return &event;
  }

  /// The mgpu stream and event calls, as CUDA runs them.
  LogicalResult runRuntimeCall(LLVM::CallOp call) {
    std::optional<StringRef> callee = call.getCallee();
    if (!callee)
      return unmodelled(call, "is an indirect call");
    ValueRange operands = call.getArgOperands();
    if (*callee == "mgpuEventCreate") {
      events.emplace_back();
      values[call.getResult()] =
          RuntimeValue::ofHandle(Kind::Event, events.size() - 1);
      return success();
    }
    if (*callee == "mgpuEventRecord") {
      FailureOr<Event *> event = eventOperand(call, operands[0]);
      FailureOr<unsigned> stream = streamOperand(call, operands[1]);
      if (failed(event) || failed(stream))
        return failure();
      (*event)->recorded = queues.tail(*stream);
      return success();
    }
    if (*callee == "mgpuStreamWaitEvent") {
      FailureOr<unsigned> stream = streamOperand(call, operands[0]);
      FailureOr<Event *> event = eventOperand(call, operands[1]);
      if (failed(event) || failed(stream))
        return failure();
      if (queues.isDestroyed(*stream))
        return fault(call, "enqueues on a stream that was destroyed");
      if ((*event)->recorded)
        queues.enqueueWait(*stream, call, *(*event)->recorded);
      return success();
    }
    if (*callee == "mgpuEventSynchronize") {
      FailureOr<Event *> event = eventOperand(call, operands[0]);
      if (failed(event))
        return failure();
      return (*event)->recorded ? queues.runUntil(*(*event)->recorded)
                                : success();
    }
    if (*callee == "mgpuEventDestroy") {
      FailureOr<Event *> event = eventOperand(call, operands[0]);
      if (failed(event))
        return failure();
      (*event)->destroyed = true;
      return success();
    }
    if (*callee == "mgpuStreamSynchronize" || *callee == "mgpuStreamDestroy") {
      FailureOr<unsigned> stream = streamOperand(call, operands[0]);
      if (failed(stream))
        return failure();
      if (queues.isDestroyed(*stream))
        return fault(call, "uses a stream that was destroyed");
      if (*callee == "mgpuStreamDestroy") {
        queues.destroy(*stream);
        return success();
      }
      return queues.runUntil(queues.tail(*stream));
    }
    if (*callee == "vyreMemcpy2DAsync")
      return runTileCopy(call);
    return unmodelled(call, "calls a function the interpreter does not model");
  }

  /// `vyreMemcpy2DAsync(dst, dstPitch, src, srcPitch, rowBytes, rows,
  /// stream)`: device work on the stream that copies the rows; it returns
  /// the stream.
  LogicalResult runTileCopy(LLVM::CallOp call) {
    ValueRange operands = call.getArgOperands();
    FailureOr<unsigned> stream = streamOperand(call, operands[6]);
    if (failed(stream))
      return failure();
    if (queues.isDestroyed(*stream))
      return fault(call, "enqueues on a stream that was destroyed");
    for (Value operand : operands.take_front(6))
      if (get(operand).kind != Kind::Integer)
        return unmodelled(call, "copies a tile the interpreter cannot read");
    int64_t rowBytes = integer(operands[4]), rows = integer(operands[5]);
    // The rows from `address` on, `pitch` bytes apart.
    auto tileAt = [&](int64_t address, int64_t pitch) -> std::optional<View> {
      uint64_t buffer = uint64_t(address >> 32) - 1;
      if (address >> 32 == 0 || buffer >= buffers.size())
        return std::nullopt;
      int64_t bytes = buffers[buffer].elementBytes;
      int64_t offset = address & 0xffffffff;
      if (offset % bytes || pitch % bytes || rowBytes % bytes)
        return std::nullopt;
      View view;
      view.buffer = unsigned(buffer);
      view.offset = offset / bytes;
      view.sizes = {rows, rowBytes / bytes};
      view.strides = {pitch / bytes, 1};
      return view;
    };
    std::optional<View> to = tileAt(integer(operands[0]), integer(operands[1]));
    std::optional<View> from =
        tileAt(integer(operands[2]), integer(operands[3]));
    if (!to || !from || rows < 0 || rowBytes < 0)
      return unmodelled(call, "copies a tile of addresses the interpreter "
                              "did not make");
    queues.enqueue(*stream, call, [this, call, from = *from, to = *to] {
      return copy(call, from, to);
    });
    values[call.getResult()] = RuntimeValue::ofHandle(Kind::Stream, *stream);
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Calls
  //===--------------------------------------------------------------------===//

  LogicalResult runCall(func::CallOp call) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee)
      return unmodelled(call, "calls a function it cannot find");
    for (Value operand : call.getOperands())
      if (isa<MemRefType>(operand.getType()) &&
          failed(expect(call, operand, Kind::Memref)))
        return failure();
    if (!callee.isExternal()) {
      if (callDepth >= kMaxCallDepth || !callee.getBody().hasOneBlock())
        return unmodelled(call, "calls too deep, or a callee of several "
                                "blocks");
      ++callDepth;
      SmallVector<RuntimeValue> results;
      LogicalResult ran = runRegion(call, callee.getBody(),
                                    collect(call.getOperands()), results);
      --callDepth;
      if (failed(ran))
        return failure();
      bind(call.getResults(), results);
      return success();
    }
    if (call.getNumResults() != 0)
      return unmodelled(call, "calls an external function with results");
    std::optional<FunctionEffects> effects = getDeclaredEffects(callee);
    if (!effects && options.calleeEffects)
      effects = options.calleeEffects(callee.getName());
    // What it sees: what earlier calls saw, its memref operands and, of
    // unknown effect, every memref argument; then it rewrites them.
    uint64_t seen = mix(hashString(callee.getName()), log);
    if (effects == FunctionEffects::None) {
      log = seen;
      return success();
    }
    SmallVector<View> touched;
    for (Value operand : call.getOperands())
      if (isa<MemRefType>(operand.getType()))
        touched.push_back(get(operand).view);
    for (const View &view : touched) {
      if (failed(checkLive(call, view)))
        return failure();
      seen = mix(seen, read(view));
    }
    if (!effects)
      for (unsigned buffer : visible)
        for (uint64_t element : buffers[buffer].elements)
          seen = mix(seen, element);
    log = seen;
    for (const View &view : touched)
      for (int64_t n = 0, e = view.count(); n < e; ++n)
        buffers[view.buffer].elements[view.element(n)] = mix(seen, n);
    if (!effects)
      for (unsigned buffer : visible)
        for (auto [n, element] : llvm::enumerate(buffers[buffer].elements))
          element = mix(mix(seen, buffer), n);
    return success();
  }

  func::FuncOp function;
  const ValueRunOptions &options;
  DeviceQueues queues;
  std::vector<Buffer> buffers;
  std::vector<Event> events;
  DenseMap<Value, RuntimeValue> values;
  DenseMap<Operation *, KernelAccess> kernelAccesses;
  /// The buffers of the memref arguments, in order: what the caller sees.
  SmallVector<unsigned> visible;
  /// What calls of external functions saw, in order.
  uint64_t log = 0;
  /// What the function returned.
  SmallVector<RuntimeValue> returned;
  unsigned callDepth = 0;
  std::optional<Stop> stop;
};

} // namespace

ValueRun vyre::test::runOnSymbolicData(func::FuncOp function,
                                       const ValueRunOptions &options) {
  if (function.isExternal()) {
    ValueRun run;
    run.status = ValueRun::Status::Unmodelled;
    run.message = "the function has no body";
    return run;
  }
  return Interpreter(function, options).run();
}

StringRef vyre::test::stringifyInterleaving(Interleaving interleaving) {
  switch (interleaving) {
  case Interleaving::Eager:
    return "eager";
  case Interleaving::Lazy:
    return "lazy";
  case Interleaving::Random:
    return "random";
  }
  return "";
}
