#!/usr/bin/env bash
# The GPU checks of issue 20 as one script, for one call of the project's
# device tool (one H200, 16 cores, no network; at most 10 minutes a call):
#
#   run(command="bash scripts/gpu-check.sh", carry=[".cuda-deps"],
#       timeout_s=600)
#
# after `bash scripts/cuda-build.sh fetch` here. Every step has a time box
# (`timeout`, then SIGKILL 10 s later) and a share of one overall budget
# (TOTAL_S, default 540 s): a step whose box no longer fits is skipped and
# says so, so a hang or a slow build cannot eat the call. In order:
#
#   build    scripts/cuda-build.sh build, without its ctest, past a
#            failed file (what was built runs below)                box 300 s
#   cuda     the CUDA-only and precision tests, verbose             box  60 s
#   bench    volkhv bench nn --device cuda on 6x64, 10x128 and 15x192
#            Tavreli nets at batch 64..4096, bf16 (15x192 in fp32 too, and
#            a Tavlei 9x9 15x192 net: a 13x smaller policy to copy)  box 100 s
#   selfplay the selfplay block and evaluator of configs/tavlei9-gpu.textproto
#            on its 15x192 net, stopped by the box's SIGTERM (a graceful
#            stop), nvidia-smi sampling utilization.gpu every 500 ms
#                                                                   box  90 s
#   train    volkhv train on the GPU, 15x192 Tavreli, batch 1024, bf16
#            autocast then float32, on records of random-play self-play
#                                                                   box  70 s
#   ctest    the whole suite (what time is left)                    box 120 s
#
# Output (at most 8 files, flat, as the device tool returns them) in $OUT
# (default gpu-check-out/): gpu-check.log (everything), summary.txt,
# cuda-tests.log, bench.txt, selfplay.txt, gpu-util.csv, train.txt,
# ctest.log.
#
# DEVICE=cpu runs the same steps on the CPU with tiny sizes (a dry run of
# the script itself; with SKIP_BUILD=1 and BUILD_DIR=build it uses the
# ordinary build).
set -uo pipefail
cd "$(dirname "$0")/.."

device="${DEVICE:-cuda}"
out="${OUT:-gpu-check-out}"
build_dir="${BUILD_DIR:-build-cuda}"
total_s="${TOTAL_S:-540}"
work="${WORK_DIR:-/tmp/volkhv-gpu-check}"
mkdir -p "$out"
rm -rf "$work"
mkdir -p "$work"
log="$out/gpu-check.log"
summary="$out/summary.txt"
: >"$log"
: >"$summary"
start=$(date +%s)
exec > >(tee -a "$log") 2>&1

if [ "$device" = cpu ]; then
  batches="8,32"
  bench_seconds=0.3
  precisions="bf16"
  selfplay_s=25
  selfplay_set=(--parallel 8 --visits 16 --set "cheap_visits: 8")
  net_gpu="configs/net-cpu.textproto"
  train_batch=64
  train_steps=10
  threads=2
else
  batches="64,256,1024,4096"
  bench_seconds=1
  precisions="bf16"
  selfplay_s=90
  selfplay_set=()
  net_gpu="configs/net-gpu.textproto"
  train_batch=1024
  train_steps=100
  threads=16
fi

elapsed() { echo $(($(date +%s) - start)); }
note() { echo "$*" | tee -a "$summary"; }

# step NAME BOX COMMAND...: runs COMMAND under `timeout` for at most BOX
# seconds, or fewer if the overall budget has fewer left (then at least
# half of BOX must remain, else the step is skipped).
step() {
  local name="$1" box="$2"
  shift 2
  local left=$((total_s - $(elapsed)))
  if [ "$left" -lt $((box / 2)) ]; then
    note "== $name: skipped, $left s of the budget left (box $box s)"
    return 124
  fi
  [ "$box" -gt "$left" ] && box="$left"
  echo "== $name: start at $(elapsed) s, box $box s: $*"
  local t0 rc
  t0=$(date +%s)
  timeout -k 10 "$box" "$@"
  rc=$?
  note "== $name: rc $rc in $(($(date +%s) - t0)) s$([ "$rc" = 124 ] &&
    echo ' (time box reached)')"
  return "$rc"
}

note "gpu-check: device $device, budget $total_s s, $(date -u +%FT%TZ)"
if [ "$device" = cuda ]; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
    --format=csv,noheader | sed 's/^/gpu: /' | tee -a "$summary"
fi
echo "cores: $(nproc), commit $(git rev-parse --short HEAD 2>/dev/null)"

# --- build
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # A failed or cut-short build still runs every step whose binaries
  # were built (KEEP_GOING: ninja goes on past a failed file).
  BUILD_DIR="$build_dir" JOBS="${JOBS:-$(nproc)}" VOLKHV_CUDA_CTEST=0 \
    KEEP_GOING=1 step build 300 bash scripts/cuda-build.sh build ||
    note "gpu-check: the build failed ($(grep -c '^FAILED: ' "$log") files" \
      "did not compile); the steps whose binaries it built run"
  grep -A 12 '^FAILED: ' "$log" | head -n 60 >>"$summary"
fi
volkhv="$build_dir/volkhv"
# The binaries carry an RPATH to the unpacked Debian libraries
# (cuda-build.sh); the same path again for anything started otherwise.
deps_lib="$build_dir/deps-root/usr/lib/x86_64-linux-gnu"
[ -d "$deps_lib" ] &&
  export LD_LIBRARY_PATH="$(cd "$deps_lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x "$volkhv" ] || {
  note "gpu-check: no $volkhv"
  exit 1
}

# --- the CUDA-only and precision tests, with what they print
step cuda 60 bash -c "
  '$build_dir/tests/nn_network_test' --gtest_filter='PrecisionTest.*:CudaTest.*:WeightsFileTest.Cuda*' &&
  '$build_dir/tests/training_test' --gtest_filter='TrainerTest.Mixed*:TrainerTest.Gpu*'
" >"$out/cuda-tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |prior diff|policy/value loss|Skipped|Failure" \
  "$out/cuda-tests.log" | tee -a "$summary"

# --- nets
for spec in "6x64:configs/net-cpu.textproto" \
  "10x128:configs/net-10x128.textproto" "15x192:$net_gpu"; do
  name="${spec%%:*}"
  "$volkhv" net init --game tavreli --config "${spec#*:}" \
    --out "$work/tavreli-$name.net" >/dev/null || note "net init $name failed"
done
"$volkhv" net init --game tavlei9 --config "$net_gpu" \
  --out "$work/tavlei9-15x192.net" >/dev/null || note "net init tavlei9 failed"

# --- bench nn
bench() {
  local net="$1" precision="$2" ceiling="$3"
  echo "### bench nn $(basename "$net") $precision"
  "$volkhv" bench nn --net "$net" --device "$device" --precision "$precision" \
    --batch "$batches" --seconds "$bench_seconds" --threads "$threads" \
    $ceiling
}
bench_all() {
  for p in $precisions; do
    bench "$work/tavreli-6x64.net" "$p" --no-ceiling
    bench "$work/tavreli-10x128.net" "$p" --no-ceiling
    bench "$work/tavreli-15x192.net" "$p" ""
  done
  bench "$work/tavreli-15x192.net" fp32 --no-ceiling
  # Tavlei 9x9's policy is 2,592 logits, Tavreli's 32,768: the difference
  # shows what copying the policy back costs.
  bench "$work/tavlei9-15x192.net" bf16 --no-ceiling
}
step bench 100 bash -c "$(declare -f bench bench_all); volkhv='$volkhv' \
  work='$work' device='$device' batches='$batches' \
  bench_seconds='$bench_seconds' threads='$threads' \
  precisions='$precisions' bench_all" >"$out/bench.txt" 2>&1
grep -E "^###|^ceiling: bf16|^ +[0-9]+ " "$out/bench.txt" | tee -a "$summary"

# --- self-play with the GPU preset
sed -n '/^selfplay {/,/^}/p' configs/tavlei9-gpu.textproto | sed '1d;$d' \
  >"$work/selfplay.textproto"
evaluator=$(sed -n '/^evaluator {/,/^}/p' configs/tavlei9-gpu.textproto)
ev() { echo "$evaluator" | sed -n "s/^ *$1: *\"\{0,1\}\([^\"]*\)\"\{0,1\}$/\1/p"; }
util_pid=""
if [ "$device" = cuda ]; then
  nvidia-smi --query-gpu=utilization.gpu,memory.used \
    --format=csv,noheader,nounits -lms 500 >"$out/gpu-util.csv" &
  util_pid=$!
fi
# The box's SIGTERM stops self-play gracefully (finished games written,
# the summary printed): rc 124 is the expected end.
step selfplay "$selfplay_s" "$volkhv" selfplay --game tavlei9 \
  --net "$work/tavlei9-15x192.net" --config "$work/selfplay.textproto" \
  --device "$device" --precision "$(ev precision || true)" \
  --threads "$(ev threads)" --max-batch "$(ev max_batch)" \
  --max-wait-us "$(ev max_wait_us)" --games 100000 --seed 1 \
  "${selfplay_set[@]}" --out "$work/selfplay" \
  >"$out/selfplay.txt" 2>&1
[ -n "$util_pid" ] && kill "$util_pid" 2>/dev/null
grep -E "games in|evaluations|network:" "$out/selfplay.txt" | tee -a "$summary"
if [ -s "$out/gpu-util.csv" ]; then
  awk -F', *' '{ n++; s += $1; if ($1 > 0) busy++; if ($2 > m) m = $2 }
    END { if (n) printf "gpu: utilization.gpu mean %.1f %% over %d samples" \
      " (%.1f %% of samples > 0), memory used up to %d MiB\n",
      s / n, n, 100 * busy / n, m }' "$out/gpu-util.csv" | tee -a "$summary"
fi

# --- training on the GPU
"$volkhv" selfplay --game tavreli --net random --games 48 --parallel 16 \
  --visits 16 --set "cheap_visits: 8" --seed 2 --out "$work/records" \
  >"$work/records.log" 2>&1 || note "random-play records failed"
train() {
  local precision="$1"
  cat >"$work/train-$precision.textproto" <<EOF
batch_size: $train_batch
steps: $train_steps
window_min_positions: 100000
validation_fraction: 0.05
validation_interval: 0
checkpoint_interval: 0
log_interval: $((train_steps / 2))
loader_threads: 8
prefetch_batches: 4
mixed_precision: $precision
EOF
  echo "### train $precision"
  "$volkhv" train --game tavreli --records "$work/records" \
    --net-in "$work/tavreli-15x192.net" \
    --net-out "$work/trained-$precision.net" \
    --config "$work/train-$precision.textproto" --device "$device" \
    --threads "$threads"
}
step train 70 bash -c "$(declare -f train); volkhv='$volkhv' work='$work' \
  device='$device' threads='$threads' train_batch='$train_batch' \
  train_steps='$train_steps'; train BF16 && train OFF" \
  >"$out/train.txt" 2>&1
grep -E "^###|positions/s|^training" "$out/train.txt" | tee -a "$summary"

# --- the whole suite with what is left
step ctest 120 ctest --test-dir "$build_dir" -j"$(nproc)" \
  --output-on-failure >"$out/ctest.log" 2>&1
grep -E "tests passed|tests failed|\(Failed\)|Skipped" "$out/ctest.log" |
  tee -a "$summary"
note "gpu-check: done in $(elapsed) s"
