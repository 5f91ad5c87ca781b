//===- FuzzCommon.cpp - What every vyre fuzz target checks ------*- C++ -*-===//

#include "FuzzCommon.h"

#include "vyre/Analysis/DeviceCode.h"
#include "vyre/Analysis/Passes.h"
#include "vyre/Conversion/Passes.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"
#include "vyre/InitVyre.h"
#include "vyre/Simulation/Passes.h"
#include "vyre/Transforms/Passes.h"
#include "vyre/Verification/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

#include <cstdlib>
#include <memory>

using namespace mlir;

namespace {

/// The stack programs are parsed and run on (as in vyre-opt).
constexpr unsigned kStackBytes = 1u << 30;

MLIRContext &context() {
  static std::unique_ptr<MLIRContext> instance = [] {
    DialectRegistry registry;
    vyre::registerVyreDialects(registry);
    // Generated programs store through pointers.
    registry.insert<LLVM::LLVMDialect>();
    auto context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    context->disableMultithreading();
    return context;
  }();
  return *instance;
}

[[noreturn]] void fail(StringRef what, StringRef errors, StringRef program) {
  llvm::errs() << "vyre-fuzz: " << what << "\n" << errors << "\n" << program
               << "\n";
  std::abort();
}

bool isAsync(Operation *op) {
  // A vyre op that makes or awaits a token: copy_h2d_async, copy_d2h_async,
  // record, wait, sync.
  auto streamOp = dyn_cast<vyre::StreamOpInterface>(op);
  return streamOp &&
         (streamOp.getCompletionToken() || !streamOp.getAwaitedTokens().empty());
}

/// Whether `module` uses a device buffer after freeing it, or may free it
/// twice (a free in a loop of a buffer allocated outside it): a fault of the
/// input that the gpu-level referee reports in any lowering of it.
bool usesBufferAfterFree(ModuleOp module) {
  WalkResult found = module.walk([](vyre::DeallocOp dealloc) {
    Value root = dealloc.getMemref();
    while (auto view = root.getDefiningOp<ViewLikeOpInterface>())
      root = view.getViewSource();
    Operation *definer = root.getDefiningOp();
    if (!definer)
      definer = root.getParentBlock()->getParentOp();
    for (Operation *loop = dealloc->getParentOp(); loop;
         loop = loop->getParentOp()) {
      if (loop->isAncestor(definer))
        break;
      if (isa<LoopLikeOpInterface>(loop))
        return WalkResult::interrupt();
    }
    // Every use of the buffer or a view of it, after the free.
    SmallVector<Value> values{root};
    while (!values.empty()) {
      Value value = values.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (auto view = dyn_cast<ViewLikeOpInterface>(user);
            view && view.getViewSource() == value)
          values.push_back(view.getViewDest());
        Operation *inBlock = dealloc->getBlock()->findAncestorOpInBlock(*user);
        if (user != dealloc && inBlock && dealloc->isBeforeInBlock(inBlock))
          return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Whether every function of `module` is sequential vyre code without gpu
/// host ops of its own (other than pinning): then whatever the passes make of
/// it is theirs alone, and must pass the gpu-level referee.
bool isSequentialVyreOnly(ModuleOp module) {
  WalkResult found = module.walk([](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (isAsync(op))
      return WalkResult::interrupt();
    if (isa<gpu::GPUDialect>(op->getDialect()) &&
        !isa<gpu::HostRegisterOp, gpu::HostUnregisterOp>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !found.wasInterrupted();
}

} // namespace

static void checkOnThisThread(StringRef program);

void vyre_fuzz::checkProgram(StringRef program) {
  // As vyre-opt does: MLIR's parser recurses once per nesting level, so run
  // on a large stack (deeply nested brackets overflow the default one).
  llvm::thread worker(std::optional<unsigned>(kStackBytes), [&] { checkOnThisThread(program); });
  worker.join();
}

/// The functions the property holds for: sequential ones with copies.
static SmallVector<StringAttr> collectCheckedFunctions(ModuleOp module) {
  SmallVector<StringAttr> checked;
  for (auto function : module.getOps<func::FuncOp>()) {
    bool copies = false, async = false;
    function.walk([&](Operation *op) {
      copies |= isa<vyre::CopyH2DOp>(op);
      async |= isAsync(op);
    });
    if (copies && !async)
      checked.push_back(function.getSymNameAttr());
  }
  return checked;
}

/// Lowers `module`; a sequential vyre program must then pass the gpu-level
/// referee, unless it has more branch and trip-count combinations, or a
/// longer trace, than the referee checks.
static void checkLowering(MLIRContext &ctx, ModuleOp module,
                          bool sequentialVyreOnly, std::string &errors,
                          StringRef program) {
  errors.clear();
  PassManager lower(&ctx);
  // The referee reads what calls touch from functions' vyre.effects.
  vyre::ConvertVyreToGPUPassOptions lowering;
  lowering.keepEffects = true;
  lower.addPass(vyre::createConvertVyreToGPUPass(lowering));
  // The lowering may refuse what it cannot lower, with a diagnostic.
  if (failed(lower.run(module))) {
    if (errors.empty())
      fail("--convert-vyre-to-gpu failed without a diagnostic", errors,
           program);
    return;
  }
  if (!sequentialVyreOnly)
    return;
  errors.clear();
  PassManager run(&ctx);
  run.addPass(createCanonicalizerPass());
  run.addPass(createCSEPass());
  // Bounds small enough for an input to finish within the fuzzer's timeout
  // under ASan; a program past them is refused with an error naming the
  // bound, not checked.
  vyre::VerifyGPUStreamsPassOptions referee;
  referee.maxTraceNodes = 4000;
  run.addPass(vyre::createVerifyGPUStreamsPass(referee));
  if (failed(run.run(module)) &&
      !StringRef(errors).contains("combinations of scf.if branches") &&
      !StringRef(errors).contains("max-trace-nodes="))
    fail("the lowered program fails --vyre-verify-gpu-streams", errors,
         program);
}

static void checkOnThisThread(StringRef program) {
  MLIRContext &ctx = context();
  std::string errors;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error) {
      llvm::raw_string_ostream os(errors);
      os << diagnostic.str() << "\n";
    }
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(program, &ctx, "fuzz.mlir");
  if (!module)
    return;

  // Upstream gpu host code is imported first; the import may refuse an
  // inline gpu.launch, with a diagnostic.
  PassManager import(&ctx);
  import.nest<func::FuncOp>().addPass(vyre::createConvertGPUHostToVyrePass());
  if (failed(import.run(*module))) {
    if (errors.empty())
      fail("--convert-gpu-host-to-vyre failed without a diagnostic", errors,
           program);
    return;
  }

  // Host code that touches device memory, and vyre ops in device code, are
  // faults of the input that the verifier cannot see (they span ops):
  // --overlap-copies may refuse them (in the functions it plans), with a
  // diagnostic, and nothing else; the gpu-level referee refuses them too.
  bool hostCodeFault = failed(vyre::diagnoseVyreOpsInDeviceCode(*module)) ||
                       failed(vyre::diagnoseHostAccessToDeviceMemory(*module));
  errors.clear();

  SmallVector<StringAttr> checked = collectCheckedFunctions(*module);
  bool sequentialVyreOnly = !hostCodeFault && isSequentialVyreOnly(*module) &&
                            !usesBufferAfterFree(*module);

  PassManager overlap(&ctx);
  overlap.addPass(vyre::createDeduceNoAliasPass());
  overlap.addPass(vyre::createVersionAliasingPass());
  overlap.addPass(vyre::createKernelAccessPass());
  overlap.addPass(vyre::createEstimateKernelCostsPass());
  overlap.addPass(vyre::createFunctionEffectsPass());
  overlap.nest<func::FuncOp>().addPass(vyre::createPipelineLoopsPass());
  overlap.nest<func::FuncOp>().addPass(vyre::createOverlapCopiesPass());
  overlap.addPass(vyre::createChooseVersionsPass());
  if (failed(overlap.run(*module))) {
    if (!hostCodeFault)
      fail("--vyre-pipeline-loops or --overlap-copies failed on valid IR",
           errors, program);
    if (errors.empty())
      fail("--overlap-copies refused host code that touches device memory "
           "without a diagnostic",
           errors, program);
    return;
  }

  // A checked function versioned for aliasing: both its versions too.
  for (size_t i = 0, e = checked.size(); i < e; ++i)
    for (StringRef suffix : {"_disjoint", "_may_alias"})
      if (module->lookupSymbol<func::FuncOp>(
              (checked[i].getValue() + suffix).str()))
        checked.push_back(
            StringAttr::get(&ctx, checked[i].getValue() + suffix));
  for (StringAttr name : checked) {
    auto function = module->lookupSymbol<func::FuncOp>(name);
    if (!function)
      continue;
    errors.clear();
    PassManager verify(&ctx, func::FuncOp::getOperationName());
    vyre::VerifySchedulePassOptions referee;
    referee.maxEvents = 100000;
    verify.addPass(vyre::createVerifySchedulePass(referee));
    if (failed(verify.run(function)) &&
        StringRef(errors).contains("race on"))
      fail("--overlap-copies produced a race", errors, program);
  }

  // The simulator takes any schedule: it may refuse one, never crash.
  {
    PassManager simulate(&ctx);
    vyre::SimulatePassOptions bounds;
    bounds.maxOps = 200000;
    simulate.addPass(vyre::createSimulatePass(bounds));
    (void)simulate.run(*module);
  }

  checkLowering(ctx, *module, sequentialVyreOnly, errors, program);
}
