#!/usr/bin/env bash
# Runs vyre-opt on every example and prints the result. Usage: demo.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
for example in examples/*.mlir; do
  echo "=== vyre-opt $example"
  "$build/bin/vyre-opt" "$example"
done
