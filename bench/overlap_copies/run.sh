#!/usr/bin/env bash
# Compile-time benchmark of --overlap-copies: a generated function of N ops
# (weight streaming: copies, dispatches, D2H copies) at N = 10k, 100k, 1M.
# Prints the pass's time, the time to parse and to print the same file, the
# pass/parse ratio, and how the pass time scales from 100k to 1M.
# Usage: bench/overlap_copies/run.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# $0 $build"
echo "# vyre-opt FILE --overlap-copies --mlir-timing (wall seconds, best of 3)"
printf "%10s %10s %10s %10s %12s\n" "ops" "parse s" "pass s" "print s" "pass/parse"
declare -A pass_time
for n in 10000 100000 1000000; do
  python3 "$here/generate.py" "$n" > "$work/input.mlir"
  best_parse= best_pass= best_print=
  for _ in 1 2 3; do
    report=$("$build/bin/vyre-opt" "$work/input.mlir" --overlap-copies \
               --mlir-timing -o /dev/null 2>&1)
    parse=$(awk '$NF == "Parser" {print $1}' <<<"$report")
    pass=$(awk '$NF == "OverlapCopies" {print $1}' <<<"$report")
    print=$(awk '$NF == "Output" {print $1}' <<<"$report")
    best_parse=$(python3 -c "print(min(x for x in [$parse, ${best_parse:-1e9}]))")
    best_pass=$(python3 -c "print(min(x for x in [$pass, ${best_pass:-1e9}]))")
    best_print=$(python3 -c "print(min(x for x in [$print, ${best_print:-1e9}]))")
  done
  pass_time[$n]=$best_pass
  printf "%10d %10.4f %10.4f %10.4f %12.2f\n" "$n" "$best_parse" "$best_pass" \
    "$best_print" "$(python3 -c "print($best_pass / $best_parse)")"
done
printf "pass time 1M / 100k: %.2f (linear is 10)\n" \
  "$(python3 -c "print(${pass_time[1000000]} / ${pass_time[100000]})")"
