#!/usr/bin/env python3
"""Counts the host work a lowered program asks of the runtime: the calls that
create a stream (mgpuStreamCreate) and those that make the host wait for the
device (mgpuStreamSynchronize, mgpuEventSynchronize), in the LLVM dialect
that upstream's --gpu-lower-to-nvvm-pipeline makes of host code. The counts
are of call sites in the code, not of calls at run time (a call site in a
loop counts once; VYRE_RUNTIME_STATS counts the calls).

Usage: count-host-work.py LOWERED.mlir[:FUNCTION] [--at-most OTHER.mlir[:FUNCTION]]
  prints "stream_creates N host_syncs M" (of FUNCTION only, if given); with
  --at-most, also OTHER's counts, and exits 1 if LOWERED has more of either
  than OTHER.
"""

import re
import sys

CREATE = re.compile(r"llvm\.call @mgpuStreamCreate\(")
SYNC = re.compile(r"llvm\.call @mgpu(Stream|Event)Synchronize\(")


FUNCTION = re.compile(r"^\s*(?:llvm|func)\.func (?:\w+ )*@(\w+)\(", re.M)


def count(spec):
    path, _, function = spec.partition(":")
    text = open(path).read()
    if function:
        # The text from the function's start to the next function's.
        starts = [(m.start(), m.group(1)) for m in FUNCTION.finditer(text)]
        bodies = [text[start:(starts[i + 1][0] if i + 1 < len(starts) else
                              len(text))]
                  for i, (start, name) in enumerate(starts)
                  if name == function]
        if not bodies:
            sys.exit("count-host-work.py: no function @%s in %s" %
                     (function, path))
        text = bodies[0]
    return len(CREATE.findall(text)), len(SYNC.findall(text))


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--at-most"):
        sys.exit(__doc__.strip())
    creates, syncs = count(argv[1])
    print("stream_creates %d host_syncs %d" % (creates, syncs))
    if len(argv) == 2:
        return 0
    other_creates, other_syncs = count(argv[3])
    print("at most: stream_creates %d host_syncs %d" % (other_creates,
                                                       other_syncs))
    if creates > other_creates or syncs > other_syncs:
        print("count-host-work.py: %s has more host work than %s" %
              (argv[1], argv[3]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
