#!/usr/bin/env python3
"""Checks that planning copies, and the cost model, do work that grows at
most as n log n in the ops of the program, from SMALL to LARGE ops, on every
shape of bench/overlap_copies/generate.py. The work is counted in elementary
steps by --test-vyre-plan-work, never timed.

The bound allows 25% over the ratio of n log n, as the cost model's
decisions, and so how many copies stay moved and are weighed again, vary a
little with the size: from 1,000 to 16,000 ops n log n grows about 22x, n
log^2 n about 31x, and n^1.5 64x. The cost model weighs a function's plan
in at most a constant number of sweeps (4), and stops early when one
leaves no copy in place, so a small program may take one sweep where a
large one takes four: its work is compared per sweep, and the number of
sweeps is checked against its bound.

Usage: check-work-growth.py GENERATE_PY VYRE_OPT [SMALL LARGE]
Prints one line per shape; exits 1 if any grows faster than n log n.
"""

import math
import re
import subprocess
import sys
import tempfile

SLACK = 1.25
SHAPES = ["weights", "copies-first", "one-buffer", "many-functions",
          "deep-nesting", "host-slices"]
MAX_SWEEPS = 4
MAX_PLANS = 2
MAX_REVISIONS = 1
REMARK = re.compile(r"(\d+) ops: planned (\d+) times, revised (\d+) times, "
                    r"in (\d+) steps; "
                    r"weighed (\d+) copies in (\d+) steps over (\d+) sweeps")


def measure(generate, vyre_opt, shape, ops):
    args = [sys.executable, generate, str(ops)]
    if shape != "weights":
        args += ["--shape", shape]
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as program:
        subprocess.run(args, stdout=program, check=True)
        program.flush()
        run = subprocess.run([vyre_opt, program.name, "--vyre-kernel-access",
                              "--test-vyre-plan-work", "-o", "/dev/null"],
                             capture_output=True, text=True, check=True)
    total = [0, 0, 0]
    for match in REMARK.finditer(run.stderr):
        plans, revisions = int(match.group(2)), int(match.group(3))
        sweeps = int(match.group(7))
        if (plans > MAX_PLANS or revisions > MAX_REVISIONS or
                sweeps > MAX_SWEEPS):
            sys.exit(f"{shape}: a function planned {plans} times, revised "
                     f"{revisions} times, weighed in {sweeps} sweeps (at "
                     f"most {MAX_PLANS}, {MAX_REVISIONS} and {MAX_SWEEPS})")
        total[0] += int(match.group(1))
        total[1] += int(match.group(4))
        total[2] += int(match.group(6)) / max(sweeps, 1)
    if total[0] == 0:
        sys.exit(f"{shape}: no remark from --test-vyre-plan-work")
    return total


def main():
    generate, vyre_opt = sys.argv[1], sys.argv[2]
    small = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    large = int(sys.argv[4]) if len(sys.argv) > 4 else 16000
    failed = False
    for shape in SHAPES:
        ops1, plan1, cost1 = measure(generate, vyre_opt, shape, small)
        ops2, plan2, cost2 = measure(generate, vyre_opt, shape, large)
        bound = SLACK * (ops2 * math.log2(ops2)) / (ops1 * math.log2(ops1))
        plan = plan2 / plan1
        cost = cost2 / max(cost1, 1)
        ok = plan <= bound and cost <= bound
        failed |= not ok
        print(f"{shape}: {ops1} -> {ops2} ops, planning x{plan:.1f}, "
              f"cost model x{cost:.1f}, bound x{bound:.1f}: "
              f"{'within n log n' if ok else 'GROWS FASTER THAN n log n'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
