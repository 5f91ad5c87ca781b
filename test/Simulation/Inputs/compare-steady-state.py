#!/usr/bin/env python3
"""Simulates programs with and without the steady state (--vyre-simulate
and --vyre-simulate=steady-state=false) and checks that every figure of the
makespan remark agrees but for rounding: the last digit the remark prints
(0.1 us), or one part in 10^10 of a figure that running every iteration
adds up from many rounded sums.

Usage: compare-steady-state.py VYRE_OPT VYRE_SCHEDULE_FUZZ SEEDS FILE...
The programs: the schedule fuzzer's first SEEDS programs, with 4 and 37
iterations for their loops of unknown trip count, each as written and
after --vyre-pipeline-loops --overlap-copies; and each FILE as written.
"""

import re
import subprocess
import sys
import tempfile

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
ADDED = re.compile(r"; \d+ loop iterations added from their steady state")


def remarks(vyre_opt, path, passes, options):
    run = subprocess.run(
        [vyre_opt, path, "--vyre-kernel-access", "--vyre-function-effects"]
        + passes + ["--vyre-simulate=" + options, "-o", "/dev/null"],
        capture_output=True, text=True)
    return [line[line.index("makespan"):] for line in run.stderr.splitlines()
            if "remark: makespan" in line]


def agree(steady, every):
    if len(steady) != len(every):
        return False
    for lhs, rhs in zip(steady, every):
        lhs = ADDED.sub("", lhs)
        if NUMBER.sub("#", lhs) != NUMBER.sub("#", rhs):
            return False
        for a, b in zip(NUMBER.findall(lhs), NUMBER.findall(rhs)):
            if abs(float(a) - float(b)) > 0.11 + 1e-10 * abs(float(b)):
                return False
    return True


def main():
    vyre_opt, fuzz, seeds, files = (sys.argv[1], sys.argv[2],
                                    int(sys.argv[3]), sys.argv[4:])
    cases = []
    with tempfile.TemporaryDirectory() as directory:
        for seed in range(1, seeds + 1):
            path = f"{directory}/seed{seed}.mlir"
            with open(path, "w") as out:
                subprocess.run([fuzz, "--print", str(seed)], stdout=out,
                               check=True)
            for trips in (4, 37):
                for passes in ([], ["--vyre-pipeline-loops",
                                    "--overlap-copies"]):
                    cases.append((f"seed {seed}, {trips} trips, {passes}",
                                  path, passes, f"default-trip-count={trips}"))
        for path in files:
            cases.append((path, path, [], ""))
        compared = extrapolated = 0
        failed = []
        for name, path, passes, options in cases:
            steady = remarks(vyre_opt, path, passes, options)
            every = remarks(vyre_opt, path, passes,
                            (options + " steady-state=false").strip())
            compared += len(every)
            extrapolated += sum(1 for line in steady if ADDED.search(line))
            if not agree(steady, every):
                failed.append(name)
                print(f"differs: {name}\n  {steady}\n  {every}")
    print(f"{compared} functions, {extrapolated} extrapolated, "
          f"{len(failed)} differ")
    return 1 if failed or extrapolated == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
