//===- IndexValues.cpp - Integers the simulator computes as it runs -------===//

#include "IndexValues.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace {

/// Deeper expressions than this are taken as unknown.
constexpr unsigned kMaxDepth = 32;

std::optional<int64_t> evaluate(Value value,
                                const DenseMap<Value, int64_t> &known,
                                unsigned depth) {
  if (auto it = known.find(value); it != known.end())
    return it->second;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    if (constant.getBitWidth() == 1)
      return constant.getZExtValue();
    if (constant.getSignificantBits() > 64)
      return std::nullopt;
    return constant.getSExtValue();
  }
  Operation *def = value.getDefiningOp();
  if (!def || depth == kMaxDepth)
    return std::nullopt;
  auto operand = [&](unsigned index) {
    return evaluate(def->getOperand(index), known, depth + 1);
  };
  auto binary = [&](auto compute) -> std::optional<int64_t> {
    std::optional<int64_t> lhs = operand(0), rhs = operand(1);
    if (!lhs || !rhs)
      return std::nullopt;
    return compute(*lhs, *rhs);
  };
  auto checked = [](bool overflow, int64_t result) -> std::optional<int64_t> {
    if (overflow)
      return std::nullopt;
    return result;
  };
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(def)
      .Case([&](arith::AddIOp) {
        return binary([&](int64_t a, int64_t b) {
          int64_t result;
          bool overflow = llvm::AddOverflow(a, b, result);
          return checked(overflow, result);
        });
      })
      .Case([&](arith::SubIOp) {
        return binary([&](int64_t a, int64_t b) {
          int64_t result;
          bool overflow = llvm::SubOverflow(a, b, result);
          return checked(overflow, result);
        });
      })
      .Case([&](arith::MulIOp) {
        return binary([&](int64_t a, int64_t b) {
          int64_t result;
          bool overflow = llvm::MulOverflow(a, b, result);
          return checked(overflow, result);
        });
      })
      .Case<arith::RemUIOp, arith::RemSIOp>([&](Operation *) {
        return binary([](int64_t a, int64_t b) -> std::optional<int64_t> {
          if (b <= 0 || a < 0)
            return std::nullopt;
          return a % b;
        });
      })
      .Case<arith::DivUIOp, arith::DivSIOp>([&](Operation *) {
        return binary([](int64_t a, int64_t b) -> std::optional<int64_t> {
          if (b <= 0 || a < 0)
            return std::nullopt;
          return a / b;
        });
      })
      .Case([&](arith::MaxSIOp) {
        return binary([](int64_t a, int64_t b) { return std::max(a, b); });
      })
      .Case([&](arith::MinSIOp) {
        return binary([](int64_t a, int64_t b) { return std::min(a, b); });
      })
      .Case([&](arith::AndIOp) {
        return binary([](int64_t a, int64_t b) { return a & b; });
      })
      .Case([&](arith::OrIOp) {
        return binary([](int64_t a, int64_t b) { return a | b; });
      })
      .Case([&](arith::XOrIOp) {
        return binary([](int64_t a, int64_t b) { return a ^ b; });
      })
      .Case([&](arith::IndexCastOp) { return operand(0); })
      .Case([&](arith::SelectOp) -> std::optional<int64_t> {
        std::optional<int64_t> condition = operand(0);
        if (!condition)
          return std::nullopt;
        return operand(*condition ? 1 : 2);
      })
      .Case([&](arith::CmpIOp compare) {
        return binary([&](int64_t a, int64_t b) -> std::optional<int64_t> {
          using P = arith::CmpIPredicate;
          // The unsigned predicates compare values known to be at least 0.
          bool isUnsigned =
              llvm::is_contained({P::ult, P::ule, P::ugt, P::uge},
                                 compare.getPredicate());
          if (isUnsigned && (a < 0 || b < 0))
            return std::nullopt;
          switch (compare.getPredicate()) {
          case P::eq:
            return a == b;
          case P::ne:
            return a != b;
          case P::slt:
          case P::ult:
            return a < b;
          case P::sle:
          case P::ule:
            return a <= b;
          case P::sgt:
          case P::ugt:
            return a > b;
          case P::sge:
          case P::uge:
            return a >= b;
          }
          return std::nullopt;
        });
      })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace

std::optional<int64_t>
mlir::vyre::simulation::evaluateIndexValue(Value value,
                                           const DenseMap<Value, int64_t> &known) {
  return evaluate(value, known, 0);
}

std::optional<SmallVector<Value, 2>>
mlir::vyre::simulation::indexValuesRead(Value value,
                                        const DenseMap<Value, int64_t> &known) {
  SmallVector<Value, 2> read;
  SmallVector<std::pair<Value, unsigned>> work{{value, 0}};
  llvm::SmallPtrSet<Operation *, 16> seen;
  auto everything = [&] {
    SmallVector<Value, 2> all;
    for (auto &entry : known)
      all.push_back(entry.first);
    return all;
  };
  while (!work.empty()) {
    auto [next, depth] = work.pop_back_val();
    if (known.count(next)) {
      if (!llvm::is_contained(read, next))
        read.push_back(next);
      continue;
    }
    if (matchPattern(next, m_Constant()))
      continue;
    Operation *def = next.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (!seen.insert(def).second)
      continue;
    if (depth == kMaxDepth)
      return everything();
    if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::RemUIOp,
             arith::RemSIOp, arith::DivUIOp, arith::DivSIOp, arith::MaxSIOp,
             arith::MinSIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp,
             arith::IndexCastOp, arith::SelectOp, arith::CmpIOp>(def))
      return std::nullopt;
    for (Value operand : def->getOperands())
      work.push_back({operand, depth + 1});
  }
  return read;
}
