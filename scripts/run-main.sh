#!/usr/bin/env bash
# The main job from a fresh Debian 12 machine: install, build, and run the
# training loop on its quick Tavreli config (five generations and the final
# evaluation in about ten minutes on 2 cores), which ends with the line
# "volkhv loop: generation 5 vs generation 0: score ...; vs random: ...;
# report: runs/tavreli-cpu-quick/report.html". Running it again continues
# the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/volkhv loop --config configs/tavreli-cpu-quick.textproto \
  --dir runs/tavreli-cpu-quick
