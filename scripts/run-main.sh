#!/usr/bin/env bash
# The main job from a fresh Debian 12 machine: install, build, run.
# For now the main job is the rules demonstration (perft and a random game);
# the self-play loop replaces it when it lands.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/volkhv demo --game tavreli
./build/volkhv demo --game tavlei9 --perft-depth 2
./build/volkhv validate --game tavreli tests/data/tavreli-published-games.txt
