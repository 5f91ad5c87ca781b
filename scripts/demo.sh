#!/usr/bin/env bash
# Runs vyre-opt --overlap-copies on every example and prints the overlapped IR,
# with the pass's remarks. Usage: demo.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
for example in examples/*.mlir; do
  echo "=== vyre-opt $example --vyre-kernel-access --overlap-copies --remarks-filter=overlap-copies"
  "$build/bin/vyre-opt" "$example" --vyre-kernel-access --overlap-copies \
    --remarks-filter=overlap-copies 2>&1
done
