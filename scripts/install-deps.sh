#!/usr/bin/env bash
# Installs every Debian package Volkhv needs (build tools, Abseil, GoogleTest,
# protobuf, LibTorch, Eigen, OpenBLAS, clang and libFuzzer). Idempotent;
# needs root or sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache git
  libabsl-dev libgtest-dev libgmock-dev
  libprotobuf-dev protobuf-compiler
  libtorch-dev libeigen3-dev nlohmann-json3-dev
  # Without it Debian's libtorch falls back to reference BLAS (~30x slower
  # dense layers).
  libopenblas0-pthread
  # libFuzzer and the sanitizers of scripts/fuzz.sh.
  clang libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q "${missing[@]}"
