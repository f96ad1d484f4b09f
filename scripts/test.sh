#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: install, build, ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
