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
fixed_opponent() {
  case "$1" in
    random) echo random ;;
    greedy) echo "alphabeta:depth=1,qdepth=0" ;;
    ab1 | ab2 | ab3) echo "alphabeta:depth=${1#ab}" ;;
    *) return 1 ;;
  esac
}

match_row() {
  local binary=$1 opponent=$2 tc=$3
  shift 3
  local start result seconds wdl score elo interval played
  start=$(date +%s)
  if ! result=$("$binary" match "$@"); then
    echo "match failed: volkhv match $*" >&2
    exit 2
  fi
  seconds=$(($(date +%s) - start))
  # "  W/D/L 91/5/4 for net, score 0.935" and the Elo line after it.
  wdl=$(sed -n 's|^  W/D/L \([0-9]*/[0-9]*/[0-9]*\) for .*|\1|p' <<<"$result" | head -n 1)
  score=$(sed -n 's|^  W/D/L .*, score \([0-9.]*\)$|\1|p' <<<"$result" | head -n 1)
  elo=$(sed -n 's|^  \(Elo [^:(]*\).*|\1|p' <<<"$result" | head -n 1)
  interval=$(sed -n 's|^  Elo .*(95 %: \([^)]*\)).*|\1|p' <<<"$result" | head -n 1)
  played=$(sed -n 's|^\([0-9]*\) games in .*|\1|p' <<<"$result" | tail -n 1)
  if [ -z "$wdl" ] || [ -z "$score" ]; then
    echo "cannot read the result of: volkhv match $*" >&2
    exit 2
  fi
  elo=${elo% }
  [ -n "$interval" ] && elo="$elo (95 %: $interval)"
  echo "| $opponent | $tc | ${played:-?} | $wdl | $score | $elo | ${seconds} s |"
}
