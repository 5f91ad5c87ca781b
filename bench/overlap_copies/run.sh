#!/usr/bin/env bash
# Compile-time benchmark of vyre's default pipeline, pass by pass, side by
# side with upstream's --gpu-async-region (and gpu-async-region, canonicalize,
# cse for the whole pipeline) on the same programs written in the upstream
# gpu dialect, in the same run: the weight-streaming program of generate.py
# and its five shapes that defeat windows and indexes (compare.py says what
# is printed).
# Usage: bench/overlap_copies/run.sh [BUILD_DIR] [compare.py options]
#   e.g. run.sh build --sizes 1000,10000,100000,1000000 --repeat 3
# The default sizes stop at 100k ops: at 1M the lowering of the all-copies-
# first shape does not fit in memory yet (docs/benchmarks.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
shift || true
exec python3 "$here/compare.py" "$build" --sizes 1000,10000,100000 "$@"
