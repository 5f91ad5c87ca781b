#!/usr/bin/env bash
# Schedule benchmark: simulates every example and every workload (under
# bench/workloads and bench/gpu/workloads) four ways and prints the makespans side by side with the lower bound:
#   serial    the program as written (one stream)
#   runtime   the vyre runtime's policy: in place, next kernel only
#   coarse    a coarse policy (XLA's copy-start): in place, after all
#             earlier main-stream work
#   overlap   --vyre-pipeline-loops --overlap-copies (the default pipeline)
#   all-moved the same with cost-model=false for both passes, as the
#             pipeline's cost-model=false: every copy moved, every fill of a
#             loop issued iterations ahead
# Each schedule is checked by --vyre-verify-schedule before it is simulated.
# The bound (docs/Simulation.md: the longest dependency path, or the busiest
# kind of engine with its fill and drain, plus the host's time in which the
# device idles) takes the path and the engines of the program after
# --vyre-pipeline-loops (sequential),
# so that it counts the rotating buffers the pass may add: with one buffer
# reused every iteration, the input program's longest dependency path
# chains every copy behind the kernel before it. It takes the device's idle
# time of the program as written: its own frees, not those of the buffers
# the pass adds (which the overlapped program pays).
# Usage: bench/schedule/run.sh [BUILD_DIR] [-- SIMULATE OPTIONS]
#   e.g. bench/schedule/run.sh build -- "launch-us=0 event-us=0 host-sync-us=0 alloc-free-us=0"
#   simulates every schedule (and the bound) without the runtime's overheads.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
simulate=(--vyre-simulate)
if [[ ${2:-} == "--" ]]; then
  simulate=("--vyre-simulate=${3:-}")
fi
opt="$build/bin/vyre-opt"
peers="$build/bin/vyre-bench-peers"

makespan() { grep -o 'makespan [0-9.]*' | awk '{print $2}'; }
# max(longest path, engine with fill and drain) of one remark.
device_bound() {
  sed -n 's/.*longest path \([0-9.]*\) us, engine with fill and drain \([0-9.]*\) us.*/\1 \2/p' |
    awk '{print ($1 > $2 ? $1 : $2)}'
}
idle() { grep -o 'device idle for the host [0-9.]*' | awk '{print $6}'; }

echo "# $0 $* (${simulate[*]}; otherwise its defaults: 1 compute engine, 1 copy engine"
echo "# per direction, 55 GB/s, 2 us per copy; runtime overheads: 0.85 us per launch"
echo "# or memcpy, 1.7 us per join dependency and per host synchronization, 21.5 us"
echo "# per buffer, pooled streams; makespan in us, ratio to the bound; bound: the"
echo "# pipelined program's path or engines, plus the device's idle time for the host"
echo "# in the program as written: its first launch, frees and return)"
printf "%-26s %9s %9s %9s %9s %9s %9s %6s %6s %6s %6s\n" workload serial \
  runtime coarse overlap all-moved bound "ser/b" "run/b" "coa/b" "ovl/b"
for workload in "$root"/examples/*.mlir "$root"/bench/workloads/*.mlir \
                "$root"/bench/gpu/workloads/*.mlir; do
  name=$(basename "$workload" .mlir)
  [[ $workload == */gpu/workloads/* ]] && name=gpu/$name
  serial=$("$opt" "$workload" --vyre-kernel-access --vyre-verify-schedule "${simulate[@]}" -o /dev/null 2>&1)
  runtime=$("$peers" --policy=runtime "$workload" |
            "$opt" --vyre-kernel-access --vyre-verify-schedule "${simulate[@]}" -o /dev/null 2>&1)
  coarse=$("$peers" --policy=coarse "$workload" |
           "$opt" --vyre-kernel-access --vyre-verify-schedule "${simulate[@]}" -o /dev/null 2>&1)
  overlap=$("$opt" "$workload" --vyre-kernel-access --vyre-pipeline-loops --overlap-copies \
            --vyre-verify-schedule "${simulate[@]}" -o /dev/null 2>&1)
  moved=$("$opt" "$workload" --vyre-kernel-access --vyre-pipeline-loops=cost-model=false \
          --overlap-copies=cost-model=false --vyre-verify-schedule "${simulate[@]}" \
          -o /dev/null 2>&1)
  pipelined=$("$opt" "$workload" --vyre-kernel-access --vyre-pipeline-loops "${simulate[@]}" -o /dev/null 2>&1)
  b=$(awk -v d="$(device_bound <<<"$pipelined")" -v i="$(idle <<<"$serial")" \
      'BEGIN {printf "%.2f", d + i}')
  python3 - "$name" "$(makespan <<<"$serial")" "$(makespan <<<"$runtime")" \
    "$(makespan <<<"$coarse")" "$(makespan <<<"$overlap")" \
    "$(makespan <<<"$moved")" "$b" <<'PY'
import sys
name, *values = sys.argv[1:]
s, r, c, o, m, b = map(float, values)
print("%-26s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %6.2f %6.2f %6.2f %6.2f" % (
    name, s, r, c, o, m, b, s / b, r / b, c / b, o / b))
PY
done
