#!/usr/bin/env bash
# GPU benchmark: builds every example and GPU workload twice, serial (no
# --overlap-copies: one stream) and overlapped (--vyre-to-gpu-pipeline), runs
# both, checks that every buffer ends bitwise equal, and prints serial time,
# overlapped time, the bound max(sum of copies, sum of kernels) measured with
# CUDA events in the serial run, and the speedup.
#
# Usage:
#   bench/gpu/run.sh                   build and run (toolchain and GPU here)
#   bench/gpu/run.sh --build-only DIR  build into DIR (relocatable)
#   bench/gpu/run.sh --run-only DIR    run what --build-only built
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
mode=all dir=
case ${1:-} in
  --build-only) mode=build; dir=$2 ;;
  --run-only) mode=run; dir=$2 ;;
  "") dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT ;;
  *) echo "usage: $0 [--build-only DIR | --run-only DIR]" >&2; exit 2 ;;
esac

programs=("$root"/examples/*.mlir "$root"/bench/gpu/workloads/*.mlir)

if [[ $mode != run ]]; then
  mkdir -p "$dir"
  cp "$build/lib/libvyre_cuda_runtime.so" "$dir/"
  for program in "${programs[@]}"; do
    name=$(basename "$program" .mlir)
    dest=$dir/$(basename "$(dirname "$program")")-$name
    "$root/scripts/build-executable.sh" "$program" "$dest.serial" --serial \
      --build-dir "$build" --rpath '$ORIGIN'
    "$root/scripts/build-executable.sh" "$program" "$dest.overlap" \
      --build-dir "$build" --rpath '$ORIGIN'
    "$root/scripts/run-signature.py" "$program" > "$dest.args"
  done
  echo "built into $dir"
fi
[[ $mode == build ]] && exit 0

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version \
  --format=csv,noheader
echo "# $0 (best of 5 runs; bound = max(sum copies, sum kernels) from CUDA events)"
printf "%-32s %12s %12s %12s %12s %12s %8s %9s\n" program "serial us" \
  "overlap us" "copies us" "kernels us" "bound us" speedup "vs bound"
status=0
for args in "$dir"/*.args; do
  base=${args%.args}
  name=$(basename "$base")
  serial=$("$base.serial" $(cat "$args") --profile)
  overlap=$("$base.overlap" $(cat "$args"))
  field() { awk -v key="$1" '$1 == key {print $2}' <<<"$2"; }
  if [[ $(field checksum "$serial") != $(field checksum "$overlap") ]]; then
    echo "$name: results differ: serial $(field checksum "$serial"), overlapped $(field checksum "$overlap")"
    status=1
    continue
  fi
  python3 - "$name" "$(field time_us "$serial")" "$(field time_us "$overlap")" \
    "$(field copy_us "$serial")" "$(field kernel_us "$serial")" <<'PY'
import sys
name, serial, overlap, copies, kernels = sys.argv[1], *map(float, sys.argv[2:])
bound = max(copies, kernels)
print("%-32s %12.1f %12.1f %12.1f %12.1f %12.1f %7.2fx %8.2fx" % (
    name, serial, overlap, copies, kernels, bound, serial / overlap,
    overlap / bound))
PY
done
exit $status
