#!/usr/bin/env bash
# GPU benchmark: builds every example and GPU workload twice, serial (no
# --overlap-copies: one stream) and overlapped (--vyre-to-gpu-pipeline), runs
# both RUNS times (3) in separate processes, checks that every buffer ends
# bitwise equal, and prints serial time, overlapped time (min..max over the
# processes: the noise), the bound max(sum of copies, sum of kernels)
# measured with CUDA events in the serial run, the speedup, and the
# overlapped build's runtime counts: host synchronizations per call, and
# driver streams and events created after the first call (0 when pooled).
# Then the first step of profile-guided costs: each serial build run once
# with --profile-out, and how many of its kernels the CUDA runtime timed
# (all of them, or the run fails).
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
runs=${RUNS:-3}
echo "# $0 ($runs processes per build, each the best of 5 calls; min..max over"
echo "# the processes; bound = max(sum copies, sum kernels) from CUDA events in"
echo "# the serial run; syncs = host synchronizations per call after the first,"
echo "# created = driver streams and events created after the first call)"
printf "%-32s %17s %17s %10s %10s %10s %8s %9s %6s %8s\n" program "serial us" \
  "overlap us" "copies us" "kernels us" "bound us" speedup "vs bound" syncs created
status=0
for args in "$dir"/*.args; do
  base=${args%.args}
  name=$(basename "$base")
  field() { awk -v key="$1" '$1 == key {print $2}' <<<"$2"; }
  serial_times=() overlap_times=()
  for ((run = 0; run < runs; ++run)); do
    serial=$("$base.serial" $(cat "$args") --profile)
    overlap=$("$base.overlap" $(cat "$args") --profile)
    if [[ $(field checksum "$serial") != $(field checksum "$overlap") ]]; then
      echo "$name: results differ: serial $(field checksum "$serial"), overlapped $(field checksum "$overlap")"
      status=1
      continue 2
    fi
    serial_times+=("$(field time_us "$serial")")
    overlap_times+=("$(field time_us "$overlap")")
  done
  python3 - "$name" "${serial_times[*]}" "${overlap_times[*]}" \
    "$(field copy_us "$serial")" "$(field kernel_us "$serial")" \
    "$(field later_calls "$overlap")" \
    "$(field later_calls_host_synchronizations "$overlap")" \
    "$(field later_calls_streams_created "$overlap")" \
    "$(field later_calls_events_created "$overlap")" <<'PY'
import sys
name, serial, overlap = sys.argv[1:4]
copies, kernels, calls, syncs, streams, events = map(float, sys.argv[4:])
serial = [float(t) for t in serial.split()]
overlap = [float(t) for t in overlap.split()]
bound = max(copies, kernels)
span = lambda ts: "%.1f..%.1f" % (min(ts), max(ts))
ratio = lambda a, b: "%.2fx" % (a / b) if b > 0 else "-"
print("%-32s %17s %17s %10.1f %10.1f %10.1f %8s %9s %6.1f %8d" % (
    name, span(serial), span(overlap), copies, kernels, bound,
    ratio(min(serial), min(overlap)), ratio(min(overlap), bound),
    syncs / calls, streams + events))
PY
done
echo "# --profile-out (the serial build, one call): kernels named and timed"
for args in "$dir"/*.args; do
  base=${args%.args}
  "$base.serial" $(cat "$args") --repeat 1 --profile-out "$base.profile.json" \
    >/dev/null
  python3 - "$(basename "$base")" "$base.profile.json" <<'PY' || status=1
import json, sys
name, path = sys.argv[1:3]
kernels = json.load(open(path))["kernels"]
timed = [k for k in kernels if "mean_us" in k]
print("%-32s %d kernels, %d timed: %s" % (name, len(kernels), len(timed),
      ", ".join("%s %.1f us" % (k["name"], k["mean_us"]) for k in timed)))
sys.exit(0 if len(timed) == len(kernels) else 1)
PY
done
exit $status
