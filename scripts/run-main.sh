#!/usr/bin/env bash
# The main job from a fresh Debian 12 machine: install, build, and run the
# training loop on its quick Tavreli config (a few generations in about ten
# minutes on 2 cores). Running it again continues the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/volkhv loop --config configs/tavreli-cpu-quick.textproto \
  --dir runs/tavreli-cpu-quick
