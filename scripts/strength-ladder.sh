#!/usr/bin/env bash
# The strength ladder of a net: MCTS with the net against the random mover,
# greedy one-ply alpha-beta without quiescence (not played unless asked),
# alpha-beta at depths 1, 2 and 3, and alpha-beta at the same wall time per
# move, each rung a `volkhv match` in colour-swapped pairs from random
# openings. Prints a Markdown table (W/D/L, score, Elo with its 95 %
# interval, games, time control) and writes it to --out when given. The
# equal-time row's time control also says what the time bought: the net's
# median visits a move and alpha-beta's mean completed depth.
#
#   scripts/strength-ladder.sh GAME NET [options]
#
# GAME: tavreli, tavlei9 or tavlei11. NET: a weights file, or auto (the
# bundled net, nets/GAME.net).
#
# Stopped by SIGINT (Ctrl-C), SIGTERM or SIGHUP, it stops the rung's match,
# prints the table of the games finished so far (the stopped rung's row
# among them) and exits with status 130; with --pgn-dir, the same command
# with --resume continues where it stopped.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/strength-ladder.sh GAME NET [options]
  --visits N        MCTS visits per move of the net's player (default 800)
  --games N         games per rung, in pairs (default 100)
  --movetime MS     time per move of the equal-time rung, both players (default 1000);
                    its row gives the net's median visits a move and
                    alpha-beta's mean depth, read from the rung's games
  --rungs LIST      comma-separated, from: random,greedy,ab1,ab2,ab3,time
                    (default: random,ab1,ab2,ab3,time; greedy is depth 1
                    without quiescence, between random and ab1)
  --concurrency N   games at once on the fixed-depth rungs (default 2;
                    the equal-time rung always plays one game at a time)
  --random-plies K  random opening plies per pair (default 6)
  --seed S          seed of the openings and players (default 1)
  --prince-max-steps N   Tavlei option (default 0 = unlimited)
  --out FILE        also write the table to FILE
  --pgn-dir DIR     write each rung's games to DIR/<rung>.pgn
  --resume          with --pgn-dir: continue a stopped ladder; the games
                    already in DIR/<rung>.pgn count and are not played again
  --search LIST     more options of the net's MCTS player on every rung,
                    comma-separated KEY=VALUE of the `mcts:` player spec
                    (search parameters, as `volkhv engine` names them),
                    e.g. leaf_quiescence_weight=0.75,cpuct_init=2
  --binary PATH     the volkhv binary (default: build/volkhv of this tree)
EOF
}

# shellcheck source=scripts/lib/match-row.sh
source "$(dirname "$0")/lib/match-row.sh"
# shellcheck source=scripts/lib/search-stats.sh
source "$(dirname "$0")/lib/search-stats.sh"

die() {
  echo "strength-ladder: $*" >&2
  exit 2
}

[ $# -ge 1 ] && { [ "$1" = "--help" ] || [ "$1" = "-h" ]; } && { usage; exit 0; }
[ $# -ge 2 ] || { usage >&2; exit 2; }
game=$1
net=$2
shift 2
case "$game" in
  tavreli | tavlei9 | tavlei11) ;;
  *) die "unknown game '$game' (known: tavreli, tavlei9, tavlei11)" ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
visits=800 games=100 movetime=1000 rungs=random,ab1,ab2,ab3,time
concurrency=2 random_plies=6 seed=1 prince=0 out="" pgn_dir="" resume=0
search=""
binary="$root/build/volkhv"
while [ $# -gt 0 ]; do
  if [ "$1" = --resume ]; then
    resume=1
    shift
    continue
  fi
  [ $# -ge 2 ] || die "option '$1' needs a value"
  case "$1" in
    --visits) visits=$2 ;;
    --games) games=$2 ;;
    --movetime) movetime=$2 ;;
    --rungs) rungs=$2 ;;
    --concurrency) concurrency=$2 ;;
    --random-plies) random_plies=$2 ;;
    --seed) seed=$2 ;;
    --prince-max-steps) prince=$2 ;;
    --out) out=$2 ;;
    --pgn-dir) pgn_dir=$2 ;;
    --binary) binary=$2 ;;
    --search) search=$2 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift 2
done
for pair in "visits:$visits" "games:$games" "movetime:$movetime" \
  "concurrency:$concurrency" "random-plies:$random_plies" "seed:$seed" \
  "prince-max-steps:$prince"; do
  [[ "${pair#*:}" =~ ^[0-9]+$ ]] || die "option '--${pair%%:*}': '${pair#*:}' is not a non-negative integer"
done
[ -x "$binary" ] || die "$binary is not an executable (build first: bash scripts/build.sh)"
[ "$resume" = 0 ] || [ -n "$pgn_dir" ] ||
  die "--resume needs --pgn-dir (the folder of the stopped ladder's games)"
# --search: KEY=VALUE pairs, none of the keys the script sets itself; the
# values are checked by a match of no plies.
if [ -n "$search" ]; then
  [[ "$search" =~ ^[a-z_]+=[^,=]+(,[a-z_]+=[^,=]+)*$ ]] ||
    die "option '--search': '$search' is not a comma-separated list of KEY=VALUE"
  IFS=',' read -r -a search_pairs <<<"$search"
  for kv in "${search_pairs[@]}"; do
    case "${kv%%=*}" in
      net | visits | nodes | movetime | name)
        die "option '--search': '${kv%%=*}' is set by the ladder (NET, --visits, --movetime)" ;;
    esac
  done
  check=$("$binary" match --game "$game" --player "mcts:net=random,visits=1,$search" \
    --player random --games 2 --max-plies 1 --quiet 2>&1 >/dev/null) ||
    die "option '--search': ${check#volkhv match: player mcts: }"
fi
[ -n "$pgn_dir" ] && mkdir -p "$pgn_dir"

# Each match runs in a session of its own, so that a Ctrl-C reaches this
# script alone, which passes it on once: `volkhv match` ends its games at
# the first signal and reports those finished; a second would kill it.
match_pid=""
stopping=0
stop_match() {
  stopping=1
  [ -n "$match_pid" ] && kill -TERM "$match_pid" 2>/dev/null
  return 0
}
trap stop_match INT TERM HUP
result_file=$(mktemp)
# The equal-time rung's games, when --pgn-dir does not keep them: its row
# reports how deep each player searched, read from their move comments.
time_pgn=$(mktemp -u)
trap 'rm -f "$result_file" "$time_pgn"' EXIT

label="net"
rows=()
ran_any=0
stopped_in="" stopped_before=""
IFS=',' read -r -a rung_list <<<"$rungs"
for rung in "${rung_list[@]}"; do
  conc=$concurrency
  case "$rung" in
    random | greedy | ab1 | ab2 | ab3)
      me="mcts:net=$net,visits=$visits${search:+,$search}" opp=$(fixed_opponent "$rung")
      case "$rung" in
        random) tc="$visits visits vs random" ;;
        greedy) tc="$visits visits vs depth 1, no quiescence" ;;
        *) tc="$visits visits vs depth ${rung#ab}" ;;
      esac ;;
    time)
      me="mcts:net=$net,movetime=$movetime${search:+,$search}" opp="alphabeta:movetime=$movetime"
      tc="$movetime ms per move, both"
      conc=1 ;;
    *) die "unknown rung '$rung' (known: random, greedy, ab1, ab2, ab3, time)" ;;
  esac
  args=(--game "$game" --player "$me,name=$label" --player "$opp"
    --games "$games" --random-plies "$random_plies" --concurrency "$conc"
    --seed "$seed" --quiet)
  [ "$prince" != 0 ] && args+=(--prince-max-steps "$prince")
  pgn=""
  [ -n "$pgn_dir" ] && pgn="$pgn_dir/$rung.pgn"
  [ "$rung" = time ] && [ -z "$pgn" ] && pgn=$time_pgn
  [ -n "$pgn" ] && args+=(--pgn-out "$pgn")
  [ "$resume" = 1 ] && args+=(--resume)
  if [ "$stopping" = 1 ]; then
    stopped_before=$rung
    break
  fi
  echo "strength-ladder: $game $rung: volkhv match ${args[*]}" >&2
  start=$(date +%s)
  setsid "$binary" match "${args[@]}" >"$result_file" &
  match_pid=$!
  status=0
  while true; do
    wait "$match_pid" && status=0 || status=$?
    # A trapped signal ends `wait` early (status above 128) while the
    # match is still finishing: wait for it again.
    kill -0 "$match_pid" 2>/dev/null || break
  done
  match_pid=""
  if [ "$rung" = time ]; then
    stats=$(search_stats "$pgn")
    [ -z "$stats" ] || tc="$tc; $stats"
  fi
  row_status=0
  row=$(result_row "$opp" "$tc" "$status" $(($(date +%s) - start)) "$result_file") ||
    row_status=$?
  case "$row_status" in
    0) ;;
    3) stopped_in=$rung ;;
    *) die "the match of rung '$rung' failed: volkhv match ${args[*]}" ;;
  esac
  rows+=("$row")
  ran_any=1
  [ -z "$stopped_in" ] || break
done
if [ -n "$stopped_before" ] && [ "$ran_any" = 0 ]; then
  echo "strength-ladder: stopped before its first rung" >&2
  exit 130
fi
[ "$ran_any" = 1 ] || die "no rung to play"

table=$(
  echo "Strength ladder of \`$net\` ($game), MCTS $visits visits per move unless said${search:+, with $search}; $games games per rung in colour-swapped pairs from $random_plies random plies, seed $seed."
  echo
  echo "| opponent | time control | games | W/D/L (net) | score | Elo of the net | wall time |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
)
echo "$table"
if [ -n "$out" ]; then
  printf '%s\n' "$table" >"$out"
fi
if [ -n "$stopped_in$stopped_before" ]; then
  if [ -n "$stopped_in" ]; then
    where="in rung '$stopped_in' (its row counts the games finished)"
  else
    where="before rung '$stopped_before'"
  fi
  if [ -n "$pgn_dir" ]; then
    echo "strength-ladder: stopped $where; the same command with --resume continues" >&2
  else
    echo "strength-ladder: stopped $where; with --pgn-dir, --resume could continue" >&2
  fi
  exit 130
fi
