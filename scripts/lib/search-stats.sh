# Sourced by the strength scripts: how deep each player of a timed match
# searched, read from the move comments of its game file, so that a row
# played at equal time says what the time bought on that machine.
#
#   search_stats PGN
#
# Prints "net N visits a move (median), alpha-beta depth D (mean)" from the
# comments `volkhv match` writes after each move: "+0.12 1527v" for an MCTS
# move (its root visits), "+0.40/4" or "+M2/5" for an alpha-beta move (its
# last completed depth). A part with no such comments is left out; prints
# nothing when the file has neither.
search_stats() {
  [ -f "$1" ] || return 0
  local comments visits depth text=""
  # A comment may be wrapped over two lines: join the lines first.
  comments=$(tr '\n' ' ' <"$1" | grep -o '{[^}]*}' || true)
  visits=$(sed -n 's/^{.* \([0-9][0-9]*\)v}$/\1/p' <<<"$comments" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR > 0) print v[int(NR / 2) + 1] }')
  depth=$(sed -n 's|^{.*/\([0-9][0-9]*\)}$|\1|p' <<<"$comments" |
    awk '{ s += $1 } END { if (NR > 0) printf "%.2f", s / NR }')
  [ -n "$visits" ] && text="net $visits visits a move (median)"
  [ -n "$depth" ] && text="${text:+$text, }alpha-beta depth $depth (mean)"
  [ -n "$text" ] && echo "$text"
  return 0
}
