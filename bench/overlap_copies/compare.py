#!/usr/bin/env python3
"""Compile time of vyre's default pipeline beside upstream's, shape by shape.

For each shape of generate.py and each size, writes the program in vyre and in
the upstream gpu dialect, then runs, best of REPEAT (wall seconds from
--mlir-timing, peak memory from /usr/bin/time):
  vyre-opt FILE --vyre-to-gpu-pipeline --mlir-timing
  mlir-opt FILE.gpu --pass-pipeline='builtin.module(func.func(gpu-async-region),canonicalize,cse)' --mlir-timing
and prints the parse time, each pass of vyre's pipeline, the whole pipeline
(every pass, with the verification the pass manager runs after each), and
upstream's --gpu-async-region and whole pipeline; the ratios the targets are
stated in; the peak memory of each process; and how vyre's pipeline time grows
between the two largest sizes.

Usage: compare.py BUILD_DIR [--sizes 1000,10000,...] [--shapes a,b,...]
                  [--repeat N] [--mlir-opt PATH]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPES = ["weights", "copies-first", "one-buffer", "many-functions",
          "deep-nesting", "host-slices", "branchy-loop", "many-loops"]
VYRE_PASSES = ["DeduceNoAliasPass", "KernelAccessPass",
               "EstimateKernelCostsPass", "FunctionEffectsPass",
               "PipelineLoopsPass", "OverlapCopiesPass", "ConvertVyreToGPUPass",
               "Canonicalizer", "CSE"]
UPSTREAM = ("builtin.module(func.func(gpu-async-region),canonicalize,cse)")
# A time line: with several threads --mlir-timing prints user time, then wall
# time; the wall time is the last column.
LINE = re.compile(r"^\s*(?:[0-9.]+ \(\s*[0-9.]+%\)\s+)*"
                  r"([0-9.]+) \(\s*[0-9.]+%\)\s+(.*\S)\s*$")


def timed(command, work):
    """Runs `command`; returns its --mlir-timing wall times by name (the
    first of each name) and its peak memory in MiB."""
    memory = os.path.join(work, "memory")
    run = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", memory] + command,
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{run.stderr[-2000:]}")
    times = {}
    for line in run.stderr.splitlines():
        match = LINE.match(line)
        if match:
            times.setdefault(match.group(2), float(match.group(1)))
    with open(memory) as f:
        kib = int(f.read().split()[-1])
    return times, kib / 1024


def best(runs):
    """Per name, the least of the runs."""
    names = set().union(*[r[0] for r in runs])
    return ({n: min(r[0].get(n, 0.0) for r in runs) for n in names},
            min(r[1] for r in runs))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    args = parser.parse_args()
    vyre_opt = os.path.join(args.build, "bin", "vyre-opt")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"# {' '.join(sys.argv)}")
    print("# vyre: vyre-opt FILE --vyre-to-gpu-pipeline; upstream: mlir-opt "
          f"FILE.gpu --pass-pipeline='{UPSTREAM}'")
    print("# wall seconds from --mlir-timing (each pass with the verification "
          f"after it), best of {args.repeat}; peak MiB of each process")
    header = (["shape", "ops", "parse"] +
              ["noalias", "kernel-access", "estimate", "effects",
               "pipeline-loops", "overlap", "to-gpu", "canon", "cse"] +
              ["vyre total", "upstr async", "upstr total", "overlap/async",
               "total/total", "vyre MiB", "upstr MiB", "mem ratio"])
    print("| " + " | ".join(header) + " |")
    print("| --- | " + " | ".join("---:" for _ in header[1:]) + " |")
    growth = []
    with tempfile.TemporaryDirectory() as work:
        for shape in args.shapes.split(","):
            totals = {}
            for n in sizes:
                source = os.path.join(work, "input.mlir")
                gpu = os.path.join(work, "input.gpu.mlir")
                generate = [sys.executable, os.path.join(HERE, "generate.py"),
                            str(n)]
                if shape != "weights":
                    generate += ["--shape", shape]
                with open(source, "w") as f:
                    subprocess.run(generate, stdout=f, check=True)
                with open(gpu, "w") as f:
                    subprocess.run(generate + ["--gpu"], stdout=f, check=True)
                vyre, vmem = best([timed(
                    [vyre_opt, source, "--vyre-to-gpu-pipeline",
                     "--mlir-timing", "-o", "/dev/null"], work)
                    for _ in range(args.repeat)])
                upstream, umem = best([timed(
                    [args.mlir_opt, gpu, f"--pass-pipeline={UPSTREAM}",
                     "--mlir-timing", "-o", "/dev/null"], work)
                    for _ in range(args.repeat)])
                passes = [vyre.get(p, 0.0) for p in VYRE_PASSES]
                total = sum(passes)
                async_region = upstream.get("GpuAsyncRegionPass", 0.0)
                upstream_total = (async_region +
                                  upstream.get("Canonicalizer", 0.0) +
                                  upstream.get("CSE", 0.0))
                totals[n] = total
                row = ([shape, f"{n:,}", f"{vyre.get('Parser', 0.0):.4f}"] +
                       [f"{p:.4f}" for p in passes] +
                       [f"{total:.4f}", f"{async_region:.4f}",
                        f"{upstream_total:.4f}",
                        f"{vyre.get('OverlapCopiesPass', 0.0) / max(async_region, 1e-9):.2f}",
                        f"{total / max(upstream_total, 1e-9):.2f}",
                        f"{vmem:.0f}", f"{umem:.0f}", f"{vmem / umem:.2f}"])
                print("| " + " | ".join(row) + " |", flush=True)
            if len(sizes) >= 2:
                a, b = sizes[-2], sizes[-1]
                growth.append(f"{shape}: vyre's pipeline x"
                              f"{totals[b] / max(totals[a], 1e-9):.2f} from "
                              f"{a:,} to {b:,} ops (linear is x{b / a:.0f})")
    for line in growth:
        print(line)


if __name__ == "__main__":
    main()
