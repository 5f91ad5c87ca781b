#!/usr/bin/env bash
# Installs the build into a temporary prefix, runs the installed vyre-opt on
# an example, then configures, builds and runs test/Install/downstream against
# the prefix with find_package(Vyre).
# Usage: check-downstream.sh SOURCE_DIR BUILD_DIR MLIR_DIR
set -euo pipefail
source_dir=$1 build_dir=$2 mlir_dir=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
# The installed tool starts, and runs the whole pipeline with both referees.
"$work/prefix/bin/vyre-opt" "$source_dir/examples/weight_streaming.mlir" \
  --vyre-to-gpu-pipeline="verify=true" > "$work/pipeline.mlir"
grep -q "gpu.launch_func async" "$work/pipeline.mlir"
cmake -G Ninja -S "$source_dir/test/Install/downstream" -B "$work/build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DVyre_DIR="$work/prefix/lib/cmake/vyre" -DMLIR_DIR="$mlir_dir" \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/build/downstream"
