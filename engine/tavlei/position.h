// A Tavlei position: mailbox board, per-side square sets for fast iteration,
// incremental Zobrist hash. A plain value type, copied on make (copy-make).
#ifndef VOLKHV_ENGINE_TAVLEI_POSITION_H_
#define VOLKHV_ENGINE_TAVLEI_POSITION_H_

#include <array>
#include <bit>
#include <cstdint>

#include "engine/tavlei/rules.h"
#include "engine/util/random.h"

namespace volkhv::tavlei {

enum Piece : uint8_t { kEmpty = 0, kAttacker = 1, kDefender = 2, kKing = 3 };

// Sides, as GameState::SideToMove() numbers them.
inline constexpr int kAttackers = 0;
inline constexpr int kDefenders = 1;

// The side a (non-empty) piece belongs to; the king is a defender.
constexpr int SideOf(uint8_t piece) {
  return piece == kAttacker ? kAttackers : kDefenders;
}

// How the board itself decides the game.
enum class Status : uint8_t { kOngoing, kKingCaptured, kKingEscaped };

// A set of squares 0..127. Value type; no shared state.
class SquareSet {
 public:
  void Set(int sq) { words_[sq >> 6] |= uint64_t{1} << (sq & 63); }
  void Clear(int sq) { words_[sq >> 6] &= ~(uint64_t{1} << (sq & 63)); }
  bool Has(int sq) const { return (words_[sq >> 6] >> (sq & 63)) & 1; }
  int Count() const {
    return std::popcount(words_[0]) + std::popcount(words_[1]);
  }
  // Calls visit(square) in ascending order while it returns true; returns
  // false when visit stopped the walk.
  template <typename Visit>
  bool ForEach(Visit&& visit) const {
    for (int w = 0; w < 2; ++w) {
      for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
        if (!visit(w * 64 + std::countr_zero(bits))) return false;
      }
    }
    return true;
  }

 private:
  std::array<uint64_t, 2> words_{};
};

// Zobrist keys: fixed for the life of the program, identical in every state.
struct ZobristKeys {
  uint64_t piece[4][kMaxSquares];
  uint64_t defenders_to_move;
};

constexpr ZobristKeys MakeZobristKeys() {
  ZobristKeys keys{};
  uint64_t state = 0x5a17a5c0ffee1234ULL;
  auto next = [&state]() { return SplitMix64Next(state); };
  for (auto& row : keys.piece) {
    for (uint64_t& key : row) key = next();
  }
  keys.defenders_to_move = next();
  return keys;
}

inline constexpr ZobristKeys kZobrist = MakeZobristKeys();

// A value type: thread-safe to read concurrently, not to mutate.
struct Position {
  std::array<uint8_t, kMaxSquares> board{};  // Piece values
  std::array<SquareSet, 2> pieces{};  // by side; the king is in [kDefenders]
  uint64_t hash = 0;                  // pieces and side to move
  int ply = 0;                        // the position text's ply counter
  int8_t king = kOffBoard;            // kOffBoard once captured
  uint8_t side = kAttackers;          // side to move
  Status status = Status::kOngoing;

  // Puts a piece on an empty square.
  void Put(int sq, uint8_t piece) {
    board[sq] = piece;
    pieces[SideOf(piece)].Set(sq);
    hash ^= kZobrist.piece[piece][sq];
    if (piece == kKing) king = static_cast<int8_t>(sq);
  }
  // Empties an occupied square.
  void Remove(int sq) {
    const uint8_t piece = board[sq];
    board[sq] = kEmpty;
    pieces[SideOf(piece)].Clear(sq);
    hash ^= kZobrist.piece[piece][sq];
    if (piece == kKing) king = kOffBoard;
  }
  void FlipSide() {
    side ^= 1;
    hash ^= kZobrist.defenders_to_move;
  }
  int PieceCount() const { return pieces[0].Count() + pieces[1].Count(); }
  // Same pieces on the same squares and the same side to move.
  bool SameArrangement(const Position& other) const {
    return hash == other.hash && side == other.side && board == other.board;
  }
};

}  // namespace volkhv::tavlei

#endif  // VOLKHV_ENGINE_TAVLEI_POSITION_H_
