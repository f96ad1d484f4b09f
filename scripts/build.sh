#!/usr/bin/env bash
# Configures and builds Volkhv into build/ (Release unless BUILD_TYPE is set).
# The binary is build/volkhv.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" >/dev/null
cmake --build build -j"$(nproc)"
