// A Tavreli position: 64 squares of stacks (towers), castling rights, en
// passant, clocks and a Zobrist hash, updated by copy-make.
//
// Pieces live in slots; each square holds the slot of its top piece and each
// slot the slot beneath it, so moving the top k pieces of a stack is O(k).
// The whole position is a few hundred bytes, so a search copies it instead of
// unmaking moves (see kPositionBytes and docs/rules.md).
#ifndef VOLKHV_ENGINE_TAVRELI_POSITION_H_
#define VOLKHV_ENGINE_TAVRELI_POSITION_H_

#include <cstdint>

#include "engine/game/move.h"
#include "engine/tavreli/bitboard.h"
#include "engine/tavreli/piece.h"

namespace volkhv::tavreli {

inline constexpr int kMaxStackHeight = 32;
// A game holds 32 pieces; so may a TFEN (then no stack can exceed 32).
inline constexpr int kMaxPieces = 32;
inline constexpr uint8_t kNoSlot = 0xFF;
inline constexpr int kNoSquare = -1;

// Castling right bits.
enum CastlingRight : uint8_t {
  kWhiteKingside = 1,
  kWhiteQueenside = 2,
  kBlackKingside = 4,
  kBlackQueenside = 8,
};

// Which squares are topped by which colour and movement type.
struct TopBoards {
  Bitboard color[2] = {0, 0};
  Bitboard type[kNumPieceTypes] = {};

  Bitboard Occupied() const { return color[0] | color[1]; }
  void Clear(int square) {
    const Bitboard keep = ~SquareBit(square);
    color[0] &= keep;
    color[1] &= keep;
    for (Bitboard& b : type) b &= keep;
  }
  void Set(int square, Piece piece) {
    Clear(square);
    color[ColorOf(piece)] |= SquareBit(square);
    type[TypeOf(piece)] |= SquareBit(square);
  }
};

// Whether `by` attacks `square` on these boards (rules page section 8).
bool AttackedBy(const TopBoards& boards, int square, Color by);

class Position {
 public:
  // An empty board, White to move, no rights, clocks 0 and 1. Fill it with
  // PushPiece and SetState, then call Finalize before use.
  Position();

  // ---- Building (used by the TFEN reader) ----
  // Puts a piece on top of `square`. `moved` matters for pawns only.
  // Returns false when the piece or stack limit would be exceeded.
  bool PushPiece(int square, Piece piece, bool moved);
  void SetState(Color side, uint8_t castling, int ep_square, int halfmove,
                int fullmove);
  // Computes the top boards and the hash.
  void Finalize();

  // ---- Queries ----
  Color SideToMove() const { return side_; }
  uint8_t Castling() const { return castling_; }
  int EnPassantSquare() const { return ep_square_; }
  int HalfmoveClock() const { return halfmove_; }
  int FullmoveNumber() const { return fullmove_; }
  uint64_t Hash() const { return hash_; }
  const TopBoards& Tops() const { return tops_; }
  Bitboard Occupied() const { return tops_.Occupied(); }

  int Height(int square) const { return height_[square]; }
  bool Empty(int square) const { return top_[square] == kNoSlot; }
  // Requires a non-empty square.
  Piece Top(int square) const { return piece_[top_[square]]; }
  // The piece `depth` places below the top (0 = top). Requires depth < height.
  Piece PieceAt(int square, int depth) const;
  // Fills pieces[0..height) bottom to top (and moved flags if non-null);
  // returns the height.
  int StackBottomToTop(int square, Piece* pieces, bool* moved) const;
  // Whether the pawn topping `square` has never moved (may double-step).
  bool TopNeverMoved(int square) const {
    return (moved_ >> top_[square] & 1) == 0;
  }
  int KingSquare(Color c) const {
    return Lsb(tops_.type[kKing] & tops_.color[c]);
  }
  bool InCheck() const {
    return AttackedBy(tops_, KingSquare(side_), Opponent(side_));
  }
  int PieceCount() const { return num_pieces_; }

  // ---- Play ----
  // Plays a legal move (from LegalMoves). Anything else is undefined.
  void Apply(Move move);

 private:
  void LiftAndPlace(int from, int to, int count);
  void MaybePromote(int square);
  void RefreshTop(int square);
  uint64_t ComputeHash() const;
  uint64_t PieceKey(int square, int depth, uint8_t slot) const;
  uint64_t StateKey() const;

  uint8_t top_[kNumSquares];
  uint8_t height_[kNumSquares];
  uint8_t below_[kMaxPieces];
  Piece piece_[kMaxPieces];
  uint32_t moved_ = 0;  // bit per slot: has been part of a moving unit
  TopBoards tops_;
  uint64_t hash_ = 0;
  Color side_ = kWhite;
  uint8_t castling_ = 0;
  int8_t ep_square_ = kNoSquare;
  bool ep_in_hash_ = false;  // an en passant capture is legal (identity)
  uint8_t num_pieces_ = 0;
  uint16_t halfmove_ = 0;
  uint16_t fullmove_ = 1;
};

// The largest halfmove clock and fullmove number: playing on leaves them
// there (TFEN reads no larger).
inline constexpr uint16_t kMaxMoveCounter = 65535;

inline constexpr int kPositionBytes = sizeof(Position);
static_assert(kPositionBytes == 296,
              "Position is copied on every move: keep it small");

}  // namespace volkhv::tavreli

#endif  // VOLKHV_ENGINE_TAVRELI_POSITION_H_
