//===- Pipelines.h - vyre pass pipelines ------------------------*- C++ -*-===//
//
// Pipelines other compilers can put in their own pass managers.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_PIPELINES_PIPELINES_H
#define VYRE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::vyre {

/// Options of the vyre-to-gpu pipeline; they are those of --overlap-copies.
struct VyreToGPUPipelineOptions
    : public PassPipelineOptions<VyreToGPUPipelineOptions> {
  PassOptions::Option<bool> hoist{
      *this, "hoist",
      llvm::cl::desc("Move each copy as early as is legal (false: convert in "
                     "place)"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> sideStreams{
      *this, "side-streams",
      llvm::cl::desc("Number of side streams to spread independent copies "
                     "over"),
      llvm::cl::init(1)};
  PassOptions::Option<bool> verify{
      *this, "verify",
      llvm::cl::desc("Check the schedule with --vyre-verify-schedule after "
                     "--overlap-copies, and the result with "
                     "--vyre-verify-gpu-streams at the end"),
      llvm::cl::init(false)};
};

/// Adds to `pm` (anchored on `builtin.module`) the passes that take a vyre
/// program to the gpu dialect: --overlap-copies on every func.func,
/// --convert-vyre-to-gpu, then canonicalize and cse. Upstream
/// --gpu-lower-to-nvvm-pipeline continues from there.
void buildVyreToGPUPipeline(OpPassManager &pm,
                            const VyreToGPUPipelineOptions &options);

/// Registers the pipeline as --vyre-to-gpu-pipeline.
void registerVyreToGPUPipeline();

} // namespace mlir::vyre

#endif // VYRE_PIPELINES_PIPELINES_H
