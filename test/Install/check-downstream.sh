#!/usr/bin/env bash
# Installs the build into a temporary prefix, runs the installed vyre-opt on
# an example, then configures, builds and runs the C++ example
# (examples/cpp, vyre-compile) against the prefix with find_package(Vyre).
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
# The installed scripts find the installed tools: build-executable.sh builds
# an example with the prefix's vyre-opt and runtime, run-signature.py gives
# its arguments, and every tool and script answers --help.
"$work/prefix/bin/build-executable.sh" "$source_dir/examples/weight_streaming.mlir" \
  "$work/ws" --runtime host > "$work/build-executable.log" 2>&1 \
  || { cat "$work/build-executable.log"; exit 1; }
"$work/ws" $("$work/prefix/bin/run-signature.py" \
  "$source_dir/examples/weight_streaming.mlir") --repeat 1 > "$work/ws.out"
grep -q "^checksum " "$work/ws.out"
"$work/ws" --help > "$work/help.txt"; grep -q -- "--repeat N" "$work/help.txt"
"$work/prefix/bin/run-signature.py" --help > "$work/help.txt"
grep -q "Usage: run-signature.py" "$work/help.txt"
"$work/prefix/bin/timeline.py" --help > "$work/help.txt"
grep -q "Usage: timeline.py" "$work/help.txt"
"$work/prefix/bin/vyre-opt" --help > "$work/help.txt"
grep -q -- "--vyre-to-gpu-pipeline" "$work/help.txt"
# The C++ example (examples/cpp): a downstream driver that registers the
# dialects and builds the pipeline with options, against the prefix.
cmake -G Ninja -S "$source_dir/examples/cpp" -B "$work/build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DVyre_DIR="$work/prefix/lib/cmake/vyre" -DMLIR_DIR="$mlir_dir" \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
compile=$work/build/vyre-compile
"$compile" "$source_dir/examples/weight_streaming.mlir" --side-streams 2 \
  --verify --timing > "$work/example.mlir" 2> "$work/example.err"
grep -q "gpu.launch_func async" "$work/example.mlir"
grep -q "Execution time report" "$work/example.err"
# No vyre op is left (vyre attributes on arguments may be).
if grep -Eq '^ *(%[^=]*= )?"?vyre\.' "$work/example.mlir"; then
  echo "check-downstream: vyre ops left in vyre-compile's output" >&2
  exit 1
fi
# Its options reach the passes: without the cost model, the example's copies
# go to a side stream, joined by events.
"$compile" "$source_dir/examples/weight_streaming.mlir" --no-cost-model \
  > "$work/moved.mlir"
grep -q "mgpuStreamWaitEvent" "$work/moved.mlir"
# Bad input is an error (exit 1), a bad command line a usage line (exit 2).
printf 'func.func @f( {' > "$work/bad.mlir"
status=0; "$compile" "$work/bad.mlir" > /dev/null 2>&1 || status=$?
test "$status" -eq 1
status=0; "$compile" > /dev/null 2>&1 || status=$?
test "$status" -eq 2
echo "check-downstream: ok"
