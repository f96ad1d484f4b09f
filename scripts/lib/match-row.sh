# Sourced by the strength scripts: names their fixed opponents, and runs one
# `volkhv match` of two players and prints its Markdown table row.
#
#   fixed_opponent RUNG
#
# Prints the `volkhv match` player of a fixed opponent: random (the random
# mover), greedy (one ply of alpha-beta without quiescence: the move whose
# position the static evaluation likes best, blind to any recapture), ab1,
# ab2, ab3 (alpha-beta at that depth, with its quiescence). Returns 1 for
# any other name.
#
#   match_row BINARY LABEL_OPPONENT TIME_CONTROL ARGS...
#
# ARGS are `volkhv match` arguments whose first --player is the one the row
# scores. Prints "| opponent | time control | games | W/D/L | score | Elo
# (95 %: interval) | wall time |"; exits the calling script (status 2) with
# a message on stderr if the match fails or its result cannot be read.
#
#   result_row LABEL_OPPONENT TIME_CONTROL STATUS SECONDS RESULT_FILE
#
# The same row from a match already played: its exit status, wall seconds
# and standard output. A match stopped by SIGINT or SIGTERM (status 130)
# gives the row of the games it finished and returns 3.
fixed_opponent() {
  case "$1" in
    random) echo random ;;
    greedy) echo "alphabeta:depth=1,qdepth=0" ;;
    ab1 | ab2 | ab3) echo "alphabeta:depth=${1#ab}" ;;
    *) return 1 ;;
  esac
}

result_row() {
  local opponent=$1 tc=$2 status=$3 seconds=$4 result wdl score elo interval played
  result=$(cat "$5")
  if [ "$status" != 0 ] && [ "$status" != 130 ]; then
    echo "match failed (exit status $status)" >&2
    exit 2
  fi
  # "  W/D/L 91/5/4 for net, score 0.935" and the Elo line after it.
  wdl=$(sed -n 's|^  W/D/L \([0-9]*/[0-9]*/[0-9]*\) for .*|\1|p' <<<"$result" | head -n 1)
  score=$(sed -n 's|^  W/D/L .*, score \([0-9.]*\)$|\1|p' <<<"$result" | head -n 1)
  elo=$(sed -n 's|^  \(Elo [^:(]*\).*|\1|p' <<<"$result" | head -n 1)
  interval=$(sed -n 's|^  Elo .*(95 %: \([^)]*\)).*|\1|p' <<<"$result" | head -n 1)
  # "N games in T s", or "N games (K read back from the game file) in T s".
  played=$(sed -n 's|^\([0-9]*\) games\( ([^)]*)\)\{0,1\} in .*|\1|p' <<<"$result" | tail -n 1)
  if [ "$status" = 130 ] && [ "${played:-0}" = 0 ]; then
    echo "| $opponent | $tc | 0 | - | - | - | ${seconds} s |"
    return 3
  fi
  if [ -z "$wdl" ] || [ -z "$score" ]; then
    echo "cannot read the match's result" >&2
    exit 2
  fi
  elo=${elo% }
  [ -n "$interval" ] && elo="$elo (95 %: $interval)"
  echo "| $opponent | $tc | ${played:-?} | $wdl | $score | $elo | ${seconds} s |"
  [ "$status" = 0 ] || return 3
}

match_row() {
  local binary=$1 opponent=$2 tc=$3
  shift 3
  local start status=0 result_file row
  result_file=$(mktemp)
  start=$(date +%s)
  "$binary" match "$@" >"$result_file" || status=$?
  if [ "$status" != 0 ]; then
    rm -f "$result_file"
    echo "match failed: volkhv match $*" >&2
    exit 2
  fi
  row=$(result_row "$opponent" "$tc" 0 $(($(date +%s) - start)) "$result_file") || {
    rm -f "$result_file"
    echo "cannot read the result of: volkhv match $*" >&2
    exit 2
  }
  rm -f "$result_file"
  echo "$row"
}
