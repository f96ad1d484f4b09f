#!/usr/bin/env bash
# Installs every Debian package Volkhv needs (build tools, Abseil, GoogleTest,
# protobuf, LibTorch, Eigen, OpenBLAS, cpp-httplib, clang and libFuzzer;
# Chromium and Node.js for the web board's browser test), then the test's npm
# packages (npm ci in web/test: puppeteer-core, which downloads no browser).
# Idempotent; needs root or sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache git
  libabsl-dev libgtest-dev libgmock-dev
  libprotobuf-dev protobuf-compiler
  libtorch-dev libeigen3-dev nlohmann-json3-dev
  # Gloo's headers, for training across processes (c10d's ProcessGroupGloo).
  libgloo-dev
  # Without it Debian's libtorch falls back to reference BLAS (~30x slower
  # dense layers).
  libopenblas0-pthread
  # The web board (`volkhv serve`) and its end-to-end test in a browser.
  pkg-config libcpp-httplib-dev chromium fonts-dejavu-core
  # libFuzzer and the sanitizers of scripts/fuzz.sh.
  clang libclang-rt-14-dev
  # The check of deploy/ (tests/deploy_check.py) parses its manifests.
  python3 python3-yaml
)
# Node.js for the browser test; a newer one already installed is kept.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q "${missing[@]}"
fi

# The browser test's packages, exactly as web/test/package-lock.json pins
# them; again only when the lock file changed.
web_test="$(dirname "$0")/../web/test"
if ! cmp -s "$web_test/package-lock.json" \
    "$web_test/node_modules/.volkhv-installed-lock"; then
  (cd "$web_test" && npm ci --no-audit --no-fund &&
    cp package-lock.json node_modules/.volkhv-installed-lock)
fi
