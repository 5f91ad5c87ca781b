//===- KernelWork.cpp - What a kernel's threads do, counted -----*- C++ -*-===//

#include "vyre/Analysis/KernelWork.h"

#include "vyre/Analysis/DeviceCosts.h"
#include "vyre/Analysis/SlotAccessAnalysis.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::vyre;

namespace {

/// Whether memory of `type` is on the chip (workgroup or private memory).
bool isOnChip(BaseMemRefType type) {
  Attribute space = type.getMemorySpace();
  if (auto address = dyn_cast_if_present<gpu::AddressSpaceAttr>(space))
    return address.getValue() != gpu::AddressSpace::Global;
  // NVVM's numbering: 3 is shared (workgroup) memory, 5 local (private).
  if (auto number = dyn_cast_if_present<IntegerAttr>(space))
    return number.getInt() == 3 || number.getInt() == 5;
  return false;
}

/// A constant of at most 64 bits, as its bits; none for another value or a
/// wider one.
std::optional<APInt> getConstantBits(Value value) {
  Type type = value.getType();
  if (!type.isIndex() && !(type.isInteger() && type.getIntOrFloatBitWidth() <= 64))
    return std::nullopt;
  APInt bits;
  // arith.constant first, without folding it.
  if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
    auto attribute = dyn_cast<IntegerAttr>(constant.getValue());
    if (!attribute)
      return std::nullopt;
    bits = attribute.getValue();
  } else if (!matchPattern(value, m_ConstantInt(&bits))) {
    return std::nullopt;
  }
  return bits.sextOrTrunc(64);
}

/// The iterations of `loop`, from constant bounds compared as the loop
/// compares them (signed, or unsigned); none otherwise.
std::optional<uint64_t> countTrips(scf::ForOp loop) {
  std::optional<APInt> lower = getConstantBits(loop.getLowerBound());
  std::optional<APInt> upper = getConstantBits(loop.getUpperBound());
  std::optional<APInt> step = getConstantBits(loop.getStep());
  if (!lower || !upper || !step)
    return std::nullopt;
  unsigned width = loop.getLowerBound().getType().isIndex()
                       ? 64
                       : loop.getLowerBound().getType().getIntOrFloatBitWidth();
  // Back to the loop's own width: its values wrap there.
  APInt low = lower->trunc(width), high = upper->trunc(width),
        stride = step->trunc(width);
  bool isUnsigned = loop.getUnsignedCmp();
  if (stride.isZero() || (!isUnsigned && stride.isNegative()))
    return std::nullopt;
  if (isUnsigned ? high.ule(low) : high.sle(low))
    return 0;
  // high - low fits in `width` bits unsigned; round up without overflow.
  APInt span = high - low;
  APInt quotient = span.udiv(stride);
  uint64_t trips = quotient.getZExtValue();
  return span.urem(stride).isZero() ? trips : trips + 1;
}

/// Counts one thread's work, region by region.
class WorkCounter {
public:
  explicit WorkCounter(Operation *kernel) : kernel(kernel) {}

  std::optional<KernelWork> countRegion(Region &region) {
    KernelWork total;
    if (region.empty())
      return total;
    // Branches between blocks may loop: their count is not known.
    if (!region.hasOneBlock()) {
      fail(region.getParentOp(), "branches between blocks");
      return std::nullopt;
    }
    for (Block &block : region)
      for (Operation &op : block) {
        std::optional<KernelWork> work = countOp(&op);
        if (!work || !add(total, *work, &op))
          return std::nullopt;
      }
    return total;
  }

  std::string whyNot;

private:
  std::optional<KernelWork> fail(Operation *op, const Twine &reason) {
    if (whyNot.empty())
      whyNot = ("'" + op->getName().getStringRef() + "' " + reason).str();
    return std::nullopt;
  }

  bool add(KernelWork &into, const KernelWork &work, Operation *at) {
    std::optional<uint64_t> bytes = llvm::checkedAddUnsigned(into.bytes,
                                                             work.bytes);
    std::optional<uint64_t> flops = llvm::checkedAddUnsigned(into.flops,
                                                             work.flops);
    if (!bytes || !flops) {
      fail(at, "makes the count pass 2^64 - 1");
      return false;
    }
    into = {*bytes, *flops};
    return true;
  }

  /// The bytes one access of `type` (an element or a vector of them) to a
  /// buffer of `buffer` type moves from or to global memory.
  std::optional<uint64_t> accessBytes(Type type, Value buffer, Operation *op) {
    auto memref = dyn_cast<BaseMemRefType>(buffer.getType());
    if (memref && isOnChip(memref))
      return 0;
    // A thread's own stack (memref.alloca in the kernel) is private memory.
    if (SlotAccessAnalysis::resolveRoot(buffer).getDefiningOp<
            memref::AllocaOp>())
      return 0;
    std::optional<uint64_t> lanes = countLanes(type, op);
    if (!lanes)
      return std::nullopt;
    std::optional<uint64_t> bytes =
        getElementBytes(getElementTypeOrSelf(type), layouts.closest(kernel));
    std::optional<uint64_t> total =
        bytes ? llvm::checkedMulUnsigned(*bytes, *lanes) : std::nullopt;
    if (!total)
      fail(op, "accesses elements of no known size");
    return total;
  }

  /// The lanes of a value of `type`: 1 for a scalar, the elements of a
  /// fixed-size vector; none (after a failure) for a scalable one or one of
  /// more than 2^64 - 1 elements.
  std::optional<uint64_t> countLanes(Type type, Operation *op) {
    auto vector = dyn_cast<VectorType>(type);
    if (!vector)
      return 1;
    if (vector.isScalable()) {
      fail(op, "works on scalable vectors, whose size is not known");
      return std::nullopt;
    }
    uint64_t lanes = 1;
    for (int64_t size : vector.getShape()) {
      std::optional<uint64_t> product =
          llvm::checkedMulUnsigned(lanes, static_cast<uint64_t>(size));
      if (!product) {
        fail(op, "makes the count pass 2^64 - 1");
        return std::nullopt;
      }
      lanes = *product;
    }
    return lanes;
  }

  /// The floating-point operations of `op` itself (none after a failure).
  std::optional<uint64_t> countFlops(Operation *op) {
    bool isFloatMath =
        isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
            arith::RemFOp, arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
            arith::MaxNumFOp, arith::MinNumFOp>(op) ||
        op->getName().getDialectNamespace() == "math";
    if (!isFloatMath || op->getNumResults() == 0)
      return 0;
    Type type = op->getResult(0).getType();
    if (!isa<FloatType>(getElementTypeOrSelf(type)))
      return 0;
    std::optional<uint64_t> lanes = countLanes(type, op);
    if (!lanes)
      return std::nullopt;
    // One per lane and result (math.sincos makes two), two for an fma.
    uint64_t perLane = op->getNumResults() * (isa<math::FmaOp>(op) ? 2 : 1);
    std::optional<uint64_t> flops = llvm::checkedMulUnsigned(*lanes, perLane);
    if (!flops)
      fail(op, "makes the count pass 2^64 - 1");
    return flops;
  }

  std::optional<KernelWork> countOp(Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return bytesOf(load.getType(), load.getMemRef(), op);
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return bytesOf(store.getValueToStore().getType(), store.getMemRef(), op);
    if (auto load = dyn_cast<vector::LoadOp>(op))
      return bytesOf(load.getVectorType(), load.getBase(), op);
    if (auto store = dyn_cast<vector::StoreOp>(op))
      return bytesOf(store.getVectorType(), store.getBase(), op);
    if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op)) {
      std::optional<KernelWork> once =
          bytesOf(atomic.getType(), atomic.getMemref(), op);
      if (once)
        once->bytes *= 2; // Read, then written.
      return once;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return countLoop(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      std::optional<KernelWork> then = countRegion(branch.getThenRegion());
      std::optional<KernelWork> otherwise =
          countRegion(branch.getElseRegion());
      if (!then || !otherwise)
        return std::nullopt;
      return KernelWork{std::max(then->bytes, otherwise->bytes),
                        std::max(then->flops, otherwise->flops)};
    }
    if (isa<CallOpInterface>(op))
      return fail(op, "calls a function whose work is not counted");
    if (op->getNumRegions() != 0 && !isa<scf::ExecuteRegionOp>(op))
      return fail(op, "runs regions whose work is not counted");
    std::optional<uint64_t> flops = countFlops(op);
    if (!flops)
      return std::nullopt;
    KernelWork work{0, *flops};
    for (Region &region : op->getRegions()) {
      std::optional<KernelWork> inner = countRegion(region);
      if (!inner || !add(work, *inner, op))
        return std::nullopt;
    }
    // Any other op that reads or writes memory, or may (it declares no
    // effects), is not counted: refuse rather than count it as nothing.
    if (isa<gpu::BarrierOp>(op) || op->hasTrait<OpTrait::IsTerminator>())
      return work;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &instance : instances)
        if (isa<MemoryEffects::Read, MemoryEffects::Write>(
                instance.getEffect()))
          return fail(op, "accesses memory in a way that is not counted");
      return work;
    }
    if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return fail(op, "has effects that are not declared");
    return work;
  }

  std::optional<KernelWork> bytesOf(Type type, Value buffer, Operation *op) {
    std::optional<uint64_t> bytes = accessBytes(type, buffer, op);
    if (!bytes)
      return std::nullopt;
    return KernelWork{*bytes, 0};
  }

  std::optional<KernelWork> countLoop(scf::ForOp loop) {
    std::optional<uint64_t> trips = countTrips(loop);
    if (!trips)
      return fail(loop, "runs a number of iterations that is not a constant");
    std::optional<KernelWork> body = countRegion(loop.getRegion());
    if (!body)
      return std::nullopt;
    std::optional<uint64_t> bytes =
        llvm::checkedMulUnsigned(body->bytes, *trips);
    std::optional<uint64_t> flops =
        llvm::checkedMulUnsigned(body->flops, *trips);
    if (!bytes || !flops)
      return fail(loop, "makes the count pass 2^64 - 1");
    return KernelWork{*bytes, *flops};
  }

  Operation *kernel;
  DataLayoutCache layouts;
};

/// Grid sizes as constant integers, folding the pure ops that compute them
/// from constants (a grid that upstream's loop mapping computes with
/// `affine.apply` and `arith` ops), each value once.
class IntegerFolder {
public:
  std::optional<int64_t> fold(Value value, unsigned depth = 8) {
    auto [found, inserted] = folded.try_emplace(value, std::nullopt);
    if (inserted)
      found->second = compute(value, depth);
    return folded.lookup(value);
  }

private:
  std::optional<int64_t> compute(Value value, unsigned depth) {
    Type type = value.getType();
    if (!type.isIndex() &&
        !(type.isInteger() && type.getIntOrFloatBitWidth() <= 64))
      return std::nullopt;
    if (std::optional<APInt> bits = getConstantBits(value))
      return bits->getSExtValue();
    Operation *op = value.getDefiningOp();
    if (!op || depth == 0 || !isPure(op) || op->getNumRegions() != 0)
      return std::nullopt;
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands()) {
      std::optional<int64_t> constant = fold(operand, depth - 1);
      if (!constant)
        return std::nullopt;
      operands.push_back(IntegerAttr::get(operand.getType(), *constant));
    }
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) ||
        results.size() != op->getNumResults())
      return std::nullopt;
    auto attribute = dyn_cast_if_present<IntegerAttr>(dyn_cast_if_present<
        Attribute>(results[cast<OpResult>(value).getResultNumber()]));
    if (!attribute || attribute.getValue().getBitWidth() > 64)
      return std::nullopt;
    return attribute.getValue().getSExtValue();
  }

  DenseMap<Value, std::optional<int64_t>> folded;
};

template <typename DispatchT>
std::optional<uint64_t> threadsOf(DispatchT dispatch) {
  // Most grids are constants: the folder (and its map) only for the rest.
  std::optional<IntegerFolder> folder;
  auto fold = [&](Value size) -> std::optional<int64_t> {
    if (std::optional<APInt> bits = getConstantBits(size))
      return bits->getSExtValue();
    if (!folder)
      folder.emplace();
    return folder->fold(size);
  };
  uint64_t threads = 1;
  for (Value size : {dispatch.getGridSizeX(), dispatch.getGridSizeY(),
                     dispatch.getGridSizeZ(), dispatch.getBlockSizeX(),
                     dispatch.getBlockSizeY(), dispatch.getBlockSizeZ()}) {
    std::optional<int64_t> constant = fold(size);
    if (!constant || *constant < 0)
      return std::nullopt;
    std::optional<uint64_t> product =
        llvm::checkedMulUnsigned(threads, static_cast<uint64_t>(*constant));
    if (!product)
      return std::nullopt;
    threads = *product;
  }
  return threads;
}

} // namespace

std::optional<KernelWork> mlir::vyre::computeKernelWork(Operation *kernel,
                                                        std::string *whyNot) {
  if (kernel->getNumRegions() != 1 || kernel->getRegion(0).empty()) {
    if (whyNot)
      *whyNot = "the kernel has no body";
    return std::nullopt;
  }
  WorkCounter counter(kernel);
  std::optional<KernelWork> work = counter.countRegion(kernel->getRegion(0));
  if (!work && whyNot)
    *whyNot = counter.whyNot;
  return work;
}

std::optional<uint64_t> mlir::vyre::getLaunchedThreads(Operation *dispatch) {
  if (auto vyreDispatch = dyn_cast<DispatchOp>(dispatch))
    return threadsOf(vyreDispatch);
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(dispatch))
    return threadsOf(launch);
  return std::nullopt;
}

double mlir::vyre::estimateKernelMicros(const KernelWork &work,
                                        uint64_t threads,
                                        const Roofline &roofline) {
  // 1 GB/s moves 1e3 bytes per microsecond; 1 TFLOP/s does 1e6 operations.
  double memoryUs = static_cast<double>(work.bytes) *
                    static_cast<double>(threads) / (roofline.memoryGBps * 1e3);
  double computeUs = static_cast<double>(work.flops) *
                     static_cast<double>(threads) / (roofline.tflops * 1e6);
  return std::max(memoryUs, computeUs);
}
