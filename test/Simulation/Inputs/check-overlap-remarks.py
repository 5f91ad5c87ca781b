#!/usr/bin/env python3
"""Checks the remarks of --overlap-copies that say a copy overlaps no kernel
against the simulator's trace: no run of such a copy may be beside a kernel
on the device.

A copy's remarks and its trace events are matched by source location. A
pipelined copy stands for several (before the loop, in its body), which
share the loop copy's location: a location is checked only where every
remark at it says the copy overlaps no kernel.

Usage: check-overlap-remarks.py VYRE_OPT VYRE_SCHEDULE_FUZZ SEEDS FILE...
The programs: the schedule fuzzer's first SEEDS programs, and each FILE;
each through --vyre-pipeline-loops --overlap-copies with the cost model and
without it (every copy moved). Loops are simulated iteration by iteration
(steady-state=false), so that the trace holds every run of every copy.
"""

import json
import re
import subprocess
import sys
import tempfile

REMARK = re.compile(r'^(\S+:\d+:\d+): remark: .*Remark="copy (?:into|from) '
                    r'slot \d+ (overlaps no kernel|may overlap)')


def check(vyre_opt, path, overlap_options, trace):
    run = subprocess.run(
        [vyre_opt, path, "--vyre-kernel-access", "--vyre-function-effects",
         "--vyre-pipeline-loops", "--overlap-copies" + overlap_options,
         "--remarks-filter=overlap-copies",
         f"--vyre-simulate=steady-state=false trace={trace}",
         "-o", "/dev/null"], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{path}: vyre-opt failed:\n{run.stderr}")
    said = {}
    for line in run.stderr.splitlines():
        match = REMARK.match(line)
        if match:
            said.setdefault(match.group(1), set()).add(match.group(2))
    claims = {loc for loc, kinds in said.items()
              if kinds == {"overlaps no kernel"}}
    with open(trace) as file:
        events = json.load(file)["traceEvents"]
    engines = {event["pid"] for event in events
               if event.get("name") == "process_name"
               and event["args"]["name"].endswith(" engines")}
    runs = [event for event in events
            if event.get("ph") == "X" and event["pid"] in engines]
    kernels = [event for event in runs if event["name"] == "vyre.dispatch"]
    checked, wrong = 0, []
    for copy in runs:
        location = copy["args"].get("location", "").split(" ")[0]
        if "copy" not in copy["name"] or location not in claims:
            continue
        checked += 1
        end = copy["ts"] + copy["dur"]
        for kernel in kernels:
            if kernel["pid"] != copy["pid"]:
                continue
            beside = min(end, kernel["ts"] + kernel["dur"]) - max(
                copy["ts"], kernel["ts"])
            if beside > 1e-6:
                wrong.append(f"{location}: said to overlap no kernel, runs "
                             f"beside {kernel['args'].get('location')}")
                break
    return len(claims), checked, wrong


def main():
    vyre_opt, fuzz, seeds, files = (sys.argv[1], sys.argv[2],
                                    int(sys.argv[3]), sys.argv[4:])
    claims = checked = 0
    wrong = []
    with tempfile.TemporaryDirectory() as directory:
        paths = list(files)
        for seed in range(1, seeds + 1):
            path = f"{directory}/seed{seed}.mlir"
            with open(path, "w") as out:
                subprocess.run([fuzz, "--print", str(seed)], stdout=out,
                               check=True)
            paths.append(path)
        for path in paths:
            for options in ("", "=cost-model=false"):
                said, runs, errors = check(vyre_opt, path, options,
                                           f"{directory}/trace.json")
                claims += said
                checked += runs
                wrong += errors
    for line in wrong:
        print(line)
    print(f"{claims} copies said to overlap no kernel, {checked} runs of "
          f"them checked, {len(wrong)} beside a kernel")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
