#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: install, build, ctest,
# then every fuzz harness for FUZZ_SECONDS (default 5; 0 skips them).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
if [ "${FUZZ_SECONDS:-5}" != 0 ]; then
  bash scripts/fuzz.sh "${FUZZ_SECONDS:-5}"
fi
