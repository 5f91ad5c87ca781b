#!/usr/bin/env bash
# Compile-time benchmark of --overlap-copies: a generated function of N ops
# (weight streaming: copies, dispatches, D2H copies) at N = 10k, 100k, 1M,
# side by side with upstream's --gpu-async-region on the same program written
# in the upstream gpu dialect (the same op count and mix, generate.py --gpu),
# in the same run.
# Prints, best of 3: the time to parse, run the pass and print vyre's file,
# pass/parse, upstream's pass time and vyre's pass time over it, and the peak
# memory of each whole process (/usr/bin/time) and their ratio; then how
# vyre's pass time scales from 100k to 1M.
# Usage: bench/overlap_copies/run.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
mlir_opt=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

min() { python3 -c "import sys; print(min(float(x) for x in sys.argv[1:]))" "$@"; }

echo "# $0 $build"
echo "# vyre-opt FILE --vyre-kernel-access --overlap-copies --mlir-timing against"
echo "# $mlir_opt FILE.gpu --gpu-async-region --mlir-timing (wall seconds and peak MiB, best of 3)"
printf "%9s %9s %9s %9s %10s %12s %12s %10s %10s %9s\n" "ops" "parse s" \
  "pass s" "print s" "pass/parse" "upstream s" "pass/upstr" "vyre MiB" \
  "upstr MiB" "mem ratio"
declare -A pass_time
for n in 10000 100000 1000000; do
  python3 "$here/generate.py" "$n" > "$work/input.mlir"
  python3 "$here/generate.py" "$n" --gpu > "$work/input.gpu.mlir"
  parses=() passes=() prints=() upstreams=() vyre_mem=() upstream_mem=()
  for _ in 1 2 3; do
    /usr/bin/time -f %M -o "$work/mem" "$build/bin/vyre-opt" \
      "$work/input.mlir" --vyre-kernel-access --overlap-copies --mlir-timing -o /dev/null \
      2> "$work/report"
    parses+=("$(awk '$NF == "Parser" {print $1}' "$work/report")")
    passes+=("$(awk '$NF == "OverlapCopiesPass" || $NF == "KernelAccessPass" {sum += $1} END {print sum}' "$work/report")")
    prints+=("$(awk '$NF == "Output" {print $1}' "$work/report")")
    vyre_mem+=("$(tail -1 "$work/mem")")
    /usr/bin/time -f %M -o "$work/mem" "$mlir_opt" "$work/input.gpu.mlir" \
      --gpu-async-region --mlir-timing -o /dev/null 2> "$work/report"
    upstreams+=("$(awk '$NF == "GpuAsyncRegionPass" {print $1}' "$work/report")")
    upstream_mem+=("$(tail -1 "$work/mem")")
  done
  parse=$(min "${parses[@]}") pass=$(min "${passes[@]}")
  print=$(min "${prints[@]}") upstream=$(min "${upstreams[@]}")
  vmem=$(min "${vyre_mem[@]}") umem=$(min "${upstream_mem[@]}")
  pass_time[$n]=$pass
  printf "%9d %9.4f %9.4f %9.4f %10.2f %12.4f %12.2f %10.1f %10.1f %9.2f\n" \
    "$n" "$parse" "$pass" "$print" "$(python3 -c "print($pass / $parse)")" \
    "$upstream" "$(python3 -c "print($pass / $upstream)")" \
    "$(python3 -c "print($vmem / 1024)")" "$(python3 -c "print($umem / 1024)")" \
    "$(python3 -c "print($vmem / $umem)")"
done
printf "pass time 1M / 100k: %.2f (linear is 10)\n" \
  "$(python3 -c "print(${pass_time[1000000]} / ${pass_time[100000]})")"
