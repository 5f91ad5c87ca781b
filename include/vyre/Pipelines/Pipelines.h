//===- Pipelines.h - vyre pass pipelines ------------------------*- C++ -*-===//
//
// Pipelines other compilers can put in their own pass managers.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_PIPELINES_PIPELINES_H
#define VYRE_PIPELINES_PIPELINES_H

#include "vyre/Transforms/Passes.h"
#include "vyre/Verification/Passes.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::vyre {

/// Options of the vyre-to-gpu pipeline. Those of the passes it runs are
/// generated from the passes' ODS options (same names, defaults and
/// descriptions): those of --vyre-pipeline-loops, --overlap-copies and the
/// two referees (an option both passes take, such as `h2d-gbps`, is one
/// option that sets both) (`max-events` of --vyre-verify-schedule, `max-traces` and
/// `max-trace-nodes` of --vyre-verify-gpu-streams).
struct VyreToGPUPipelineOptions
    : public PassPipelineOptions<VyreToGPUPipelineOptions> {
#define GEN_PIPELINE_OPTIONS_PIPELINELOOPSPASS
#include "vyre/Transforms/PipelineOptions.h.inc"
#define GEN_PIPELINE_OPTIONS_OVERLAPCOPIESPASS
#include "vyre/Transforms/PipelineOptions.h.inc"
  PassOptions::Option<bool> deduceNoAlias{
      *this, "deduce-noalias",
      llvm::cl::desc("Run --vyre-deduce-noalias first: mark memref arguments "
                     "llvm.noalias where every call in the module passes a "
                     "distinct buffer, and copy functions for such calls"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> versionAliasing{
      *this, "version-aliasing",
      llvm::cl::desc("Run --vyre-version-aliasing after the deduction: a "
                     "function whose memref arguments may still alias gets a "
                     "run-time disjointness check and a copy with them "
                     "llvm.noalias; --vyre-choose-versions keeps it only "
                     "where that copy's schedule is faster"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> estimateCosts{
      *this, "estimate-costs",
      llvm::cl::desc("Run --vyre-estimate-kernel-costs: give each dispatch "
                     "without vyre.cost_us a roofline estimate of its "
                     "kernel's time, for the cost model"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> profile{
      *this, "profile",
      llvm::cl::desc("A profile file (vyre-gpu-driver --profile-out): run "
                     "--vyre-apply-profile after the estimates, giving each "
                     "dispatch of a kernel it times that measured time"),
      llvm::cl::init("")};
  PassOptions::Option<bool> pipelineLoops{
      *this, "pipeline-loops",
      llvm::cl::desc("Run --vyre-pipeline-loops before --overlap-copies "
                     "(false: copies overlap within one iteration only)"),
      llvm::cl::init(true)};
  /// The options of --convert-vyre-to-gpu users choose (its other,
  /// keep-effects, follows `verify`).
  PassOptions::Option<bool> carryLoopStreams{
      *this, "carry-loop-streams",
      llvm::cl::desc("Chain the iterations of loops on the device with an "
                     "event, without the host waiting between them (false: "
                     "the host waits at the end of every iteration)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> lendStreams{
      *this, "lend-streams",
      llvm::cl::desc("Chained loops and branches continue streams made "
                     "before them instead of creating streams in every "
                     "iteration (false: each iteration creates its own)"),
      llvm::cl::init(true)};
#define GEN_PIPELINE_OPTIONS_VERIFYGPUSTREAMSPASS
#include "vyre/Verification/PipelineOptions.h.inc"
#define GEN_PIPELINE_OPTIONS_VERIFYSCHEDULEPASS
#include "vyre/Verification/PipelineOptions.h.inc"
  PassOptions::Option<bool> verify{
      *this, "verify",
      llvm::cl::desc("Check the schedule with --vyre-verify-schedule after "
                     "--overlap-copies, and the result with "
                     "--vyre-verify-gpu-streams at the end"),
      llvm::cl::init(false)};
// The end of the options: passes' options of one name are declared once.
#define GEN_PIPELINE_OPTIONS_END
#include "vyre/Transforms/PipelineOptions.h.inc"
#define GEN_PIPELINE_OPTIONS_END
#include "vyre/Verification/PipelineOptions.h.inc"
};

/// Adds to `pm` (anchored on `builtin.module`) the passes that take a vyre
/// program to the gpu dialect: --vyre-deduce-noalias,
/// --vyre-version-aliasing, --vyre-kernel-access,
/// --vyre-estimate-kernel-costs, --vyre-function-effects, --vyre-pipeline-loops
/// and --overlap-copies on every func.func, --vyre-choose-versions,
/// --convert-vyre-to-gpu, then canonicalize and cse. Upstream
/// --gpu-lower-to-nvvm-pipeline continues from there.
void buildVyreToGPUPipeline(OpPassManager &pm,
                            const VyreToGPUPipelineOptions &options);

/// Registers the pipeline as --vyre-to-gpu-pipeline.
void registerVyreToGPUPipeline();

/// Adds to `pm` (anchored on `builtin.module`) a drop-in for upstream's
/// --gpu-async-region on synchronous gpu-dialect host code:
/// --gpu-kernel-outlining, --convert-gpu-host-to-vyre on every func.func,
/// upstream's --gpu-async-region (for the functions that were not imported),
/// then the vyre-to-gpu pipeline. Its output goes where --gpu-async-region's
/// would, before --gpu-lower-to-nvvm-pipeline.
void buildVyreGPUAsyncPipeline(OpPassManager &pm,
                               const VyreToGPUPipelineOptions &options);

/// Registers the drop-in as --vyre-gpu-async-pipeline.
void registerVyreGPUAsyncPipeline();

} // namespace mlir::vyre

#endif // VYRE_PIPELINES_PIPELINES_H
