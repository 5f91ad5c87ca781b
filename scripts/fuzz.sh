#!/usr/bin/env bash
# Fuzzes vyre with libFuzzer (ASan, and coverage-guided): builds the fuzz
# targets with clang into build-fuzz (scripts/install-deps.sh --fuzz installs
# clang-22 and libfuzzer-22-dev), seeds a corpus with every lit input split at
# '// -----' and with generated programs, then runs each target.
#
# Usage: scripts/fuzz.sh SECONDS_PER_TARGET [WORK_DIR]
#   The corpus, new inputs and crashes stay in WORK_DIR (default build-fuzz/work).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
work=${2:-$root/build-fuzz/work}
build=$root/build-fuzz

"$root/scripts/install-deps.sh" --fuzz
if [[ ! -f $build/build.ninja ]]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit -DLLVM_USE_LINKER=lld \
    -DLLVM_USE_SANITIZER=Address -DLLVM_USE_SANITIZE_COVERAGE=ON \
    -DVYRE_ENABLE_FUZZERS=ON > /dev/null
fi
cmake --build "$build" --target vyre-fuzz-mlir vyre-fuzz-structured \
  vyre-schedule-fuzz > /dev/null

mkdir -p "$work/seeds-mlir" "$work/corpus-mlir" "$work/corpus-structured" \
  "$work/crashes"
# Seeds: the lit inputs, one file per split, and generated programs.
python3 - "$root/test" "$work/seeds-mlir" <<'PY'
import pathlib, sys
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
count = 0
for path in sorted(root.rglob("*.mlir")):
    for part in path.read_text().split("// -----"):
        (out / ("lit-%04d.mlir" % count)).write_text(part)
        count += 1
PY
for seed in $(seq 1 50); do
  "$build/bin/vyre-schedule-fuzz" --print "$seed" > "$work/seeds-mlir/generated-$seed.mlir"
done
head -c 64 /dev/urandom > "$work/corpus-structured/random-seed"

export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allow_user_poisoning=0:use_sigaltstack=0
for target in mlir structured; do
  seeds= dict=
  [[ $target == mlir ]] && seeds=$work/seeds-mlir &&
    dict=-dict=$root/tools/vyre-fuzz/mlir.dict
  echo "=== vyre-fuzz-$target for ${seconds}s"
  "$build/bin/vyre-fuzz-$target" "$work/corpus-$target" $seeds \
    -max_total_time="$seconds" -max_len=8192 -timeout=20 $dict \
    -artifact_prefix="$work/crashes/$target-" -print_final_stats=1 2>&1 |
    grep -a -E "^#[0-9]+.*(DONE|pulse)|stat::|ERROR|SUMMARY|vyre-fuzz:" | tail -12
done
echo "fuzz: no crash, no race"
