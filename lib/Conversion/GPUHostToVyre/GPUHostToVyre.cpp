//===- GPUHostToVyre.cpp - Synchronous gpu host code into vyre ---*- C++ -*-===//
//
// --convert-gpu-host-to-vyre: gpu.alloc, gpu.dealloc, gpu.launch_func and
// gpu.memcpy in synchronous host code become their vyre forms, so that
// --overlap-copies can schedule them. Functions written asynchronous by hand
// are left as written; in a function that mixes the two, the synchronous ops
// are imported and the explicit ones keep their tokens. Whatever cannot be
// imported stays, with a remark saying why.
//
//===----------------------------------------------------------------------===//

#include "vyre/Conversion/Passes.h"

#include "WaitsForExplicitWork.h"

#include "vyre/Analysis/ExplicitAsyncWork.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::vyre {
#define GEN_PASS_DEF_CONVERTGPUHOSTTOVYREPASS
#include "vyre/Conversion/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr StringLiteral kRemarkCategory = "convert-gpu-host-to-vyre";

/// Where a buffer lives, as far as the function shows: an argument may be
/// either.
enum class Side { Host, Device, Argument, Unknown };

/// Whether `op` is a synchronous gpu host op the import takes: it makes no
/// token and waits for none.
bool isSynchronousHostOp(Operation *op) {
  if (!isa<gpu::AllocOp, gpu::DeallocOp, gpu::LaunchFuncOp, gpu::MemcpyOp,
           gpu::MemsetOp>(op))
    return false;
  // A host_shared (managed) allocation stays as written: host memory to
  // vyre, which kernels may use as well, and which gpu-to-llvm lowers only
  // when it is synchronous.
  if (auto alloc = dyn_cast<gpu::AllocOp>(op); alloc && alloc.getHostShared())
    return false;
  auto async = cast<gpu::AsyncOpInterface>(op);
  return !async.getAsyncToken() && async.getAsyncDependencies().empty();
}

/// Why the explicit tokens of a function that also holds synchronous gpu ops
/// keep it from being imported, or null if they do not. The import orders
/// the two kinds of work in the function's top block, so every token must
/// be made and used there, and only by gpu ops.
const char *whyTokensBlockImport(func::FuncOp function) {
  Block &top = function.getBody().front();
  const char *reason = nullptr;
  function.walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "async") {
      reason = "it is already asynchronous (async ops), and may depend on "
               "its ops running concurrently: it is left exactly as written";
      return WalkResult::interrupt();
    }
    bool tokens = llvm::any_of(op->getOperandTypes(),
                               llvm::IsaPred<gpu::AsyncTokenType>) ||
                  llvm::any_of(op->getResultTypes(),
                               llvm::IsaPred<gpu::AsyncTokenType>);
    if (!tokens)
      return WalkResult::advance();
    if (op->getBlock() != &top || !isa<gpu::AsyncOpInterface>(op) ||
        op->getNumRegions() != 0) {
      reason = "its gpu tokens are made or used outside its top block, or "
               "by an op other than a gpu host op, which the import cannot "
               "order with the synchronous ops: it is left as written";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!reason && llvm::any_of(top.getArgumentTypes(),
                              llvm::IsaPred<gpu::AsyncTokenType>))
    reason = "it takes gpu tokens as arguments, whose work the import cannot "
             "follow: it is left as written";
  return reason;
}

/// Why a function is left as written, or null if it can be imported.
const char *whyLeftAlone(func::FuncOp function) {
  const char *reason = nullptr;
  bool tokens = false, synchronous = false;
  function.walk([&](Operation *op) {
    if (isSynchronousHostOp(op))
      synchronous = true;
    if (llvm::any_of(op->getOperandTypes(),
                     llvm::IsaPred<gpu::AsyncTokenType>) ||
        llvm::any_of(op->getResultTypes(),
                     llvm::IsaPred<gpu::AsyncTokenType>) ||
        (op->getDialect() && op->getDialect()->getNamespace() == "async"))
      tokens = true;
    for (Region &region : op->getRegions())
      if (!region.hasOneBlock() && !region.empty() &&
          op != function.getOperation() &&
          llvm::any_of(region.getOps(), [](Operation &nested) {
            return isa<gpu::GPUDialect>(nested.getDialect());
          })) {
        reason = "it has gpu ops in a region of several blocks, which vyre "
                 "does not take: it is left as written";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (reason)
    return reason;
  if (!function.getBody().hasOneBlock() &&
      llvm::any_of(function.getBody().getOps(), [](Operation &op) {
        return isa<gpu::GPUDialect>(op.getDialect());
      }))
    return "it has several blocks, which vyre does not take: it is left as "
           "written";
  if (tokens && !synchronous)
    return "it is already asynchronous (gpu async tokens or async ops), and "
           "may depend on its ops running concurrently: it is left exactly "
           "as written";
  if (tokens)
    return whyTokensBlockImport(function);
  return nullptr;
}

/// Whether `root` is registered with gpu.host_register, asked once per root
/// (the answer walks the root's uses).
using RegisteredRoots = llvm::DenseMap<Value, bool>;

Side sideOf(Value buffer, RegisteredRoots &registered) {
  if (auto type = dyn_cast<BaseMemRefType>(buffer.getType()))
    if (isa_and_nonnull<gpu::AddressSpaceAttr>(type.getMemorySpace()))
      return Side::Device;
  Value root = buffer;
  while (auto view = root.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewSource() == root)
      break;
    root = view.getViewSource();
  }
  // A gpu.alloc, or the vyre.alloc the pass already made of it. Managed
  // memory is host memory the device reaches too: a copy to or from it
  // stands for one to or from the host.
  if (auto alloc = root.getDefiningOp<gpu::AllocOp>())
    return alloc.getHostShared() ? Side::Host : Side::Device;
  if (root.getDefiningOp<AllocOp>())
    return Side::Device;
  if (root.getDefiningOp<memref::AllocOp>() ||
      root.getDefiningOp<memref::AllocaOp>() ||
      root.getDefiningOp<memref::GetGlobalOp>())
    return Side::Host;
  auto [it, inserted] = registered.try_emplace(root, false);
  if (inserted)
    it->second = isRegisteredWithGPU(root);
  if (it->second)
    return Side::Host;
  if (auto argument = dyn_cast<BlockArgument>(root))
    if (isa<FunctionOpInterface>(argument.getOwner()->getParentOp()))
      return Side::Argument;
  return Side::Unknown;
}

bool compatible(MemRefType lhs, MemRefType rhs) {
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getRank() != rhs.getRank())
    return false;
  for (auto [l, r] : llvm::zip(lhs.getShape(), rhs.getShape()))
    if (!ShapedType::isDynamic(l) && !ShapedType::isDynamic(r) && l != r)
      return false;
  return true;
}

/// The direction of a copy: into device memory (true), into host memory
/// (false), or undecided.
std::optional<bool> copiesToDevice(gpu::MemcpyOp copy,
                                   RegisteredRoots &registered) {
  Side to = sideOf(copy.getDst(), registered),
       from = sideOf(copy.getSrc(), registered);
  if ((to == Side::Device && (from == Side::Host || from == Side::Argument)) ||
      (to == Side::Argument && from == Side::Host))
    return true;
  if ((to == Side::Host && (from == Side::Device || from == Side::Argument)) ||
      (to == Side::Argument && from == Side::Device))
    return false;
  return std::nullopt;
}

/// Converts one function: first checks that every gpu host op can be
/// imported, then imports them all. One op that cannot be keeps the whole
/// function as written, since a synchronous gpu op among vyre's asynchronous
/// ones would later be threaded onto their streams by --gpu-async-region,
/// which does not know vyre's streams.
class Importer {
public:
  explicit Importer(func::FuncOp function)
      : function(function), builder(function.getContext()) {}

  /// The first op that cannot be imported and why; none if all can.
  std::optional<std::pair<Operation *, std::string>> findBlocker() {
    std::optional<std::pair<Operation *, std::string>> blocker;
    function.walk([&](Operation *op) {
      std::string why = whyNotImportable(op);
      if (why.empty())
        return WalkResult::advance();
      blocker = {op, why};
      return WalkResult::interrupt();
    });
    return blocker;
  }

  /// Imports every synchronous gpu host op; returns how many waits for
  /// explicit work it inserted.
  unsigned run() {
    unsigned waits = waitForExplicitWorkBeforeSynchronousOps(
        function.getBody().front(), isSynchronousHostOp);
    SmallVector<Operation *> ops;
    function.walk([&](Operation *op) {
      if (isSynchronousHostOp(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      importOp(op);
    return waits;
  }

private:
  /// Why `op` cannot be imported; empty if it can, or if it is no gpu host
  /// op.
  std::string whyNotImportable(Operation *op) {
    // Ops written with tokens stay as written.
    if (!isSynchronousHostOp(op))
      return "";
    if (isa<gpu::MemsetOp>(op))
      return "vyre has no memset";
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      if (!alloc.getSymbolOperands().empty())
        return "it takes symbol operands";
      if (!alloc.getType().getLayout().isIdentity())
        return "its result does not have an identity layout";
      return "";
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      return whyLaunchNotImportable(launch);
    if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      auto dst = dyn_cast<MemRefType>(copy.getDst().getType());
      auto src = dyn_cast<MemRefType>(copy.getSrc().getType());
      if (!dst || !src || !compatible(dst, src))
        return "its two sides differ in type";
      if (!copiesToDevice(copy, registeredRoots))
        return "its direction cannot be decided (each side must be known as "
               "host or device memory: a gpu.alloc, a gpu address space, a "
               "memref.alloc, alloca or global, a gpu.host_register'ed "
               "buffer, or an argument facing one of those)";
    }
    return "";
  }

  std::string whyLaunchNotImportable(gpu::LaunchFuncOp launch) {
    if (launch.hasClusterSize())
      return "vyre.dispatch has no thread-block clusters";
    if (launch.getDynamicSharedMemorySize())
      return "vyre.dispatch has no dynamic shared memory";
    if (launch.getAsyncObject())
      return "it runs on a given stream object";
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    if (!llvm::all_of(ValueRange{grid.x, grid.y, grid.z, block.x, block.y,
                                 block.z},
                      [](Value size) { return size.getType().isIndex(); }))
      return "its grid and block sizes are not of type index";
    if (!isDispatchable(launch))
      return "its kernel is not a gpu.func kernel (or a bodiless gpu.kernel "
             "declaration) in a gpu.module";
    return "";
  }

  /// Whether the launched kernel is one vyre.dispatch can name.
  bool isDispatchable(gpu::LaunchFuncOp launch) {
    Operation *callee =
        symbolTables.lookupNearestSymbolFrom(launch, launch.getKernel());
    if (!callee || !isa_and_nonnull<gpu::GPUModuleOp>(callee->getParentOp()))
      return false;
    if (auto kernel = dyn_cast<gpu::GPUFuncOp>(callee))
      return kernel.isKernel();
    auto declaration = dyn_cast<FunctionOpInterface>(callee);
    return declaration && declaration.isExternal() &&
           callee->hasAttr(gpu::GPUDialect::getKernelFuncAttrName());
  }

  void importOp(Operation *op) {
    builder.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      Value buffer = AllocOp::create(builder, loc, alloc.getType(),
                                     alloc.getDynamicSizes());
      alloc.getMemref().replaceAllUsesWith(buffer);
    } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      DeallocOp::create(builder, loc, dealloc.getMemref());
    } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      DispatchOp::create(builder, loc, launch.getKernel(), grid.x, grid.y,
                         grid.z, block.x, block.y, block.z,
                         launch.getKernelOperands(), /*access=*/nullptr);
    } else {
      auto copy = cast<gpu::MemcpyOp>(op);
      if (*copiesToDevice(copy, registeredRoots))
        CopyH2DOp::create(builder, loc, copy.getSrc(), copy.getDst());
      else
        CopyD2HOp::create(builder, loc, copy.getSrc(), copy.getDst());
    }
    op->erase();
  }

  func::FuncOp function;
  OpBuilder builder;
  SymbolTableCollection symbolTables;
  RegisteredRoots registeredRoots;
};

struct ConvertGPUHostToVyrePass
    : public vyre::impl::ConvertGPUHostToVyrePassBase<
          ConvertGPUHostToVyrePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    WalkResult outlined = function.walk([](gpu::LaunchOp launch) {
      launch.emitOpError("is not outlined: run --gpu-kernel-outlining before "
                         "--convert-gpu-host-to-vyre");
      return WalkResult::interrupt();
    });
    if (outlined.wasInterrupted())
      return signalPassFailure();
    bool hasHostOps =
        function
            .walk([](Operation *op) {
              return isa<gpu::AllocOp, gpu::DeallocOp, gpu::LaunchFuncOp,
                         gpu::MemcpyOp>(op)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted();
    if (!hasHostOps) {
      markAllAnalysesPreserved();
      return;
    }
    Importer importer(function);
    std::string reason;
    Location where = function.getLoc();
    if (const char *general = whyLeftAlone(function)) {
      reason = general;
    } else if (auto blocker = importer.findBlocker()) {
      reason = ("its '" + blocker->first->getName().getStringRef() +
                "' cannot be imported: " + blocker->second +
                "; it is left as written")
                   .str();
      where = blocker->first->getLoc();
    }
    if (reason.empty()) {
      unsigned explicitOps = 0;
      function.walk([&](Operation *op) {
        if (!isExplicitAsyncOp(op))
          return;
        ++explicitOps;
        op->setAttr(VyreDialect::getWrittenAsyncAttrName(),
                    UnitAttr::get(op->getContext()));
      });
      unsigned waits = importer.run();
      if (explicitOps == 0)
        return;
      if (auto remark = remark::analysis(
              vyre::getSourceLocation(function.getLoc()),
              remark::RemarkOpts::name("ImportedAroundExplicitAsync")
                  .category(kRemarkCategory)
                  .function(function.getName())))
        remark << "synchronous gpu ops imported; " +
                      std::to_string(explicitOps) +
                      " gpu op(s) written with tokens left as written; " +
                      std::to_string(waits) +
                      " host wait(s) inserted for explicit work a "
                      "synchronous op touches the buffers of";
      return;
    }
    // Later vyre passes need not warn that it was not imported; this pass
    // does, once: the function holds gpu ops (every reason is about them),
    // and none will be scheduled. At the location: the warning need not
    // print the function.
    function->setAttr(VyreDialect::getNotImportedAttrName(),
                      StringAttr::get(function.getContext(), reason));
    bool holdsGPUOps = function
                           ->walk([](Operation *op) {
                             return isa<gpu::GPUDialect>(op->getDialect())
                                        ? WalkResult::interrupt()
                                        : WalkResult::advance();
                           })
                           .wasInterrupted();
    if (holdsGPUOps)
      emitWarning(where) << "function '" << function.getName()
                       << "' holds gpu ops and was not imported, so vyre "
                          "schedules none of them: "
                       << reason;
    if (auto remark = remark::missed(vyre::getSourceLocation(where),
                                     remark::RemarkOpts::name("NotImported")
                                         .category(kRemarkCategory)
                                         .function(function.getName())))
      remark << "function not imported: " + reason;
  }
};

} // namespace
