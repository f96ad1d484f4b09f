#!/usr/bin/env bash
# Strength against CPU time: the strength ladder (scripts/strength-ladder.sh)
# of a loop run's nets after given CPU-hours, one row per point, one column
# per rung. Prints a Markdown table and writes it to --out when given.
#
#   scripts/ladder-curve.sh RUN --points 0.25,0.5,1,2 [options]
#
# RUN is a `volkhv loop` run directory; the net of a point is the one of the
# run's last generation within that many CPU-hours (its metrics.csv). Every
# other option goes to strength-ladder.sh (--visits, --games, --rungs, ...).
set -euo pipefail

usage() {
  cat <<'EOF_USAGE'
usage: scripts/ladder-curve.sh RUN --points LIST [options]
  --points LIST   comma-separated CPU-hours, e.g. 0.25,0.5,1,2
  --out FILE      also write the table to FILE
  --binary PATH   the volkhv binary (default: build/volkhv of this tree)
  any other option goes to scripts/strength-ladder.sh (see its --help);
  its default rungs here are random,ab1,ab2
EOF_USAGE
}

die() {
  echo "ladder-curve: $*" >&2
  exit 2
}

# shellcheck source=scripts/lib/run-nets.sh
source "$(dirname "$0")/lib/run-nets.sh"

[ $# -ge 1 ] && { [ "$1" = "--help" ] || [ "$1" = "-h" ]; } && { usage; exit 0; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
run=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
points="" out="" binary="$root/build/volkhv" rungs=random,ab1,ab2
ladder_args=()
while [ $# -gt 0 ]; do
  [ "$1" = --resume ] && die "option '--resume' is not taken here (one ladder per point)"
  [ $# -ge 2 ] || die "option '$1' needs a value"
  case "$1" in
    --points) points=$2 ;;
    --out) out=$2 ;;
    --binary) binary=$2 ;;
    --rungs) rungs=$2 ;;
    --pgn-dir) die "option '--pgn-dir' is not taken here (one ladder per point)" ;;
    *) ladder_args+=("$1" "$2") ;;
  esac
  shift 2
done
[ -f "$run/metrics.csv" ] || die "$run: not a loop run directory (no metrics.csv)"
[ -f "$run/config.textproto" ] || die "$run: not a loop run directory (no config.textproto)"
[ -n "$points" ] || die "--points is required"
IFS=',' read -r -a point_list <<<"$points"
for point in "${point_list[@]}"; do
  [[ "$point" =~ ^[0-9]*\.?[0-9]+$ ]] || die "option '--points': '$point' is not a positive number"
done
game=$(sed -n 's|^ *game: *"\([a-z0-9]*\)".*|\1|p' "$run/config.textproto" | head -n 1)
game=${game:-tavreli}

IFS=',' read -r -a rung_list <<<"$rungs"
header="| CPU-hours | net | CPU-hours of the net |"
rule="|---|---|---|"
for rung in "${rung_list[@]}"; do
  header="$header $rung: W/D/L, score |"
  rule="$rule---|"
done
rows=()
ladder=$(mktemp)
trap 'rm -f "$ladder"' EXIT
for point in "${point_list[@]}"; do
  net_and_hours=$(net_at_cpu_hours "$run" "$point")
  if [ -z "$net_and_hours" ]; then
    echo "ladder-curve: $run has no net within $point CPU-hours; skipped" >&2
    continue
  fi
  net=${net_and_hours% *}
  echo "ladder-curve: $point CPU-hours: $net" >&2
  bash "$root/scripts/strength-ladder.sh" "$game" "$net" --rungs "$rungs" \
    --binary "$binary" --out "$ladder" "${ladder_args[@]}" >/dev/null ||
    die "the ladder of $net failed"
  row="| $point | $(basename "$net" .net) | ${net_and_hours##* } |"
  # The ladder's rows, in rung order: "| opponent | tc | games | W/D/L | score | ...".
  while IFS='|' read -r _ _ _ _ wdl score _; do
    row="$row ${wdl// /}, ${score// /} |"
  done < <(grep -E '^\| (random|alphabeta)' "$ladder")
  rows+=("$row")
done
[ ${#rows[@]} -gt 0 ] || die "$run has no net within any of the points"

table=$(
  echo "Strength against CPU time of \`$run\` ($game): the ladder (scripts/strength-ladder.sh ${ladder_args[*]} --rungs $rungs) of the net each point had."
  echo
  echo "$header"
  echo "$rule"
  printf '%s\n' "${rows[@]}"
)
echo "$table"
if [ -n "$out" ]; then
  printf '%s\n' "$table" >"$out"
fi
