#include "engine/tavlei/move_text.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/game/square.h"
#include "engine/tavlei/movegen.h"
#include "engine/tavlei/play_move.h"

namespace volkhv::tavlei {
namespace {

// Annotation marks, the end-of-game `x` and spaces, stripped from the end.
constexpr std::string_view kTrailingMarks = "+!?*# \t\r\nx";

std::string_view SkipSpaces(std::string_view text) {
  while (!text.empty() && absl::ascii_isspace(text.front())) {
    text.remove_prefix(1);
  }
  return text;
}

std::string SquareList(const Rules& rules, const std::vector<int>& squares) {
  return absl::StrJoin(squares, "/", [&rules](std::string* out, int sq) {
    out->append(SquareName(sq, rules.width));
  });
}

std::vector<int> CapturesOf(const Rules& rules, const Position& position,
                            int from, int to) {
  Position after = position;
  Captures captures;
  PlayMove(rules, &after, from, to, &captures);
  return std::vector<int>(captures.squares.begin(),
                          captures.squares.begin() + captures.count);
}

}  // namespace

std::string WriteMove(const Rules& rules, const Position& position, Move move) {
  std::string text = absl::StrCat(SquareName(move.from, rules.width), "-",
                                  SquareName(move.to, rules.width));
  const std::vector<int> captured =
      CapturesOf(rules, position, move.from, move.to);
  if (!captured.empty()) {
    absl::StrAppend(&text, "x", SquareList(rules, captured));
  }
  return text;
}

absl::StatusOr<Move> ParseMoveText(const Rules& rules, const Position& position,
                                   std::string_view text) {
  const int w = rules.width;
  auto malformed = [&text](const char* expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed move \"", std::string(text), "\": expected ", expected));
  };
  std::string_view rest = SkipSpaces(text);
  while (!rest.empty() && kTrailingMarks.find(rest.back()) != rest.npos) {
    rest.remove_suffix(1);
  }
  int used = 0;
  const std::optional<int> from = ParseSquarePrefix(rest, w, w, &used);
  if (!from) return malformed("<from>-<to>");
  rest = SkipSpaces(rest.substr(used));
  if (rest.empty() || rest[0] != '-') return malformed("<from>-<to>");
  rest = SkipSpaces(rest.substr(1));
  const std::optional<int> to = ParseSquarePrefix(rest, w, w, &used);
  if (!to) return malformed("<from>-<to>");
  rest.remove_prefix(used);
  std::vector<int> listed;
  const bool has_list = !rest.empty();
  if (has_list) {
    if (rest[0] != 'x') return malformed("<from>-<to>");
    rest.remove_prefix(1);
    while (true) {
      const std::optional<int> sq = ParseSquarePrefix(rest, w, w, &used);
      if (!sq) return malformed("captured squares after x, like xd8/f8");
      listed.push_back(*sq);
      rest.remove_prefix(used);
      if (rest.empty()) break;
      if (rest[0] != '/') {
        return malformed("captured squares after x, like xd8/f8");
      }
      rest.remove_prefix(1);
    }
  }
  const std::string move_name =
      absl::StrCat(SquareName(*from, w), "-", SquareName(*to, w));
  const std::string reason = IllegalMoveReason(rules, position, *from, *to);
  if (!reason.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("illegal move ", move_name, ": ", reason));
  }
  if (has_list) {
    std::sort(listed.begin(), listed.end());
    const std::vector<int> actual = CapturesOf(rules, position, *from, *to);
    if (listed != actual) {
      return absl::InvalidArgumentError(
          absl::StrCat("wrong capture list in \"", std::string(text),
                       "\": ", move_name, " captures ",
                       actual.empty() ? "nothing" : SquareList(rules, actual)));
    }
  }
  return MakeMove(*from, *to, 1);
}

}  // namespace volkhv::tavlei
