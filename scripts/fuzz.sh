#!/usr/bin/env bash
# The libFuzzer harnesses of fuzz/ (docs/testing.md, "Fuzzing").
#
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
#     Builds the harnesses with clang, ASan and UBSan into build-fuzz/ and
#     runs each for SECONDS (default 60) on a copy of its seed corpus
#     fuzz/corpus/HARNESS/ (with fuzz/HARNESS.dict when there is one).
#     Prints executions, seconds, peak resident memory and the result per
#     harness; exits 1 if any found a crash, a leak, a timeout or too much
#     memory (the input is in build-fuzz/findings/). Without HARNESS: all of
#     them. `record_file` is an older name of the harness `game_file`.
#   scripts/fuzz.sh --sanitize-tests
#     Builds the engine and the GoogleTest suites with GCC, ASan and UBSan
#     into build-asan/ and runs ctest there.
#   scripts/fuzz.sh --thread-tests
#     Builds the search's suite with GCC and ThreadSanitizer into
#     build-tsan/ and runs the multi-threaded search's tests
#     (SearchThreadsTest, and the network evaluating while the leaves are
#     searched) there; exits 1 on a data race.
#   scripts/fuzz.sh --list
#     The harness names.
#   scripts/fuzz.sh --help
#     This text.
set -euo pipefail
cd "$(dirname "$0")/.."

harnesses=(tfen tavlei_position move_text game_file vrec weights config
  analysis uci)
# The largest input each harness is given (-max_len, bytes). The analysis
# limit is well past the nesting depth that once overflowed the stack
# (issue 22, item 1; now refused at --max-json-depth).
declare -A max_len=(
  [tfen]=512 [tavlei_position]=512 [move_text]=4096 [game_file]=8192
  [vrec]=16384 [weights]=32768 [config]=4096 [analysis]=16384 [uci]=2048
)
rss_limit_mb=2048
timeout_s=10

fail() {
  echo "fuzz.sh: $*" >&2
  exit 2
}

need_clang() {
  command -v clang++ >/dev/null ||
    fail "clang++ not found (run scripts/install-deps.sh)"
}

jobs="$(nproc)"

if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 0
fi

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${harnesses[@]}"
  exit 0
fi

if [ "${1:-}" = "--sanitize-tests" ]; then
  [ $# -eq 1 ] || fail "--sanitize-tests takes no other arguments"
  # GCC: Debian's LibTorch headers do not compile with clang 14.
  command -v g++ >/dev/null || fail "g++ not found (run scripts/install-deps.sh)"
  CXX=g++ cmake -S . -B build-asan -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVOLKHV_SANITIZE=ON >/dev/null
  cmake --build build-asan -j"$jobs"
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    ctest --test-dir build-asan --output-on-failure -j"$jobs"
  exit 0
fi

if [ "${1:-}" = "--thread-tests" ]; then
  [ $# -eq 1 ] || fail "--thread-tests takes no other arguments"
  command -v g++ >/dev/null || fail "g++ not found (run scripts/install-deps.sh)"
  CXX=g++ cmake -S . -B build-tsan -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVOLKHV_TSAN=ON >/dev/null
  cmake --build build-tsan -j"$jobs" --target search_test
  TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1}" \
    build-tsan/tests/search_test \
    --gtest_filter='SearchThreadsTest.*:LeafSearchTest.TheNetworkReadsTheLeavesWhileTheyAreSearched'
  exit 0
fi

seconds=60
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  seconds="$1"
  shift
fi
[ "$seconds" -ge 1 ] || fail "SECONDS must be at least 1, got $seconds"
selected=("$@")
if [ ${#selected[@]} -eq 0 ]; then selected=("${harnesses[@]}"); fi
for i in "${!selected[@]}"; do
  if [ "${selected[$i]}" = record_file ]; then selected[$i]=game_file; fi
done
for h in "${selected[@]}"; do
  [[ " ${harnesses[*]} " == *" $h "* ]] ||
    fail "unknown harness '$h' (known: ${harnesses[*]})"
done
need_clang

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja \
  -DCMAKE_BUILD_TYPE=Debug -DVOLKHV_FUZZ=ON >/dev/null
targets=()
for h in "${selected[@]}"; do targets+=("fuzz_$h"); done
cmake --build build-fuzz -j"$jobs" --target "${targets[@]}"

runs=build-fuzz/runs
findings=build-fuzz/findings
mkdir -p "$findings"
status=0
summary=()
for h in "${selected[@]}"; do
  work="$runs/$h"
  rm -rf "$work"
  mkdir -p "$work/corpus"
  cp fuzz/corpus/"$h"/* "$work/corpus/"
  args=(-max_total_time="$seconds" -rss_limit_mb="$rss_limit_mb"
    -timeout="$timeout_s" -max_len="${max_len[$h]}" -print_final_stats=1
    -artifact_prefix="$findings/$h-")
  if [ -f "fuzz/$h.dict" ]; then args+=(-dict="fuzz/$h.dict"); fi
  echo "fuzz.sh: $h for ${seconds} s (log: $work/log)"
  start=$(date +%s)
  set +e
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    "build-fuzz/fuzz/fuzz_$h" "${args[@]}" "$work/corpus" >"$work/log" 2>&1
  rc=$?
  set -e
  elapsed=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" |
    tail -n 1)
  peak_rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log" | tail -n 1)
  if [ $rc -eq 0 ]; then
    result=ok
  else
    status=1
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$work/log" |
      tail -n 1)
    kind=$(grep -m 1 -oE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)[^(]*|runtime error: .*|FUZZ_CHECK\(.*' \
      "$work/log" || true)
    result="FAILED (exit $rc): ${kind:-see the log}; input ${artifact:-none}"
    if [ -n "$kind" ]; then
      grep -E 'ERROR|runtime error|FUZZ_CHECK|SUMMARY|^    #[0-9]' \
        "$work/log" | head -n 30 >&2 || true
    else
      tail -n 5 "$work/log" >&2
    fi
  fi
  summary+=("$(printf '%-16s %10s executions %5d s %5s MB peak RSS  %s' \
    "$h" "${execs:-?}" "$elapsed" "${peak_rss:-?}" "$result")")
done
echo "fuzz.sh: results"
printf '  %s\n' "${summary[@]}"
exit $status
