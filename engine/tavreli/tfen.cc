#include "engine/tavreli/tfen.h"

#include <cctype>
#include <vector>

#include "engine/game/square.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::tavreli {
namespace {

absl::Status BoardError(int rank, int file, std::string_view what) {
  return absl::InvalidArgumentError(Cat(
      "TFEN board, rank ", rank + 1,
      file >= 0 && file < 8 ? Cat(", file ", std::string(1, 'a' + file)) : "",
      ": ", what));
}

bool TypeFromLetter(char upper, PieceType* type) {
  switch (upper) {
    case 'K':
      *type = kKing;
      return true;
    case 'Q':
      *type = kQueen;
      return true;
    case 'R':
      *type = kRook;
      return true;
    case 'B':
      *type = kBishop;
      return true;
    case 'N':
      *type = kKnight;
      return true;
    case 'H':
      *type = kHelgi;
      return true;
    default:
      return false;
  }
}

struct ParsedPiece {
  Piece piece;
  bool tilde;
};

// Parses one piece token at text[*i]; advances *i.
absl::StatusOr<ParsedPiece> ParsePieceToken(std::string_view text, size_t* i,
                                            int rank, int file) {
  const char c = text[*i];
  auto bad = [&](std::string_view why) { return BoardError(rank, file, why); };
  if (c == '+') {
    if (*i + 1 >= text.size()) return bad("'+' must be followed by a piece");
    const char p = text[*i + 1];
    PieceType type;
    if (!std::isalpha(static_cast<unsigned char>(p)) ||
        !TypeFromLetter(static_cast<char>(std::toupper(p)), &type) ||
        type == kKing) {
      return bad(Cat("unknown promoted piece '+", std::string(1, p),
                     "' (expected +R +N +B +Q +H)"));
    }
    *i += 2;
    return ParsedPiece{MakePromoted(std::isupper(p) ? kWhite : kBlack, type),
                       false};
  }
  if (c == 'P' || c == 'p') {
    const Color color = c == 'P' ? kWhite : kBlack;
    if (*i + 1 >= text.size()) return bad("a pawn needs its promotion symbol");
    const char s = text[*i + 1];
    PieceType symbol;
    const bool same_case = color == kWhite ? std::isupper(s) : std::islower(s);
    if (!std::isalpha(static_cast<unsigned char>(s)) || !same_case ||
        !TypeFromLetter(static_cast<char>(std::toupper(s)), &symbol) ||
        symbol == kKing) {
      return bad(Cat("unknown pawn token '", text.substr(*i, 2),
                     "' (expected P followed by R N B Q H in the "
                     "same case)"));
    }
    *i += 2;
    bool tilde = false;
    if (*i < text.size() && text[*i] == '~') {
      tilde = true;
      ++*i;
    }
    return ParsedPiece{MakePawn(color, symbol), tilde};
  }
  PieceType type;
  if (std::isalpha(static_cast<unsigned char>(c)) &&
      TypeFromLetter(static_cast<char>(std::toupper(c)), &type) &&
      type != kHelgi) {
    ++*i;
    return ParsedPiece{MakePiece(std::isupper(c) ? kWhite : kBlack, type),
                       false};
  }
  return bad(Cat("unknown token '", std::string(1, c), "'"));
}

// A stack as read, bottom to top.
struct SquareContents {
  std::vector<ParsedPiece> pieces;
};

absl::Status ParseRank(std::string_view text, int rank,
                       SquareContents (&squares)[64]) {
  int file = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (file >= 8) return BoardError(rank, -1, "more than 8 squares");
    const char c = text[i];
    if (c >= '1' && c <= '8') {
      file += c - '0';
      ++i;
      if (file > 8) return BoardError(rank, -1, "more than 8 squares");
      continue;
    }
    SquareContents& sq = squares[MakeSquare(file, rank)];
    if (c == '(') {
      ++i;
      while (i < text.size() && text[i] != ')') {
        absl::StatusOr<ParsedPiece> p = ParsePieceToken(text, &i, rank, file);
        if (!p.ok()) return p.status();
        sq.pieces.push_back(*p);
      }
      if (i >= text.size()) return BoardError(rank, file, "missing ')'");
      ++i;
      if (sq.pieces.size() < 2) {
        return BoardError(rank, file, "parentheses need two or more pieces");
      }
    } else {
      absl::StatusOr<ParsedPiece> p = ParsePieceToken(text, &i, rank, file);
      if (!p.ok()) return p.status();
      sq.pieces.push_back(*p);
    }
    ++file;
  }
  if (file != 8) {
    return BoardError(rank, -1, Cat(file, " squares instead of 8"));
  }
  return absl::OkStatus();
}

absl::Status ValidateStack(const SquareContents& sq, int square) {
  const int rank = RankOf(square);
  const int file = FileOf(square);
  const int h = static_cast<int>(sq.pieces.size());
  if (h > kMaxStackHeight) {
    return BoardError(rank, file,
                      Cat("a stack of ", h, " pieces (at most 32)"));
  }
  for (int i = 0; i < h; ++i) {
    const Piece p = sq.pieces[i].piece;
    const bool on_top = i == h - 1;
    if (!on_top && TypeOf(p) == kKing) {
      return BoardError(rank, file, "a piece stands on a king");
    }
    if (!on_top && IsPromoted(p)) {
      return BoardError(rank, file,
                        "a promoted piece below the top of its stack");
    }
    if (on_top && IsPawn(p) && rank == LastRank(ColorOf(p))) {
      return BoardError(rank, file,
                        "an unpromoted pawn on top on its last rank");
    }
    if (sq.pieces[i].tilde && rank != SecondRank(ColorOf(p))) {
      return BoardError(rank, file,
                        "'~' on a pawn that is not on its own second rank");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int> ParseClock(std::string_view text, std::string_view field,
                               int min) {
  return ParseInt<int>(text, Cat("TFEN ", field), min, kMaxMoveCounter);
}

absl::StatusOr<uint8_t> ParseCastling(std::string_view text) {
  if (text == "-") return uint8_t{0};
  uint8_t rights = 0;
  for (char c : text) {
    uint8_t bit;
    switch (c) {
      case 'K':
        bit = kWhiteKingside;
        break;
      case 'Q':
        bit = kWhiteQueenside;
        break;
      case 'k':
        bit = kBlackKingside;
        break;
      case 'q':
        bit = kBlackQueenside;
        break;
      default:
        return absl::InvalidArgumentError(
            Cat("TFEN castling: unknown right '", std::string(1, c), "'"));
    }
    if (rights & bit) {
      return absl::InvalidArgumentError(
          Cat("TFEN castling: right '", std::string(1, c), "' repeated"));
    }
    rights |= bit;
  }
  if (text.empty()) {
    return absl::InvalidArgumentError("TFEN castling: empty field");
  }
  return rights;
}

absl::Status ValidateCastling(uint8_t rights, const SquareContents (&sq)[64]) {
  struct Right {
    uint8_t bit;
    char letter;
    Color color;
    int rook_file;
  };
  static constexpr Right kRights[] = {{kWhiteKingside, 'K', kWhite, 7},
                                      {kWhiteQueenside, 'Q', kWhite, 0},
                                      {kBlackKingside, 'k', kBlack, 7},
                                      {kBlackQueenside, 'q', kBlack, 0}};
  for (const Right& r : kRights) {
    if (!(rights & r.bit)) continue;
    const int rank = r.color == kWhite ? 0 : 7;
    const SquareContents& king = sq[MakeSquare(4, rank)];
    if (king.pieces.size() != 1 ||
        king.pieces[0].piece != MakePiece(r.color, kKing)) {
      return absl::InvalidArgumentError(Cat(
          "TFEN castling: right '", std::string(1, r.letter),
          "' needs the king alone on ", SquareName(MakeSquare(4, rank), 8)));
    }
    const SquareContents& rook = sq[MakeSquare(r.rook_file, rank)];
    if (rook.pieces.empty() ||
        rook.pieces[0].piece != MakePiece(r.color, kRook)) {
      return absl::InvalidArgumentError(
          Cat("TFEN castling: right '", std::string(1, r.letter),
              "' needs an unpromoted rook at the bottom of ",
              SquareName(MakeSquare(r.rook_file, rank), 8)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int> ParseEnPassant(std::string_view text, Color side,
                                   const SquareContents (&sq)[64]) {
  if (text == "-") return kNoSquare;
  const std::optional<int> square = ParseSquare(text, 8, 8);
  if (!square) {
    return absl::InvalidArgumentError(
        Cat("TFEN en passant: '", text, "' is not a square"));
  }
  const Color mover = Opponent(side);
  const int rank = RankOf(*square);
  if (rank != (mover == kWhite ? 2 : 5)) {
    return absl::InvalidArgumentError(
        Cat("TFEN en passant: ", text, " is not on rank ",
            mover == kWhite ? 3 : 6, " (the side that just moved is ",
            mover == kWhite ? "White" : "Black", ")"));
  }
  if (!sq[*square].pieces.empty()) {
    return absl::InvalidArgumentError(
        Cat("TFEN en passant: ", text, " is not empty"));
  }
  const SquareContents& front = sq[*square + Forward(mover)];
  if (front.pieces.empty() || !IsPawn(front.pieces.back().piece) ||
      ColorOf(front.pieces.back().piece) != mover) {
    return absl::InvalidArgumentError(
        Cat("TFEN en passant: no pawn of the side that just moved on top of ",
            SquareName(*square + Forward(mover), 8)));
  }
  return *square;
}

}  // namespace

absl::StatusOr<Position> ParseTfen(std::string_view tfen) {
  std::vector<std::string_view> fields = Split(tfen, " ", /*skip_empty=*/true);
  if (fields.size() != 6) {
    return absl::InvalidArgumentError(
        Cat("TFEN needs 6 space-separated fields, got ", fields.size()));
  }
  std::vector<std::string_view> ranks = Split(fields[0], "/", false);
  if (ranks.size() != 8) {
    return absl::InvalidArgumentError(
        Cat("TFEN board: ", ranks.size(), " ranks instead of 8"));
  }
  SquareContents squares[64];
  for (int i = 0; i < 8; ++i) {
    if (absl::Status s = ParseRank(ranks[i], 7 - i, squares); !s.ok()) {
      return s;
    }
  }
  int kings[2] = {0, 0};
  int total = 0;
  for (int s = 0; s < 64; ++s) {
    if (absl::Status st = ValidateStack(squares[s], s); !st.ok()) return st;
    for (const ParsedPiece& p : squares[s].pieces) {
      if (TypeOf(p.piece) == kKing) ++kings[ColorOf(p.piece)];
    }
    total += static_cast<int>(squares[s].pieces.size());
  }
  for (Color c : {kWhite, kBlack}) {
    if (kings[c] != 1) {
      return absl::InvalidArgumentError(Cat("TFEN board: ", kings[c], " ",
                                            c == kWhite ? "white" : "black",
                                            " kings (exactly one per side)"));
    }
  }
  if (total > kMaxPieces) {
    return absl::InvalidArgumentError(
        Cat("TFEN board: ", total, " pieces (at most ", kMaxPieces, ")"));
  }
  if (fields[1] != "w" && fields[1] != "b") {
    return absl::InvalidArgumentError(
        Cat("TFEN side to move: '", fields[1], "' (expected w or b)"));
  }
  const Color side = fields[1] == "w" ? kWhite : kBlack;
  absl::StatusOr<uint8_t> castling = ParseCastling(fields[2]);
  if (!castling.ok()) return castling.status();
  if (absl::Status s = ValidateCastling(*castling, squares); !s.ok()) return s;
  absl::StatusOr<int> ep = ParseEnPassant(fields[3], side, squares);
  if (!ep.ok()) return ep.status();
  absl::StatusOr<int> halfmove = ParseClock(fields[4], "halfmove clock", 0);
  if (!halfmove.ok()) return halfmove.status();
  absl::StatusOr<int> fullmove = ParseClock(fields[5], "fullmove number", 1);
  if (!fullmove.ok()) return fullmove.status();

  Position pos;
  for (int s = 0; s < 64; ++s) {
    for (const ParsedPiece& p : squares[s].pieces) {
      // A pawn may double-step only from its own second rank without '~';
      // a promoted pawn has moved (it matters once it is demoted).
      const bool moved =
          IsPromoted(p.piece) ||
          (IsPawn(p.piece) &&
           (p.tilde || RankOf(s) != SecondRank(ColorOf(p.piece))));
      pos.PushPiece(s, p.piece, moved);
    }
  }
  pos.SetState(side, *castling, *ep, *halfmove, *fullmove);
  pos.Finalize();
  return pos;
}

std::string PieceToken(Piece piece, bool moved_pawn_on_second_rank) {
  const bool white = ColorOf(piece) == kWhite;
  auto letter = [white](PieceType t) {
    const char upper = TypeLetter(t);
    return white ? upper : static_cast<char>(std::tolower(upper));
  };
  if (IsPromoted(piece)) return std::string{'+', letter(SymbolOf(piece))};
  if (IsPawn(piece)) {
    std::string token{letter(kPawn), letter(SymbolOf(piece))};
    if (moved_pawn_on_second_rank) token += '~';
    return token;
  }
  return std::string(1, letter(TypeOf(piece)));
}

std::string ToTfen(const Position& pos) {
  std::string out;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      const int s = MakeSquare(file, rank);
      if (pos.Empty(s)) {
        ++empty;
        continue;
      }
      if (empty) out += static_cast<char>('0' + empty);
      empty = 0;
      Piece pieces[kMaxStackHeight];
      bool moved[kMaxStackHeight];
      const int h = pos.StackBottomToTop(s, pieces, moved);
      if (h > 1) out += '(';
      for (int i = 0; i < h; ++i) {
        out +=
            PieceToken(pieces[i], IsPawn(pieces[i]) && moved[i] &&
                                      rank == SecondRank(ColorOf(pieces[i])));
      }
      if (h > 1) out += ')';
    }
    if (empty) out += static_cast<char>('0' + empty);
    if (rank) out += '/';
  }
  out += pos.SideToMove() == kWhite ? " w " : " b ";
  const uint8_t c = pos.Castling();
  if (!c) out += '-';
  if (c & kWhiteKingside) out += 'K';
  if (c & kWhiteQueenside) out += 'Q';
  if (c & kBlackKingside) out += 'k';
  if (c & kBlackQueenside) out += 'q';
  out += ' ';
  out += pos.EnPassantSquare() == kNoSquare
             ? "-"
             : SquareName(pos.EnPassantSquare(), 8);
  Append(&out, " ", pos.HalfmoveClock(), " ", pos.FullmoveNumber());
  return out;
}

}  // namespace volkhv::tavreli
