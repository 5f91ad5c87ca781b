//===- ApplyProfilePass.cpp - Kernel times from a measured run ---*- C++ -*-===//
//
// --vyre-apply-profile: the kernel times a run measured (vyre-gpu-driver
// --profile-out, KernelProfile.h), written as `vyre.cost_us` on the
// dispatches of those kernels.
//
//===----------------------------------------------------------------------===//

#include "vyre/Analysis/Passes.h"

#include "vyre/Analysis/DeviceCosts.h"
#include "vyre/Dialect/Vyre/IR/PipelinedLocation.h"
#include "vyre/Dialect/Vyre/IR/VyreOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Remarks.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

namespace mlir::vyre {
#define GEN_PASS_DEF_APPLYPROFILEPASS
#include "vyre/Analysis/Passes.h.inc"
} // namespace mlir::vyre

using namespace mlir;
using namespace mlir::vyre;

namespace {

constexpr StringLiteral kRemarkCategory = "apply-profile";

/// One kernel of the profile: its launches and, if timed, its mean time.
struct ProfiledKernel {
  int64_t launches = 0;
  std::optional<double> meanMicros;
};

/// Reads the profile file `path`; an error message on failure.
llvm::Expected<llvm::StringMap<ProfiledKernel>>
readProfile(StringRef path) {
  auto fail = [&](const Twine &why) {
    return llvm::createStringError("profile file '" + path + "': " + why);
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot be read: " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail("is not JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getInteger("vyre_profile") != std::optional<int64_t>(1))
    return fail("is not a version 1 vyre profile (\"vyre_profile\": 1)");
  const llvm::json::Array *kernels = root->getArray("kernels");
  if (!kernels)
    return fail("has no \"kernels\" list");
  llvm::StringMap<ProfiledKernel> result;
  for (const llvm::json::Value &entry : *kernels) {
    const llvm::json::Object *kernel = entry.getAsObject();
    std::optional<StringRef> name = kernel ? kernel->getString("name")
                                           : std::nullopt;
    std::optional<int64_t> launches =
        kernel ? kernel->getInteger("launches") : std::nullopt;
    if (!name || !launches || *launches < 0)
      return fail("a kernel entry needs a \"name\" and a non-negative "
                  "\"launches\"");
    ProfiledKernel &profiled = result[*name];
    profiled.launches = *launches;
    if (const llvm::json::Value *mean = kernel->get("mean_us")) {
      std::optional<double> micros = mean->getAsNumber();
      if (!micros || !std::isfinite(*micros) || *micros < 0)
        return fail("kernel '" + *name +
                    "' has a \"mean_us\" that is not a finite non-negative "
                    "number");
      profiled.meanMicros = *micros;
    }
  }
  return result;
}

struct ApplyProfilePass
    : public vyre::impl::ApplyProfilePassBase<ApplyProfilePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (file.empty()) {
      emitError(module.getLoc())
          << "--vyre-apply-profile: give the profile file (file=PATH)";
      return signalPassFailure();
    }
    llvm::Expected<llvm::StringMap<ProfiledKernel>> profile =
        readProfile(file);
    if (!profile) {
      emitError(module.getLoc())
          << "--vyre-apply-profile: " << llvm::toString(profile.takeError());
      return signalPassFailure();
    }
    // Kernel names that more than one gpu.module defines.
    llvm::StringMap<unsigned> modulesPerName;
    module.walk([&](gpu::GPUModuleOp kernels) {
      llvm::StringSet<> names;
      for (Operation &op : kernels.getBody()->getOperations())
        if (auto symbol = dyn_cast<SymbolOpInterface>(op))
          names.insert(symbol.getName());
      for (const auto &name : names)
        ++modulesPerName[name.getKey()];
    });
    MLIRContext *context = &getContext();
    Type f64 = Float64Type::get(context);
    module.walk([&](DispatchOp dispatch) {
      StringRef name = dispatch.getKernelAttr().getLeafReference().getValue();
      auto missed = [&](const Twine &why) {
        if (auto remark =
                remark::missed(vyre::getSourceLocation(dispatch.getLoc()),
                               options("KernelTimeNotProfiled")))
          remark << ("kernel '" + name + "' not given a measured time: " +
                     why)
                        .str();
      };
      // A time declared by hand stands.
      if (dispatch->hasAttr(kKernelCostAttrName) &&
          !dispatch->hasAttr(kKernelCostEstimatedAttrName) &&
          !dispatch->hasAttr(kKernelCostProfiledAttrName))
        return missed("the dispatch declares its own vyre.cost_us");
      auto found = profile->find(name);
      if (found == profile->end())
        return missed("the profile has no such kernel");
      if (!found->second.meanMicros)
        return missed("the profile counts its launches but did not time "
                      "them");
      double micros = *found->second.meanMicros;
      dispatch->setAttr(kKernelCostAttrName, FloatAttr::get(f64, micros));
      dispatch->setAttr(kKernelCostProfiledAttrName, UnitAttr::get(context));
      dispatch->removeAttr(kKernelCostEstimatedAttrName);
      if (auto remark =
              remark::analysis(vyre::getSourceLocation(dispatch.getLoc()),
                               options("KernelTimeProfiled")))
        remark << llvm::formatv("kernel '{0}' given its measured time, "
                                "{1:F3} us (mean of {2} launches)",
                                name, micros, found->second.launches)
                      .str();
      if (modulesPerName.lookup(name) > 1)
        missed("it is the name of a kernel in several gpu.modules, which "
               "share its measured time");
    });
    markAllAnalysesPreserved();
  }

  remark::RemarkOpts options(StringRef name) {
    return remark::RemarkOpts::name(name).category(kRemarkCategory);
  }
};

} // namespace
