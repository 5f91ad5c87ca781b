//===- VyreToGPUPipeline.cpp - From vyre to the gpu dialect -----*- C++ -*-===//

#include "vyre/Pipelines/Pipelines.h"

#include "vyre/Analysis/Passes.h"
#include "vyre/Conversion/Passes.h"
#include "vyre/Transforms/Passes.h"
#include "vyre/Verification/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void vyre::buildVyreToGPUPipeline(OpPassManager &pm,
                                  const VyreToGPUPipelineOptions &options) {
  // Arguments that every call passes distinct buffers for are marked
  // llvm.noalias, as if the user had written it.
  if (options.deduceNoAlias)
    pm.addPass(createDeduceNoAliasPass());
  // Functions whose memref arguments may still alias get a run-time check
  // and a copy with them llvm.noalias.
  if (options.versionAliasing)
    pm.addPass(createVersionAliasingPass());
  // Summarize each kernel once, from its body.
  pm.addPass(createKernelAccessPass());
  // Kernels without a declared time get an estimate from their bodies.
  if (options.estimateCosts)
    pm.addPass(createEstimateKernelCostsPass());
  // Kernels a run measured get their measured times, over the estimates.
  if (!options.profile.empty()) {
    ApplyProfilePassOptions profile;
    profile.file = options.profile;
    pm.addPass(createApplyProfilePass(profile));
  }
  // Summarize what each host function touches, for calls to it.
  pm.addPass(createFunctionEffectsPass());
  // Issue loops' copies iterations ahead, into rotating buffers.
  if (options.pipelineLoops)
    pm.addNestedPass<func::FuncOp>(
        createPipelineLoopsPass(options.getPipelineLoopsPassOptions()));
  // Schedule the copies, function by function (in parallel).
  pm.addNestedPass<func::FuncOp>(
      createOverlapCopiesPass(options.getOverlapCopiesPassOptions()));
  // Keep the versions whose disjoint copy's schedule is faster, on the
  // model the cost model uses.
  if (options.versionAliasing) {
    ChooseVersionsPassOptions choice;
    choice.launchUs = options.launchUs;
    choice.eventUs = options.eventUs;
    choice.hostSyncUs = options.hostSyncUs;
    choice.streamCreateUs = options.streamCreateUs;
    choice.h2dGBps = options.h2dGBps;
    choice.d2hGBps = options.d2hGBps;
    choice.copyLatencyUs = options.copyLatencyUs;
    choice.defaultKernelUs = options.defaultKernelUs;
    pm.addPass(createChooseVersionsPass(choice));
  }
  if (options.verify)
    pm.addNestedPass<func::FuncOp>(
        createVerifySchedulePass(options.getVerifySchedulePassOptions()));
  // Streams and tokens become gpu async token chains. The gpu-level referee
  // reads what calls touch from functions' vyre.effects.
  ConvertVyreToGPUPassOptions lowering;
  lowering.keepEffects = options.verify;
  lowering.carryLoopStreams = options.carryLoopStreams;
  lowering.lendStreams = options.lendStreams;
  pm.addPass(createConvertVyreToGPUPass(lowering));
  // Tidy up; the lowering's output is stable under both.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // What upstream will run: race-free, every stream and event freed. Then
  // nothing of vyre is left.
  if (options.verify) {
    pm.addPass(
        createVerifyGPUStreamsPass(options.getVerifyGPUStreamsPassOptions()));
    pm.addPass(createConvertVyreToGPUPass());
  }
}

void vyre::registerVyreToGPUPipeline() {
  PassPipelineRegistration<VyreToGPUPipelineOptions>(
      "vyre-to-gpu-pipeline",
      "Mark arguments llvm.noalias from the calls (--vyre-deduce-noalias), "
      "version functions whose arguments may still alias "
      "(--vyre-version-aliasing), "
      "summarize kernels (--vyre-kernel-access), estimate their times "
      "(--vyre-estimate-kernel-costs) and summarize host functions "
      "(--vyre-function-effects), pipeline loops "
      "(--vyre-pipeline-loops), schedule host-to-device "
      "copies (--overlap-copies) and lower vyre to the gpu dialect "
      "(--convert-vyre-to-gpu), keeping the versions that pay "
      "(--vyre-choose-versions, before the lowering), then canonicalize and "
      "cse",
      buildVyreToGPUPipeline);
}
