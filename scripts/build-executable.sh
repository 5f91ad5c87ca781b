#!/usr/bin/env bash
# Builds a vyre program into a CUDA executable, through upstream LLVM 22:
#   vyre-opt → mlir-opt --gpu-lower-to-nvvm-pipeline → mlir-translate → llc
#   → link with the vyre GPU driver, the mgpu* runtime and libcuda.
# With --runtime host it links the host runtime instead (no GPU, no CUDA
# toolkit: kernels stay PTX and are counted, not run; copies are memcpy).
# The executable (its main() is tools/vyre-gpu-driver/Driver.cpp) calls a
# function of the program: `OUTPUT --help` lists its flags (--function,
# --arg, --repeat N: the best of N timed calls after the first, 5 by default,
# --profile, ...), and run-signature.py prints the --function and --arg flags
# a function needs. Installed (cmake --install), this script and
# run-signature.py are in PREFIX/bin, and use the vyre-opt and libraries of
# that prefix.
#
# Usage: build-executable.sh INPUT.mlir OUTPUT [--serial | --drop-in | --upstream | --lowered]
#                            [--build-dir DIR] [--rpath PATH]
#                            [--runtime cuda|host] [--pipeline-options "OPTS"]
#   --serial   skip --overlap-copies: everything on the main stream
#   --drop-in  INPUT is host code in the upstream gpu dialect: it goes through
#              --vyre-gpu-async-pipeline (the options apply to it)
#   --upstream INPUT is host code in the upstream gpu dialect: it goes through
#              upstream's --gpu-kernel-outlining and --gpu-async-region, for
#              comparison
#   --lowered  INPUT is in the gpu dialect already (vyre-opt's output): it
#              goes on to upstream's lowering as it is
#   --build-dir a build tree, or an install prefix (default: VYRE_BUILD_DIR,
#              else the build/ beside scripts/, or the prefix of an
#              installed copy)
#   --rpath    where the executable finds libvyre_cuda_runtime.so at run time
#              (default: the build's lib/; '$ORIGIN' for a relocatable copy)
#   --runtime  cuda (default) or host (lib/Runtime/HostRuntime.cpp)
#   --pipeline-options  options of --vyre-to-gpu-pipeline, e.g.
#              "cost-model=false" (move every copy, however small)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
input=$1 output=$2
shift 2
mode=overlap
# Installed, vyre-opt is beside this script; in the source tree, in build/
# (or the build tree VYRE_BUILD_DIR names).
if [[ -n ${VYRE_BUILD_DIR:-} ]]; then
  build=$VYRE_BUILD_DIR
elif [[ -x $here/vyre-opt ]]; then
  build="$here/.."
else
  build="$here/../build"
fi
rpath=
runtime=cuda
pipeline_options=
while [[ $# -gt 0 ]]; do
  case $1 in
    --serial) mode=serial ;;
    --drop-in) mode=drop-in ;;
    --upstream) mode=upstream ;;
    --lowered) mode=lowered ;;
    --build-dir) build=$2; shift ;;
    --rpath) rpath=$2; shift ;;
    --runtime) runtime=$2; shift ;;
    --pipeline-options) pipeline_options=$2; shift ;;
    *) echo "build-executable.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
build=$(cd "$build" && pwd)
# The libraries: lib/ of a build tree, the install's library directory
# (lib, lib64 or lib/<multiarch>) of a prefix.
libdir=$build/lib
for candidate in "$build"/lib "$build"/lib64 "$build"/lib/*-linux-gnu; do
  if [[ -e $candidate/libvyre_gpu_driver.a ]]; then
    libdir=$candidate
    break
  fi
done
rpath=${rpath:-$libdir}
llvm=/usr/lib/llvm-22/bin
cuda=${CUDA_HOME:-/usr/local/cuda}
case $runtime in
  cuda) format=fatbin link=(-lvyre_cuda_runtime -L"$cuda/lib64/stubs" -lcuda) ;;
  host) format=isa link=(-lvyre_host_runtime) ;;
  *) echo "build-executable.sh: --runtime is cuda or host" >&2; exit 2 ;;
esac
if [[ $runtime == cuda && ! -x "$cuda/bin/ptxas" ]]; then
  echo "build-executable.sh: no CUDA toolkit at $cuda (ptxas): skipped" >&2
  exit 3
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ $mode == overlap ]]; then
  "$build/bin/vyre-opt" "$input" --vyre-to-gpu-pipeline="$pipeline_options" \
    -o "$work/gpu.mlir"
elif [[ $mode == drop-in ]]; then
  "$build/bin/vyre-opt" "$input" \
    --vyre-gpu-async-pipeline="$pipeline_options" -o "$work/gpu.mlir"
elif [[ $mode == lowered ]]; then
  cp "$input" "$work/gpu.mlir"
elif [[ $mode == upstream ]]; then
  "$llvm/mlir-opt" "$input" \
    --pass-pipeline="builtin.module(gpu-kernel-outlining,func.func(gpu-async-region))" \
    -o "$work/gpu.mlir"
else
  "$build/bin/vyre-opt" "$input" --convert-vyre-to-gpu --canonicalize --cse \
    -o "$work/gpu.mlir"
fi
PATH="$cuda/bin:$PATH" CUDA_HOME="$cuda" CUDA_ROOT="$cuda" \
  "$llvm/mlir-opt" "$work/gpu.mlir" \
  --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=$format" \
  -o "$work/llvm.mlir"
if grep -qE 'vyre\.|unrealized_conversion_cast' "$work/llvm.mlir"; then
  echo "build-executable.sh: lowering left vyre ops or casts in $input" >&2
  exit 1
fi
"$llvm/mlir-translate" --mlir-to-llvmir "$work/llvm.mlir" -o "$work/program.ll"
"$llvm/llc" -O2 -filetype=obj -relocation-model=pic "$work/program.ll" \
  -o "$work/program.o"
"${CXX:-c++}" -rdynamic "$work/program.o" \
  -L"$libdir" -lvyre_gpu_driver "${link[@]}" -ldl \
  -Wl,-rpath,"$rpath" \
  -o "$output"
