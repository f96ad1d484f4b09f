#!/usr/bin/env bash
# Learning efficiency at equal compute: trains two loop configs for the same
# CPU budget on this machine, one after the other (each gets the whole
# machine) or with --parallel at the same time, then plays both final nets
# (or the nets each had after --at-cpu-hours) against the same fixed
# opponents and against each other, and prints a Markdown report.
#
#   scripts/ab-learning.sh --a CONFIG_A --b CONFIG_B --cpu-hours H [options]
#
# Running it again continues: finished runs are not trained again (a larger
# --cpu-hours trains them further) and the matches are played again.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/ab-learning.sh --a CONFIG_A --b CONFIG_B --cpu-hours H [options]
       scripts/ab-learning.sh --a CONFIG_A --b CONFIG_B --out DIR --matches-only [options]
  --a FILE, --b FILE  the two loop configs (configs/*.textproto), same game
  --cpu-hours H       CPU budget of each run: `volkhv loop --cpu-hours H`
  --out DIR           runs and report go here (default: runs/ab-<name A>-<name B>)
  --games N           games per match, in colour-swapped pairs (default 100)
  --visits N          MCTS visits per move of the nets (default 200)
  --opponents LIST    fixed opponents, comma-separated from
                      random,greedy,ab1,ab2,ab3 (greedy: depth 1, no quiescence)
                      (default: ab1,ab2)
  --concurrency N     games at once (default 2)
  --seed S            seed of the matches' openings and players (default 1)
  --binary PATH       the volkhv binary (default: build/volkhv of this tree)
  --parallel          train A and B at the same time (for configs that keep
                      one core busy each), not one after the other
  --at-cpu-hours H    play the nets each run had after H CPU-hours (its last
                      generation within H) instead of the final ones
  --matches-only      train nothing: play the runs' nets as they are (runs
                      trained before, or still training: with --at-cpu-hours)
USAGE
}

die() {
  echo "ab-learning: $*" >&2
  exit 2
}

# shellcheck source=scripts/lib/match-row.sh
source "$(dirname "$0")/lib/match-row.sh"
# shellcheck source=scripts/lib/run-nets.sh
source "$(dirname "$0")/lib/run-nets.sh"

[ $# -ge 1 ] && { [ "$1" = "--help" ] || [ "$1" = "-h" ]; } && { usage; exit 0; }
root=$(cd "$(dirname "$0")/.." && pwd)
config_a="" config_b="" cpu_hours="" out="" games=100 visits=200
opponents=ab1,ab2 concurrency=2 seed=1 binary="$root/build/volkhv"
parallel=0 at_cpu_hours="" train=1
while [ $# -gt 0 ]; do
  if [ "$1" = --parallel ] || [ "$1" = --matches-only ]; then
    [ "$1" = --parallel ] && parallel=1
    [ "$1" = --matches-only ] && train=0
    shift
    continue
  fi
  [ $# -ge 2 ] || die "option '$1' needs a value"
  case "$1" in
    --a) config_a=$2 ;;
    --b) config_b=$2 ;;
    --cpu-hours) cpu_hours=$2 ;;
    --out) out=$2 ;;
    --games) games=$2 ;;
    --visits) visits=$2 ;;
    --opponents) opponents=$2 ;;
    --concurrency) concurrency=$2 ;;
    --seed) seed=$2 ;;
    --binary) binary=$2 ;;
    --at-cpu-hours) at_cpu_hours=$2 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift 2
done
[ -n "$config_a" ] && [ -n "$config_b" ] || die "--a and --b are required"
[ -n "$cpu_hours" ] || [ "$train" = 0 ] || die "--cpu-hours is required"
for pair in "cpu-hours:${cpu_hours:-1}" "at-cpu-hours:${at_cpu_hours:-1}"; do
  [[ "${pair#*:}" =~ ^[0-9]*\.?[0-9]+$ ]] || die "option '--${pair%%:*}': '${pair#*:}' is not a positive number"
done
for pair in "games:$games" "visits:$visits" "concurrency:$concurrency" "seed:$seed"; do
  [[ "${pair#*:}" =~ ^[0-9]+$ ]] || die "option '--${pair%%:*}': '${pair#*:}' is not a non-negative integer"
done
for config in "$config_a" "$config_b"; do
  [ -f "$config" ] || die "$config: no such config file"
done
[ -x "$binary" ] || die "$binary is not an executable (build first: bash scripts/build.sh)"

# The game of a config: its `game:` line (the loop's default is tavreli).
game_of() {
  local g
  g=$(sed -n 's|^ *game: *"\([a-z0-9]*\)".*|\1|p' "$1" | head -n 1)
  echo "${g:-tavreli}"
}
game=$(game_of "$config_a")
[ "$(game_of "$config_b")" = "$game" ] || die "the configs play different games ($game, $(game_of "$config_b"))"
name_a=$(basename "$config_a" .textproto)
name_b=$(basename "$config_b" .textproto)
[ "$name_a" != "$name_b" ] || name_b="$name_b-b"
out=${out:-$root/runs/ab-$name_a-$name_b}
mkdir -p "$out"

# The newest net of a run directory, or with --at-cpu-hours the net of its
# last generation whose CPU time, summed from the first, is within it.
final_net() {
  if [ -z "$at_cpu_hours" ]; then
    ls "$1"/nets/gen-*.net 2>/dev/null | sort | tail -n 1
    return
  fi
  local net_and_hours
  net_and_hours=$(net_at_cpu_hours "$1" "$at_cpu_hours")
  echo "${net_and_hours% *}"
}

# "generations, CPU hours, games/hour, network share" of a run's metrics.csv:
# the sums and means over its generations (within --at-cpu-hours).
run_summary() {
  awk -F, -v limit="${at_cpu_hours:-0}" 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    limit > 0 && cpu + $col["cpu_seconds"] > limit * 3600 { exit }
    { n++; cpu += $col["cpu_seconds"]; gph += $col["games_per_hour"];
      share += $col["network_share"] }
    END { if (n == 0) { print "| 0 | 0 | - | - |"; exit }
      printf "| %d | %.2f | %.0f | %.0f %% |\n", n, cpu / 3600, gph / n,
        100 * share / n }' "$1/metrics.csv"
}

train() {
  local side=$1 config=$2
  echo "ab-learning: training $side ($config) for $cpu_hours CPU-hours in $out/$side" >&2
  "$binary" loop --config "$config" --dir "$out/$side" --cpu-hours "$cpu_hours" \
    2>>"$out/$side.log" || die "the loop of $side failed (see $out/$side.log)"
}
if [ "$train" = 0 ]; then
  order="trained before"
elif [ "$parallel" = 1 ]; then
  train a "$config_a" &
  pid_a=$!
  train b "$config_b" &
  pid_b=$!
  status=0
  wait "$pid_a" || status=2
  wait "$pid_b" || status=2
  [ "$status" = 0 ] || exit 2
  order="at the same time"
else
  train a "$config_a"
  train b "$config_b"
  order="one after the other"
fi
net_a=$(final_net "$out/a")
net_b=$(final_net "$out/b")
[ -n "$net_a" ] && [ -n "$net_b" ] || die "a run has no net${at_cpu_hours:+ within $at_cpu_hours CPU-hours}"

# The matches measure the nets: no alpha-beta quiescence at the leaves,
# which play uses by default (docs/search.md, "Captures at the leaves").
net_only=leaf_quiescence_weight=0
rows=()
IFS=',' read -r -a opponent_list <<<"$opponents"
for side in a b; do
  if [ "$side" = a ]; then net=$net_a label=$name_a; else net=$net_b label=$name_b; fi
  for rung in "${opponent_list[@]}"; do
    opp=$(fixed_opponent "$rung") ||
      die "unknown opponent '$rung' (known: random, greedy, ab1, ab2, ab3)"
    echo "ab-learning: $label vs $opp" >&2
    row=$(match_row "$binary" "$opp" "$label: $visits visits" --game "$game" \
      --player "mcts:net=$net,visits=$visits,$net_only,name=$label" --player "$opp" \
      --games "$games" --concurrency "$concurrency" --seed "$seed" --quiet) || exit 2
    rows+=("$row")
  done
done
echo "ab-learning: $name_a vs $name_b" >&2
row=$(match_row "$binary" "$name_b" "$name_a: $visits visits each" --game "$game" \
  --player "mcts:net=$net_a,visits=$visits,$net_only,name=$name_a" \
  --player "mcts:net=$net_b,visits=$visits,$net_only,name=$name_b" \
  --games "$games" --concurrency "$concurrency" --seed "$seed" --quiet) || exit 2
rows+=("$row")

report=$(
  echo "A/B at equal CPU time: \`$config_a\` (A) vs \`$config_b\` (B), $game, ${cpu_hours:+$cpu_hours CPU-hours each, }$order on $(nproc) cores${at_cpu_hours:+; the nets each run had after $at_cpu_hours CPU-hours}."
  echo
  echo "| run | generations | CPU hours | self-play games/hour | network share |"
  echo "|---|---|---|---|---|"
  echo "| A: $name_a $(run_summary "$out/a")"
  echo "| B: $name_b $(run_summary "$out/b")"
  echo
  echo "Final nets: A \`$net_a\`, B \`$net_b\`; $games games per match in colour-swapped pairs, seed $seed."
  echo
  echo "| opponent | player | games | W/D/L (player) | score | Elo of the player | wall time |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
)
echo "$report" | tee "$out/report.md"
