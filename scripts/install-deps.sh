#!/usr/bin/env bash
# Installs vyre's build dependencies from Debian's packages, and does nothing
# when they are all present. Usage: scripts/install-deps.sh [--fuzz]
set -euo pipefail

# libzstd-dev: vyre-tblgen links LLVM's static TableGen and Support
# libraries, whose link interface names libzstd.
packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld
          ninja-build cmake g++ libgtest-dev python3 libzstd-dev)
if [[ "${1:-}" == "--fuzz" ]]; then
  # clang-22 alone lacks the sanitizer runtimes (libclang_rt.asan.a and
  # friends), without which CMake's link checks fail ("Could NOT find
  # Threads"): they come with libclang-rt-22-dev.
  packages+=(clang-22 libfuzzer-22-dev libclang-rt-22-dev)
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || {
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
