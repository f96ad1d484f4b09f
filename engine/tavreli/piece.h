// Tavreli pieces: colour, movement type, promotion symbol and promoted flag,
// packed in one byte.
#ifndef VOLKHV_ENGINE_TAVRELI_PIECE_H_
#define VOLKHV_ENGINE_TAVRELI_PIECE_H_

#include <cstdint>

namespace volkhv::tavreli {

enum Color : uint8_t { kWhite = 0, kBlack = 1 };
constexpr Color Opponent(Color c) { return static_cast<Color>(c ^ 1); }

// How a piece moves. Symbols (what a pawn promotes to) use the same values.
enum PieceType : uint8_t {
  kKing = 0,
  kQueen = 1,
  kRook = 2,
  kBishop = 3,
  kKnight = 4,
  kHelgi = 5,
  kPawn = 6,
};
inline constexpr int kNumPieceTypes = 7;

// bits 0-2: movement type; bit 3: black; bits 4-6: promotion symbol (pawns
// and promoted pawns, else 0); bit 7: promoted pawn.
using Piece = uint8_t;

constexpr Piece MakePiece(Color c, PieceType type) {
  return static_cast<Piece>(type | c << 3);
}
constexpr Piece MakePawn(Color c, PieceType symbol) {
  return static_cast<Piece>(kPawn | c << 3 | symbol << 4);
}
constexpr Piece MakePromoted(Color c, PieceType symbol) {
  return static_cast<Piece>(symbol | c << 3 | symbol << 4 | 0x80);
}
constexpr PieceType TypeOf(Piece p) { return static_cast<PieceType>(p & 7); }
constexpr Color ColorOf(Piece p) { return static_cast<Color>((p >> 3) & 1); }
constexpr PieceType SymbolOf(Piece p) {
  return static_cast<PieceType>((p >> 4) & 7);
}
constexpr bool IsPromoted(Piece p) { return (p & 0x80) != 0; }
constexpr bool IsPawn(Piece p) { return TypeOf(p) == kPawn; }
constexpr Piece Promote(Piece pawn) {
  return MakePromoted(ColorOf(pawn), SymbolOf(pawn));
}
constexpr Piece Demote(Piece promoted) {
  return MakePawn(ColorOf(promoted), SymbolOf(promoted));
}

// Rank (0-7) on which a pawn of colour c promotes, and its own second rank.
constexpr int LastRank(Color c) { return c == kWhite ? 7 : 0; }
constexpr int SecondRank(Color c) { return c == kWhite ? 1 : 6; }
constexpr int Forward(Color c) { return c == kWhite ? 8 : -8; }

// The upper-case letter of a movement type or symbol: K Q R B N H P.
constexpr char TypeLetter(PieceType t) { return "KQRBNHP"[t]; }

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_PIECE_H_
