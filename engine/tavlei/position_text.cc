#include "engine/tavlei/position_text.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "engine/game/square.h"

namespace volkhv::tavlei {
namespace {

constexpr char kPieceChars[] = {'.', 't', 'T', 'K'};

absl::Status Invalid(const Rules& rules, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid ", rules.info.name, " position: ", what));
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == text.npos) return parts;
    start = end + 1;
  }
}

const char* PieceNoun(uint8_t piece) {
  return piece == kAttacker ? "an attacker" : "a defender";
}

// Writes one rank's pieces into position->board (no hash or sets yet).
absl::Status ParseRank(const Rules& rules, std::string_view text, int rank,
                       Position* position) {
  const int w = rules.width;
  const std::string label = absl::StrCat("rank ", rank + 1);
  int file = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (absl::ascii_isdigit(c)) {
      int run = 0;
      for (; i < text.size() && absl::ascii_isdigit(text[i]); ++i) {
        run = std::min(run * 10 + (text[i] - '0'), 1000);
      }
      if (run == 0) return Invalid(rules, label + ": empty run of 0 squares");
      file += run;
      continue;
    }
    uint8_t piece;
    if (c == 't') {
      piece = kAttacker;
    } else if (c == 'T') {
      piece = kDefender;
    } else if (c == 'K') {
      piece = kKing;
    } else {
      return Invalid(rules, absl::StrCat(label, ": unknown character '",
                                         std::string(1, c), "'"));
    }
    if (file < w) position->board[rank * w + file] = piece;
    ++file;
    ++i;
  }
  if (file != w) {
    return Invalid(
        rules, absl::StrCat(label, ": expected ", w, " squares, got ", file));
  }
  return absl::OkStatus();
}

absl::Status ParseBoard(const Rules& rules, std::string_view text,
                        Position* position) {
  const int w = rules.width;
  const std::vector<std::string_view> ranks = Split(text, '/');
  if (static_cast<int>(ranks.size()) != w) {
    return Invalid(rules,
                   absl::StrCat("board: expected ", w,
                                " ranks separated by '/', got ", ranks.size()));
  }
  Position staged;
  for (int i = 0; i < w; ++i) {
    absl::Status status = ParseRank(rules, ranks[i], w - 1 - i, &staged);
    if (!status.ok()) return status;
  }
  int kings = 0;
  for (int sq = 0; sq < rules.num_squares; ++sq) {
    const uint8_t piece = staged.board[sq];
    if (piece == kEmpty) continue;
    if (piece == kKing) {
      ++kings;
    } else if (sq == rules.throne) {
      return Invalid(rules, absl::StrCat("board: ", PieceNoun(piece),
                                         " on the throne ", SquareName(sq, w)));
    } else if (rules.is_corner[sq]) {
      return Invalid(rules,
                     absl::StrCat("board: ", PieceNoun(piece), " on the ",
                                  rules.corner_noun, " ", SquareName(sq, w)));
    }
    position->Put(sq, piece);
  }
  if (kings != 1) {
    return Invalid(rules, absl::StrCat("board: ", kings, " ", rules.king_noun,
                                       "s (K), expected exactly one"));
  }
  if (rules.is_corner[position->king]) position->status = Status::kKingEscaped;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Position> ParsePosition(const Rules& rules,
                                       std::string_view text) {
  std::vector<std::string_view> fields;
  for (size_t i = 0; i < text.size();) {
    if (absl::ascii_isspace(text[i])) {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < text.size() && !absl::ascii_isspace(text[i])) ++i;
    fields.push_back(text.substr(start, i - start));
  }
  if (fields.size() != 3) {
    return Invalid(rules, absl::StrCat("expected 3 fields <board> <side> "
                                       "<ply>, got ",
                                       fields.size()));
  }
  Position position;
  absl::Status status = ParseBoard(rules, fields[0], &position);
  if (!status.ok()) return status;
  if (fields[1] == "d") {
    position.FlipSide();
  } else if (fields[1] != "a") {
    return Invalid(rules, absl::StrCat("side: expected 'a' or 'd', got '",
                                       std::string(fields[1]), "'"));
  }
  const std::string_view ply = fields[2];
  if (ply.size() > 9 || !std::all_of(ply.begin(), ply.end(), [](char c) {
        return absl::ascii_isdigit(c);
      })) {
    return Invalid(rules, absl::StrCat("ply: expected a non-negative "
                                       "integer, got '",
                                       std::string(ply), "'"));
  }
  for (char c : ply) position.ply = position.ply * 10 + (c - '0');
  return position;
}

std::string WritePosition(const Rules& rules, const Position& position) {
  const int w = rules.width;
  std::string text;
  for (int rank = w - 1; rank >= 0; --rank) {
    int run = 0;
    for (int file = 0; file < w; ++file) {
      const uint8_t piece = position.board[rank * w + file];
      if (piece == kEmpty) {
        ++run;
        continue;
      }
      if (run > 0) absl::StrAppend(&text, run);
      run = 0;
      text += kPieceChars[piece];
    }
    if (run > 0) absl::StrAppend(&text, run);
    if (rank > 0) text += '/';
  }
  absl::StrAppend(&text, position.side == kAttackers ? " a " : " d ",
                  position.ply);
  return text;
}

std::string DrawBoard(const Rules& rules, const Position& position) {
  const int w = rules.width;
  std::string text;
  for (int rank = w - 1; rank >= 0; --rank) {
    absl::StrAppend(&text, rank + 1 < 10 ? " " : "", rank + 1, " ");
    for (int file = 0; file < w; ++file) {
      const int sq = rank * w + file;
      char c = kPieceChars[position.board[sq]];
      if (c == '.' && sq == rules.throne) c = '+';
      if (c == '.' && rules.is_corner[sq]) c = '*';
      text += ' ';
      text += c;
    }
    text += '\n';
  }
  text += "   ";
  for (int file = 0; file < w; ++file) {
    text += ' ';
    text += static_cast<char>('a' + file);
  }
  absl::StrAppend(&text, "\n",
                  position.side == kAttackers ? "attackers" : "defenders",
                  " to move, ply ", position.ply, "\n");
  if (position.status == Status::kKingCaptured) {
    absl::StrAppend(&text, "the ", rules.king_noun,
                    " was captured: attackers win\n");
  } else if (position.status == Status::kKingEscaped) {
    absl::StrAppend(&text, "the ", rules.king_noun, " reached the ",
                    rules.corner_noun, " ", SquareName(position.king, w),
                    ": defenders win\n");
  }
  return text;
}

}  // namespace volkhv::tavlei
