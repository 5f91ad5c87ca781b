#!/usr/bin/env python3
"""vyre's drop-in beside upstream's --gpu-async-region on host programs in
the upstream gpu dialect, as MLIR's GPU paths emit them.

For each program it prints, for vyre (--vyre-gpu-async-pipeline) and for
upstream (--gpu-kernel-outlining, --gpu-async-region):
  - creates / syncs: call sites of mgpuStreamCreate and of host
    synchronizations (mgpuStreamSynchronize, mgpuEventSynchronize) in the
    function's LLVM dialect after upstream's --gpu-lower-to-nvvm-pipeline
    (scripts/count-host-work.py);
  - run creates / run syncs: the calls of a run on vyre's host runtime
    (scripts/build-executable.sh --runtime host; the driver's --profile
    counts, RuntimeStats.h): the stream creates asked for (streams_created +
    streams_reused) and the host synchronizations, in the second call of
    FUNCTION (the first fills the pools); "-" where the build
    fails (upstream leaves an unrealized_conversion_cast for a copy of a
    strided view, which does not translate);
  - moved: copies vyre runs on a side stream (upstream: none);
  - makespan: --vyre-simulate of the vyre schedule (the drop-in's passes up
    to --overlap-copies) and of upstream's, in vyre terms (every copy in
    place, asynchronous on the main stream, the host waiting where
    --gpu-async-region makes it wait: --vyre-async-in-place
    with wait-before-any-effect; a free per buffer, as upstream's lowering
    makes them: group-allocations=false), for FUNCTION, in us.

Usage: bench/real_ir/compare.py [BUILD_DIR] [PROGRAM.mlir:FUNCTION ...]
(default: the programs under test/Conversion/GPUHostToVyre/Inputs).
"""

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LLVM = "/usr/lib/llvm-22/bin"
INPUTS = os.path.join(ROOT, "test/Conversion/GPUHostToVyre/Inputs")
# Program, the function a run calls (`run`: one without arguments, which
# allocates its buffers), and the function the makespan and the call sites
# are of (the function `run` calls, or its copy with arguments marked
# llvm.noalias).
DEFAULT = [
    ("cuda-two-kernels.mlir", "run", "run"),
    ("sparse-spmv.mlir", "run", "spmv_noalias"),
    ("training-loss-loop.mlir", "train", "train"),
    ("upstream-layers.mlir", "layers", "layers"),
    ("all-reduce.mlir", "run", "row_sums_noalias"),
    ("upstream-batches-call.mlir", "run", "compute_noalias"),
    ("linalg-batches-call.mlir", "run", "compute_noalias"),
]
LINALG_TO_GPU = [
    "--convert-linalg-to-parallel-loops",
    "--scf-parallel-loop-tiling=parallel-loop-tile-sizes=256",
    "--gpu-map-parallel-loops", "--convert-parallel-loops-to-gpu"]
SCHEDULE = ("builtin.module(gpu-kernel-outlining,"
            "func.func(convert-gpu-host-to-vyre),vyre-deduce-noalias,"
            "vyre-version-aliasing,"
            "vyre-kernel-access,vyre-estimate-kernel-costs,"
            "vyre-function-effects,"
            "func.func(vyre-pipeline-loops,overlap-copies),"
            "vyre-choose-versions,vyre-simulate)")
UPSTREAM_SCHEDULE = (
    "builtin.module(gpu-kernel-outlining,func.func(convert-gpu-host-to-vyre),"
    "vyre-kernel-access,vyre-estimate-kernel-costs,vyre-function-effects,"
    "func.func(vyre-async-in-place{wait-before-any-effect}),vyre-simulate)")
# Upstream's lowering frees each buffer: vyre's allocates the buffers freed
# together as one (docs/Lowering.md), which the simulator counts by default.
UPSTREAM_SIMULATE = "--vyre-simulate=group-allocations=false"


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


def lower(opt_args, source, work, name):
    """The gpu dialect from `opt_args` on `source`, then the LLVM dialect."""
    gpu = os.path.join(work, name + ".gpu.mlir")
    llvm = os.path.join(work, name + ".llvm.mlir")
    result = run(opt_args + [source, "-o", gpu])
    if result.returncode != 0:
        sys.exit(result.stderr)
    result = run([os.path.join(LLVM, "mlir-opt"), gpu,
                  "--gpu-lower-to-nvvm-pipeline=cubin-format=isa",
                  "-o", llvm])
    if result.returncode != 0:
        sys.exit(result.stderr)
    return gpu, llvm


def static_counts(llvm, function):
    out = run([sys.executable, os.path.join(ROOT, "scripts/count-host-work.py"),
               llvm + ":" + function]).stdout
    creates, syncs = map(int, re.findall(r"\d+", out))
    return creates, syncs


def runtime_counts(build, source, mode, function, work):
    exe = os.path.join(work, "prog-" + mode)
    result = run([os.path.join(ROOT, "scripts/build-executable.sh"), source,
                  exe, "--" + mode, "--runtime", "host", "--build-dir", build])
    if result.returncode != 0:
        return None
    args = ["--function", function]
    if function != "run":
        args = run([sys.executable,
                    os.path.join(ROOT, "scripts/run-signature.py"),
                    source]).stdout.split()
    result = run([exe] + args + ["--repeat", "1", "--profile"])
    stats = dict(re.findall(r"later_calls_(\w+) (\d+)", result.stdout))
    if not stats:
        return None
    creates = int(stats["streams_created"]) + int(stats["streams_reused"])
    return creates, int(stats["host_synchronizations"])


def makespan(opt, pipeline, source, function, simulate="--vyre-simulate"):
    """The simulated makespan of `function`. The schedule is printed without
    locations first, so that each function's remark is at its own line, the
    function's first, which the remark is followed by."""
    scheduled = run([opt, source, "--pass-pipeline=" +
                     pipeline.replace(",vyre-simulate", "")])
    result = run([opt, "-", simulate, "-o", os.devnull],
                 input=scheduled.stdout)
    for match in re.finditer(r"remark: makespan ([0-9.]+) us[^\n]*\n"
                             r"\s*func\.func (?:private )?@(\w+)",
                             result.stderr):
        if match.group(2) == function:
            return float(match.group(1))
    return None


def schedule_of(schedule_text, function):
    """The text of `function` in a printed module."""
    start = re.search(r"func\.func (?:private )?@%s\(" % function,
                      schedule_text)
    if not start:
        return ""
    end = re.search(r"\n  func\.func ", schedule_text[start.end():])
    return schedule_text[start.start():start.end() +
                         (end.start() if end else len(schedule_text))]


def moved_copies(gpu_schedule_text):
    return len(re.findall(r"copy_(h2d|d2h)_async [^\n]* on stream [1-9]",
                          gpu_schedule_text))


def main(argv):
    build = argv[1] if len(argv) > 1 else os.path.join(ROOT, "build")
    opt = os.path.join(build, "bin/vyre-opt")
    programs = DEFAULT
    print("# %s (static: call sites in the LLVM dialect; run: one call on "
          "the host runtime; makespan: --vyre-simulate defaults, us)"
          % " ".join(argv))
    print("| program | creates vyre / upstream | syncs vyre / upstream "
          "| run creates vyre / upstream | run syncs vyre / upstream "
          "| moved | makespan vyre / upstream |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as work:
        for name, function, simulated in programs:
            source = os.path.join(INPUTS, name)
            if name.startswith("linalg"):
                prepared = os.path.join(work, name)
                result = run([os.path.join(LLVM, "mlir-opt"), source] +
                             LINALG_TO_GPU + ["-o", prepared])
                if result.returncode != 0:
                    sys.exit(result.stderr)
                source = prepared
            vgpu, vllvm = lower([opt, "--vyre-gpu-async-pipeline"], source,
                                work, "vyre")
            ugpu, ullvm = lower(
                [os.path.join(LLVM, "mlir-opt"),
                 "--pass-pipeline=builtin.module(gpu-kernel-outlining,"
                 "func.func(gpu-async-region))"], source, work, "upstream")
            original = simulated.replace("_noalias", "")
            us = static_counts(ullvm, original)
            ur = runtime_counts(build, source, "upstream", function, work)
            um = makespan(opt, UPSTREAM_SCHEDULE, source, original,
                          UPSTREAM_SIMULATE)
            vr = runtime_counts(build, source, "drop-in", function, work)
            schedule = run([opt, source, "--pass-pipeline=" +
                            SCHEDULE.replace(",vyre-simulate", "")]).stdout
            # A function versioned for aliasing (--vyre-version-aliasing):
            # a row per version; a run with distinct buffers takes the
            # first.
            versions = [(simulated, name)]
            if re.search(r"func\.func private @%s_disjoint\(" % simulated,
                         schedule):
                versions = [(simulated + "_disjoint", name + " (disjoint)"),
                            (simulated + "_may_alias",
                             name + " (may alias)")]
            show = lambda pair, i: "-" if pair is None else str(pair[i])
            for version, label in versions:
                vs = static_counts(vllvm, version)
                vm = makespan(opt, SCHEDULE, source, version)
                run_counts = vr if version == versions[0][0] else None
                print("| %s | %d / %d | %d / %d | %s / %s | %s / %s | %d | "
                      "%s / %s |" % (
                          label, vs[0], us[0], vs[1], us[1],
                          show(run_counts, 0), show(ur, 0),
                          show(run_counts, 1), show(ur, 1),
                          moved_copies(schedule_of(schedule, version)),
                          "-" if vm is None else "%.1f" % vm,
                          "-" if um is None else "%.1f" % um))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
