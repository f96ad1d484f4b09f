#include "engine/tavreli/notation.h"

#include <cctype>

#include "engine/game/square.h"
#include "engine/tavreli/movegen.h"
#include "engine/util/strings.h"

namespace volkhv::tavreli {
namespace {

bool IsCastling(const Position& pos, Move move) {
  return TypeOf(pos.Top(move.from)) == kKing &&
         RankOf(move.from) == RankOf(move.to) &&
         (move.to - move.from == 2 || move.from - move.to == 2);
}

// Removes spaces and the trailing marks of published records.
std::string Normalise(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  }
  while (!s.empty() &&
         std::string_view("+#!?*").find(s.back()) != std::string_view::npos) {
    s.pop_back();
  }
  // "e1(3)-d2x": a final x after a complete move is the end-of-game mark.
  if (s.size() > 2 && s.back() == 'x' && std::isdigit(s[s.size() - 2])) {
    s.pop_back();
  }
  return s;
}

absl::Status Malformed(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(
      Cat("malformed move \"", text, "\": ", why));
}

}  // namespace

std::string MoveToString(const Position& pos, Move move) {
  if (IsCastling(pos, move)) return move.to > move.from ? "0-0" : "0-0-0";
  std::string out = SquareName(move.from, 8);
  if (move.count != pos.Height(move.from)) {
    Append(&out, "(", move.count, ")");
  }
  const bool en_passant = IsPawn(pos.Top(move.from)) &&
                          move.to == pos.EnPassantSquare() &&
                          FileOf(move.from) != FileOf(move.to);
  out += (pos.Empty(move.to) && !en_passant) ? '-' : 'x';
  out += SquareName(move.to, 8);
  return out;
}

absl::StatusOr<Move> ParseMove(const Position& pos, std::string_view text) {
  const std::string s = Normalise(text);
  Move move;
  if (s == "0-0" || s == "O-O" || s == "0-0-0" || s == "O-O-O") {
    const int rank = pos.SideToMove() == kWhite ? 0 : 7;
    const int king = MakeSquare(4, rank);
    const bool kingside = s.size() == 3;
    move = MakeMove(king, kingside ? king + 2 : king - 2, 1);
    if (pos.Empty(king) ||
        pos.Top(king) != MakePiece(pos.SideToMove(), kKing)) {
      return absl::InvalidArgumentError(Cat(
          "illegal move ", text, ": the King is not on ", SquareName(king, 8)));
    }
  } else {
    int used = 0;
    std::optional<int> from = ParseSquarePrefix(s, 8, 8, &used);
    if (!from) return Malformed(text, "expected a source square like e2");
    size_t i = used;
    int count = 0;  // 0: the whole stack
    if (i < s.size() && s[i] == '(') {
      size_t close = s.find(')', i);
      if (close == std::string::npos || close == i + 1 || close > i + 3) {
        return Malformed(text, "expected (k) with a piece count k");
      }
      for (size_t j = i + 1; j < close; ++j) {
        if (!std::isdigit(static_cast<unsigned char>(s[j]))) {
          return Malformed(text, "the count in (k) must be a number");
        }
        count = count * 10 + (s[j] - '0');
      }
      if (count < 1) return Malformed(text, "the count in (k) must be >= 1");
      i = close + 1;
    }
    if (i >= s.size() || (s[i] != '-' && s[i] != 'x')) {
      return Malformed(text, "expected '-' or 'x' after the source square");
    }
    ++i;
    std::optional<int> to = ParseSquare(std::string_view(s).substr(i), 8, 8);
    if (!to) return Malformed(text, "expected a destination square like e4");
    if (pos.Empty(*from)) {
      return absl::InvalidArgumentError(
          Cat("illegal move ", text, ": ", SquareName(*from, 8), " is empty"));
    }
    if (count == 0) count = pos.Height(*from);
    if (count > pos.Height(*from)) {
      return absl::InvalidArgumentError(
          Cat("illegal move ", text, ": ", SquareName(*from, 8), " holds only ",
              pos.Height(*from), " piece(s)"));
    }
    move = MakeMove(*from, *to, count);
  }
  const std::string why = ExplainIllegal(pos, move);
  if (!why.empty()) {
    return absl::InvalidArgumentError(Cat("illegal move ", text, ": ", why));
  }
  return move;
}

}  // namespace volkhv::tavreli
